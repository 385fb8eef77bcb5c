import Foundation

extension ManagedObjectContext {
    /// Runs a batch update in the store's SQL and returns what changed (as updated object IDs),
    /// for ``mergeChanges(fromRemoteContextSave:into:)``. Contexts, this one included, see the
    /// new values once the changes are merged into them (or their objects are refreshed).
    ///
    /// ```swift
    /// var request = BatchUpdateRequest(entityName: "Book", predicate: .key("pages") > 1000)
    /// request.propertiesToUpdate = ["inPrint": .bool(false)]
    /// let changes = try context.execute(request)
    /// ManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: [context, mainContext])
    /// ```
    /// - Throws: ``CoreStackError/unknownKey(entity:key:)`` or ``CoreStackError/typeMismatch(entity:key:expected:got:)``
    ///   for a property that is not a stored attribute or a value of the wrong type.
    public func execute(_ request: BatchUpdateRequest) throws -> SavedObjectIDs {
        checkQueue()
        let entity = try model.requireEntity(request.entityName)
        var values: [Int: AttributeValue] = [:]
        for (key, value) in request.propertiesToUpdate {
            guard let slot = entity.attributeSlots[key], !entity.attributeIsTransient[slot] else {
                throw CoreStackError.unknownKey(entity: entity.name, key: key)
            }
            let type = entity.attributeTypes[slot]
            guard let coerced = AttributeCoercion.coerce(value, to: type) else {
                throw CoreStackError.typeMismatch(entity: entity.name, key: key, expected: type.xcodeName, got: "\(value.kindDescription) (\(value))")
            }
            values[slot] = coerced
        }
        if let p = request.predicate { try PredicateValidator.validate(p, entity: entity) }
        let storeRequest = StoreFetchRequest(entity: entity, includesSubentities: request.includesSubentities, predicate: request.predicate)
        let ids = try persistentStoreCoordinator.requireStore().executeBatchUpdate(storeRequest, values: values)
        persistentStoreCoordinator.forgetRows(ids)
        return SavedObjectIDs(updated: Set(ids))
    }

    /// Runs a batch delete in the store's SQL and returns what changed: the deleted IDs, and as
    /// updated those of objects whose relationships were nullified. See ``BatchDeleteRequest``
    /// for the delete rules.
    ///
    /// ```swift
    /// let changes = try context.execute(BatchDeleteRequest(entityName: "Chapter", predicate: .key("wordCount") == 0))
    /// ManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: [mainContext])
    /// ```
    /// - Throws: ``CoreStackError/deleteDenied(entity:relationship:objectID:)`` for a deny rule
    ///   with destinations, ``CoreStackError/invalidFetchRequest(_:)`` for a cascade with
    ///   destinations (nothing is deleted either way).
    public func execute(_ request: BatchDeleteRequest) throws -> SavedObjectIDs {
        checkQueue()
        let store = try persistentStoreCoordinator.requireStore()
        let changes: SavedObjectIDs
        if let ids = request.objectIDs {
            changes = try store.executeBatchDelete(matching: nil, objectIDs: ids.map { persistentStoreCoordinator.canonicalID($0) })
        } else {
            let entity = try model.requireEntity(request.entityName)
            if let p = request.predicate { try PredicateValidator.validate(p, entity: entity) }
            changes = try store.executeBatchDelete(matching: StoreFetchRequest(entity: entity, predicate: request.predicate), objectIDs: [])
        }
        persistentStoreCoordinator.forgetRows(changes.updated.union(changes.deleted))
        return changes
    }

    /// Merges changes made outside these contexts (a batch request, another coordinator's save)
    /// into each of them, on its queue: updated objects they hold are refreshed, deleted ones
    /// leave them, inserted ones are announced; fetched-results controllers and entity monitors
    /// hear of it as of any merged save.
    ///
    /// ```swift
    /// let changes = try background.performAndWait { try background.execute(BatchDeleteRequest(entityName: "Book")) }
    /// ManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: [mainContext])
    /// ```
    public static func mergeChanges(fromRemoteContextSave changes: SavedObjectIDs, into contexts: [ManagedObjectContext]) {
        guard !changes.isEmpty else { return }
        var coordinators: [ObjectIdentifier] = []
        for context in contexts {
            let coordinator = context.persistentStoreCoordinator
            if !coordinators.contains(ObjectIdentifier(coordinator)) {
                coordinators.append(ObjectIdentifier(coordinator))
                coordinator.forgetRows(changes.updated.union(changes.deleted))
            }
            // The rows are read again from the store (their cached copies were just forgotten).
            context.performAndWait { context.mergeChanges(from: changes) }
        }
    }
}
