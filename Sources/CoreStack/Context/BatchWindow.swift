import Foundation

/// The two batches of a ``BatchedFetchResult`` touched last, shared by its copies.
///
/// ```swift
/// let window = BatchWindow(context: context, prefetching: [])
/// let first = window.batch(0, of: ids, size: 500)   // loaded: ids[0..<500], filled
/// window.batch(0, of: ids, size: 500)               // held: no trip to the store
/// ```
final class BatchWindow {
    let context: ManagedObjectContext
    let prefetching: [String]
    private var recentIndex = -1
    private var recent: [ManagedObject] = []
    private var olderIndex = -1
    private var older: [ManagedObject] = []

    init(context: ManagedObjectContext, prefetching: [String]) {
        self.context = context
        self.prefetching = prefetching
    }

    /// The objects of batch `b`, loaded if it is not one of the two held.
    @inline(__always)
    func batch(_ b: Int, of ids: [ManagedObjectID], size: Int) -> [ManagedObject] {
        if b == recentIndex { return recent }
        if b == olderIndex {
            swap(&recent, &older)
            swap(&recentIndex, &olderIndex)
            return recent
        }
        let start = b * size
        let loaded = context.loadBatch(ids[start..<min(ids.count, start + size)], prefetching: prefetching)
        older = recent
        olderIndex = recentIndex
        recent = loaded
        recentIndex = b
        // The batch that fell out of the window may now be referenced by the context alone.
        context.sweepUnreferencedObjectsIfGrown()
        return recent
    }
}
