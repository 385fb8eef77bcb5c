import Foundation

/// What ``PreparedFetch/run()`` read: the IDs and sort keys of the results, to hand to
/// ``FetchedResultsController/apply(_:)`` on the context's queue.
///
/// ```swift
/// let result = try fetch.run()
/// context.perform { try? controller.apply(result) }
/// ```
public struct PreparedFetchResult: Sendable {
    let fetch: PreparedFetch
    /// Nil when the fetch is made at apply (see ``PreparedFetch/runsOffQueue``).
    let ids: [ManagedObjectID]?
    let columns: [[AttributeValue]]

    /// How many objects the query found (nil when the fetch is made at apply).
    ///
    /// ```swift
    /// status = "\(result.count ?? 0) objects"
    /// ```
    public var count: Int? { ids?.count }
}
