import Foundation

extension ManagedObjectContext {
    /// Fetches the IDs of every match up front and returns a ``BatchedFetchResult`` that makes
    /// and fills the objects a batch of ``FetchRequest/fetchBatchSize`` at a time as they are
    /// touched, holding only the last two batches touched (every match in one batch when the
    /// batch size is 0).
    ///
    /// Unlike ``fetch(_:)`` with a batch size, which returns an array holding a fault for every
    /// match, walking this result once holds about two batches of objects: the others are
    /// released at the context's next sweep when nothing else references them (see
    /// ``retainsRegisteredObjects``). ``FetchRequest/relationshipKeyPathsForPrefetching`` is
    /// applied to each batch as it loads; ``FetchRequest/returnsObjectsAsFaults`` is ignored
    /// (a batch is filled as it loads).
    ///
    /// ```swift
    /// var request = FetchRequest<Book>(entityName: "Book")
    /// request.fetchBatchSize = 500
    /// let books = try context.fetchBatched(request)
    /// books.count        // every match; no object made yet
    /// books[1_234].title // batch 2 (objects 1,000…1,499) read in one query
    /// ```
    public func fetchBatched<T: ManagedObject>(_ request: FetchRequest<T>) throws -> BatchedFetchResult<T> {
        checkQueue()
        let entity = try entity(of: request)
        // The result hands its objects out as `T`s unchecked: every class it can meet is checked here.
        for e in request.includesSubentities ? entity.selfAndDescendants : [entity] where !e.isAbstract {
            guard e.managedObjectClass is T.Type else {
                throw CoreStackError.typeMismatch(
                    entity: e.name, key: "(fetch)", expected: "\(T.self)", got: "an object of class \(e.managedObjectClass)")
            }
        }
        processPendingChanges()
        sweepUnreferencedObjectsIfGrown()
        let storeRequest = request.storeRequest(entity: entity)
        let ids: [ManagedObjectID]
        if parent == nil, !request.includesPendingChanges || !hasLocalChanges(affecting: storeRequest) {
            ids = try persistentStoreCoordinator.fetchObjectIDs(storeRequest)
        } else {
            ids = try resultIDs(storeRequest, includesPendingChanges: request.includesPendingChanges, rowsNeeded: false)
        }
        return BatchedFetchResult(
            context: self, ids: ids, batchSize: request.fetchBatchSize > 0 ? request.fetchBatchSize : ids.count,
            prefetching: request.relationshipKeyPathsForPrefetching)
    }

    /// The objects of one batch of a ``BatchedFetchResult``, registered (faults made for IDs not
    /// registered) and filled in one trip to the store or parent. When that trip fails the
    /// objects stay faults: each fires on its own when touched and reports its error then.
    func loadBatch(_ ids: ArraySlice<ManagedObjectID>, prefetching: [String]) -> [ManagedObject] {
        debugCheckQueue()
        var objects: [ManagedObject] = []
        objects.reserveCapacity(ids.count)
        for id in ids {
            if id.isTemporaryID {
                objects.append(registeredObject(for: id) ?? makeFault(for: persistentStoreCoordinator.canonicalID(id)))
            } else {
                // A store's or parent's permanent IDs are canonical: one probe finds or registers.
                objects.append(registered.object(forPermanent: id, orInsert: { makeObject(for: id) }))
            }
        }
        do {
            try fireFaults(objects)
            for path in prefetching { try prefetch(path.split(separator: ".").map(String.init)[...], for: objects) }
        } catch {
            // Left as faults (see above).
        }
        return objects
    }
}
