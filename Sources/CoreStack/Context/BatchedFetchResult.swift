import Foundation

/// The result of ``ManagedObjectContext/fetchBatched(_:)``: the IDs of every match, read up
/// front in one SQL query, and the objects made and filled a batch at a time as they are touched.
///
/// The result keeps strong references to the objects of the two batches touched last only.
/// Objects of the other batches are not held by it: once nothing else references them either
/// (and they have no unsaved change), the context releases them at its next sweep, so walking
/// a million matches once holds about two batches of objects, not a million. Touching a
/// released batch again fetches it again (equal values, new instances); an object still
/// referenced elsewhere is found in the context and stays the same instance.
///
/// Use it on the context's queue, as the objects. Copies share their window of batches.
///
/// ```swift
/// var request = FetchRequest<Book>(entityName: "Book", sortDescriptors: [SortDescriptor("title")])
/// request.fetchBatchSize = 500
/// try context.performAndWait {
///     let books = try context.fetchBatched(request)
///     for book in books { print(book.title ?? "") }   // batch 0 read, then 1, 2…
/// }
/// ```
public struct BatchedFetchResult<T: ManagedObject>: RandomAccessCollection {
    /// The IDs of the matches, in the request's order.
    public let objectIDs: [ManagedObjectID]
    /// The number of objects loaded together (the request's ``FetchRequest/fetchBatchSize``, or
    /// every match when that is 0).
    public let batchSize: Int
    private let window: BatchWindow

    init(context: ManagedObjectContext, ids: [ManagedObjectID], batchSize: Int, prefetching: [String]) {
        objectIDs = ids
        self.batchSize = Swift.max(1, batchSize)
        window = BatchWindow(context: context, prefetching: prefetching)
    }

    /// The first position (0).
    public var startIndex: Int { 0 }
    /// One past the last position (the number of matches).
    public var endIndex: Int { objectIDs.count }

    /// The object at a position: its batch is made and filled in one trip to the store (or
    /// parent) if it is not one of the two batches touched last.
    public subscript(position: Int) -> T {
        let b = position / batchSize
        let objects = window.batch(b, of: objectIDs, size: batchSize)
        // Every object was checked to be a `T` when the result was made (its entity's class).
        return unsafeDowncast(objects[position - b * batchSize], to: T.self)
    }
}

@available(*, unavailable)
extension BatchedFetchResult: Sendable {}
