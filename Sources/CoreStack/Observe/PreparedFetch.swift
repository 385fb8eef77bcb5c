import Foundation

/// A fetched-results controller's fetch, prepared on its context's queue, whose SQL query (the IDs
/// and sort keys of the results) runs on any thread and can be cancelled; the controller then
/// applies the result on its context's queue in one short step
/// (``FetchedResultsController/apply(_:)``).
///
/// ```swift
/// let fetch = try controller.prepareFetch()              // on the context's queue
/// DispatchQueue.global().async {
///     let result = Result { try fetch.run() }            // off the queue: the SQL query
///     DispatchQueue.main.async {                         // back on the (main-queue) context's queue
///         if case let .success(rows) = result { try? controller.apply(rows) }
///     }
/// }
/// fetch.cancel()                                         // Esc: run() throws CancellationError
/// ```
///
/// Only a controller with `fetchBatchSize`, plain-attribute sort and section keys and nothing
/// unsaved in the way runs its query off the queue; for any other, ``run()`` does nothing and
/// ``FetchedResultsController/apply(_:)`` performs the whole fetch on the queue.
public final class PreparedFetch: Sendable {
    let coordinator: PersistentStoreCoordinator
    /// Nil when the store alone cannot answer: the fetch is made on the context's queue at apply.
    let storeRequest: StoreFetchRequest?
    let slots: [Int]
    let hasSection: Bool
    /// The coordinator's ``PersistentStoreCoordinator/storeGeneration`` before the query.
    let generation: UInt64
    /// The controller that prepared it.
    let controller: ObjectIdentifier
    /// Cancels the query (see ``cancel()``).
    public let cancellation: FetchCancellation

    init(
        coordinator: PersistentStoreCoordinator, storeRequest: StoreFetchRequest?, slots: [Int], hasSection: Bool,
        generation: UInt64, controller: ObjectIdentifier, cancellation: FetchCancellation
    ) {
        self.coordinator = coordinator
        self.storeRequest = storeRequest
        self.slots = slots
        self.hasSection = hasSection
        self.generation = generation
        self.controller = controller
        self.cancellation = cancellation
    }

    /// Whether the query runs off the context's queue (otherwise ``run()`` does nothing and the
    /// fetch is made when the result is applied).
    ///
    /// ```swift
    /// if fetch.runsOffQueue { showSpinner() }
    /// ```
    public var runsOffQueue: Bool { storeRequest != nil }

    /// Runs the query, on the calling thread (any thread but the context's queue, for a long
    /// query). Throws `CancellationError` when cancelled before or during the query.
    ///
    /// ```swift
    /// let rows = try fetch.run()
    /// ```
    public func run() throws -> PreparedFetchResult {
        try cancellation.check()
        guard let storeRequest else { return PreparedFetchResult(fetch: self, ids: nil, columns: []) }
        let (ids, columns) = try coordinator.fetchObjectIDColumns(storeRequest, valuesAt: slots, cancellation: cancellation)
        try cancellation.check()
        return PreparedFetchResult(fetch: self, ids: ids, columns: columns)
    }

    /// Cancels the fetch: a running query stops soon, ``run()`` throws `CancellationError`, and
    /// ``FetchedResultsController/apply(_:)`` of its result throws it too, leaving the controller
    /// as it was. From any thread.
    ///
    /// ```swift
    /// fetch.cancel()
    /// ```
    public func cancel() {
        cancellation.cancel()
    }
}
