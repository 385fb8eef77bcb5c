import Foundation

extension ManagedObjectContext {
    /// Reads the rows a request selects straight from the store, in the request's order (its
    /// predicate, sort descriptors, offset and limit run in SQL), handing each to `body` as it is
    /// read: no object is registered and no row is cached, so memory stays flat in the number of
    /// rows. With `includingToMany`, each row's to-many destinations come along, read a chunk of
    /// rows at a time in the same pass.
    ///
    /// ```swift
    /// var request = FetchRequest<ManagedObject>(entityName: "Book")
    /// request.sortDescriptors = [SortDescriptor("title")]
    /// request.fetchLimit = 10
    /// try context.streamRows(request) { row in print(row.value(forKey: "title") ?? .null) }
    /// ```
    ///
    /// A child context, or a context whose unsaved changes may change the result, cannot read
    /// past them: it fetches its objects as ``fetch(_:)`` does and hands over their current state.
    /// `body` runs outside the store's connection queue and any lock: it may use the context (an
    /// SQLite store streams from a read-only connection of its own, holding one snapshot of the
    /// file for the whole stream, so changes saved meanwhile are not streamed).
    public func streamRows<T: ManagedObject>(
        _ request: FetchRequest<T>, includingToMany: Bool = true, _ body: (FetchedRow) throws -> Void
    ) throws {
        checkQueue()
        let entity = try entity(of: request)
        processPendingChanges()
        let storeRequest = request.storeRequest(entity: entity)
        guard parent == nil, !request.includesPendingChanges || !hasLocalChanges(affecting: storeRequest) else {
            var r = request
            r.returnsObjectsAsFaults = false
            for o in try fetch(r) {
                var toMany: [Int: [ManagedObjectID]] = [:]
                if includingToMany {
                    for (slot, rel) in o.entity.allRelationships.enumerated() where rel.isToMany && !rel.isTransient {
                        toMany[slot] = try o.destinationIDs(slot: slot)
                    }
                }
                try body(FetchedRow(objectID: o.objectID, snapshot: o.currentSnapshot(), toMany: toMany))
            }
            return
        }
        if let p = request.predicate { try PredicateValidator.validate(p, entity: entity) }
        try persistentStoreCoordinator.requireStore().fetch(storeRequest, withToMany: includingToMany) { rows, toMany in
            for i in rows.indices {
                let id = rows[i].objectID
                try body(FetchedRow(objectID: id, snapshot: rows[i].snapshot, toMany: toMany[id] ?? [:]))
            }
        }
    }
}
