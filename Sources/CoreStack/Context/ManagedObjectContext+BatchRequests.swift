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

    /// Runs a batch insert straight into the store (one transaction, no object made, no row
    /// cached) and returns the new objects' IDs as inserted (and the destinations of one-to-many
    /// relationships it set as updated), for ``mergeChanges(fromRemoteContextSave:into:)``.
    /// ``executeBatchInsert(_:)`` returns the IDs in the request's order.
    ///
    /// ```swift
    /// let changes = try context.execute(BatchInsertRequest(entityName: "Genre", objects: [["name": "Poetry"]]))
    /// ```
    /// - Throws: as ``executeBatchInsert(_:)``; nothing is inserted then.
    public func execute(_ request: BatchInsertRequest) throws -> SavedObjectIDs {
        try executeBatchInsert(request).changes
    }

    /// Runs a batch insert straight into the store (one transaction, no object made, no row
    /// cached) and returns the new objects' IDs in the request's order, so that a later request
    /// can point relationships at them.
    ///
    /// ```swift
    /// let publisher = try context.executeBatchInsert(BatchInsertRequest(entityName: "Publisher", objects: [["name": "Lac"]]))
    /// let books = try context.executeBatchInsert(BatchInsertRequest(
    ///     entityName: "Book", objects: [["title": "Atlas"], ["title": "Fjord"]],
    ///     relationships: [["publisher": publisher.objectIDs], ["publisher": publisher.objectIDs]]))
    /// books.objectIDs.count   // 2, in the order of the objects
    /// ```
    /// - Throws: ``CoreStackError/unknownKey(entity:key:)`` for a key that is not an attribute (in
    ///   ``BatchInsertRequest/objects``) or a relationship (in ``BatchInsertRequest/relationships``),
    ///   ``CoreStackError/typeMismatch(entity:key:expected:got:)`` for a value of the wrong type, a
    ///   destination of the wrong entity or more than one destination for a to-one,
    ///   ``CoreStackError/objectNotFound(_:)`` for a temporary destination ID,
    ///   ``CoreStackError/validation(entity:property:objectID:reason:)`` for a required attribute
    ///   left without a value, ``CoreStackError/invalidModel(entity:property:reason:)`` for an
    ///   abstract entity, ``CoreStackError/invalidFetchRequest(_:)`` for more relationship
    ///   dictionaries than objects or a to-one whose inverse is ordered; nothing is inserted then.
    @discardableResult
    public func executeBatchInsert(_ request: BatchInsertRequest) throws -> BatchInsertResult {
        checkQueue()
        let entity = try model.requireEntity(request.entityName)
        if entity.isAbstract {
            throw CoreStackError.invalidModel(entity: entity.name, property: nil, reason: "an abstract entity cannot have instances")
        }
        guard request.relationships.count <= request.objects.count else {
            throw CoreStackError.invalidFetchRequest(
                "a batch insert of \(entity.name) has \(request.relationships.count) relationship dictionaries for \(request.objects.count) objects")
        }
        let store = try persistentStoreCoordinator.requireStore()
        let noDestinations = [ManagedObjectID?](repeating: nil, count: entity.allRelationships.count)
        var rows: [[AttributeValue]] = []
        rows.reserveCapacity(request.objects.count)
        for (n, object) in request.objects.enumerated() {
            var values = entity.defaultValues
            for (key, value) in object {
                guard let slot = entity.attributeSlots[key] else { throw CoreStackError.unknownKey(entity: entity.name, key: key) }
                let type = entity.attributeTypes[slot]
                guard let coerced = AttributeCoercion.coerce(value, to: type) else {
                    throw CoreStackError.typeMismatch(entity: entity.name, key: key, expected: type.xcodeName, got: "\(value.kindDescription) (\(value))")
                }
                values[slot] = coerced
            }
            for (slot, a) in entity.allAttributes.enumerated() where !a.isOptional && !a.isTransient && values[slot].isNull {
                throw CoreStackError.validation(
                    entity: entity.name, property: a.name, objectID: "batch insert object \(n)", reason: "a required value is missing")
            }
            rows.append(values)
        }
        var toOnes: [[ManagedObjectID?]] = []
        var toManys: [[ToManyChange]] = []
        var updated: Set<ManagedObjectID> = []
        toOnes.reserveCapacity(request.relationships.count)
        toManys.reserveCapacity(request.relationships.count)
        for object in request.relationships {
            var toOne = noDestinations
            var toMany: [ToManyChange] = []
            for (name, destinations) in object {
                try batchInsertRelationship(
                    name, of: entity, destinations: destinations, toOne: &toOne, toMany: &toMany, updated: &updated)
            }
            toOnes.append(toOne)
            toManys.append(toMany)
        }
        let keys = try store.newPrimaryKeys(for: entity, count: rows.count)
        let token = StoreIdentifiers.token(for: store.identifier)
        var inserted: [StoreRowChange] = []
        inserted.reserveCapacity(rows.count)
        for (n, (values, pk)) in zip(rows, keys).enumerated() {
            inserted.append(StoreRowChange(
                objectID: ManagedObjectID(entity: entity, storeToken: token, primaryKey: pk), values: values,
                toOne: n < toOnes.count ? toOnes[n] : noDestinations, expectedVersion: 0,
                toMany: n < toManys.count ? toManys[n] : []))
        }
        rows = []
        let ids = inserted.map(\.objectID)
        _ = try store.save(StoreSaveRequest(inserted: inserted))
        if !updated.isEmpty { persistentStoreCoordinator.forgetRows(updated) }
        return BatchInsertResult(objectIDs: ids, updatedObjectIDs: Array(updated))
    }

    /// Checks one relationship of one batch-inserted object and records where it goes: the row's
    /// foreign key (`toOne`), or a to-many change (join rows, or the destinations' foreign keys).
    private func batchInsertRelationship(
        _ name: String, of entity: EntityDescription, destinations: [ManagedObjectID],
        toOne: inout [ManagedObjectID?], toMany: inout [ToManyChange], updated: inout Set<ManagedObjectID>
    ) throws {
        guard let slot = entity.relationshipSlots[name], !entity.allRelationships[slot].isTransient else {
            throw CoreStackError.unknownKey(entity: entity.name, key: name)
        }
        let relationship = entity.allRelationships[slot]
        let destination = entity.destinations[slot]
        var ids: [ManagedObjectID] = []
        ids.reserveCapacity(destinations.count)
        for id in destinations {
            let id = persistentStoreCoordinator.canonicalID(id)
            guard !id.isTemporaryID else {
                throw CoreStackError.objectNotFound("\(id) is temporary: a batch insert links to saved objects only")
            }
            guard id.entity.isKind(of: destination) else {
                throw CoreStackError.typeMismatch(entity: entity.name, key: name, expected: destination.name, got: id.entity.name)
            }
            ids.append(id)
        }
        let inverse = entity.inverseRelationship(of: name)
        if !relationship.isToMany {
            guard ids.count <= 1 else {
                throw CoreStackError.typeMismatch(entity: entity.name, key: name, expected: "at most one \(destination.name)", got: "\(ids.count) objects")
            }
            if let inverse, inverse.isOrdered, !ids.isEmpty {
                throw CoreStackError.invalidFetchRequest(
                    "a batch insert cannot set \(entity.name).\(name): its inverse \(destination.name).\(inverse.name) is ordered; set that instead")
            }
            toOne[slot] = ids.first
            return
        }
        let ownsForeignKeys = inverse.map { !$0.isToMany } ?? false
        toMany.append(ToManyChange(slot: slot, current: ids, added: ids, removed: [], writesDestinationKeys: ownsForeignKeys))
        if ownsForeignKeys { updated.formUnion(ids) }
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
