import Foundation

extension FetchedResultsController {
    // MARK: Fetching off the queue

    /// Prepares a fetch whose SQL query runs off the context's queue and can be cancelled (see
    /// ``PreparedFetch``); nothing changes until ``apply(_:)``. Call on the context's queue.
    ///
    /// ```swift
    /// let fetch = try controller.prepareFetch()
    /// let result = try fetch.run()                 // on another thread
    /// try controller.apply(result)                 // on the context's queue
    /// ```
    public func prepareFetch() throws -> PreparedFetch {
        try prepareFetch(cancellation: FetchCancellation())
    }

    func prepareFetch(cancellation: FetchCancellation) throws -> PreparedFetch {
        let context = managedObjectContext
        context.checkQueue()
        let coordinator = context.persistentStoreCoordinator
        // Read before the query's snapshot can be taken: any save from here on changes it.
        let generation = coordinator.storeGeneration
        let entity = try context.entity(of: fetchRequest)
        let plan = PlainKeyPlan(sortDescriptors: fetchRequest.sortDescriptors, sectionKeyPath: sectionNameProvider == nil ? sectionNameKeyPath : nil)
        var storeRequest: StoreFetchRequest?
        var slots: [Int] = []
        var hasSection = false
        if keepsIDs, let s = plan.slots(for: entity), let request = context.batchedStoreRequest(fetchRequest, entity: entity) {
            storeRequest = request
            slots = s.sort + (s.section.map { [$0] } ?? [])
            hasSection = s.section != nil
        }
        return PreparedFetch(
            coordinator: coordinator, storeRequest: storeRequest, slots: slots, hasSection: hasSection, generation: generation,
            controller: ObjectIdentifier(self), cancellation: cancellation)
    }

    /// Applies a prepared fetch's result, as ``performFetch()`` would (the delegate is told with
    /// ``FetchedResultsControllerDelegate/controllerDidPerformFetch(_:)``): in one short step when
    /// the store is as the query saw it and nothing unsaved in the context changes the answer;
    /// otherwise by fetching again here, so the results are right either way. Throws
    /// `CancellationError` (the controller unchanged) when the fetch was cancelled. Call on the
    /// context's queue.
    ///
    /// ```swift
    /// try context.performAndWait { try controller.apply(result) }
    /// ```
    public func apply(_ result: PreparedFetchResult) throws {
        let context = managedObjectContext
        context.checkQueue()
        try result.fetch.cancellation.check()
        guard result.fetch.controller == ObjectIdentifier(self) else {
            throw CoreStackError.invalidFetchRequest("a prepared fetch was applied to a controller that did not prepare it")
        }
        let entity = try context.entity(of: fetchRequest)
        guard let ids = result.ids, result.fetch.generation == context.persistentStoreCoordinator.storeGeneration,
            context.batchedStoreRequest(fetchRequest, entity: entity) != nil
        else {
            try performFetch()
            return
        }
        self.entity = entity
        plainKeys = PlainKeyPlan(sortDescriptors: fetchRequest.sortDescriptors, sectionKeyPath: sectionNameProvider == nil ? sectionNameKeyPath : nil)
        let rows = try fetchedRows(ids: ids, values: result.columns, hasSection: result.fetch.hasSection)
        retainsObjects = false
        rebuild(rows)
        startObserving()
        delegate?.controllerDidPerformFetch(self)
        broadcaster.send(.didPerformFetch)
    }
}
