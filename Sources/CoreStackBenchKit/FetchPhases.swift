import CoreStack
import Foundation

/// Where CoreStack's time goes in workload 2, for profiling (`corestack-bench --only phases`):
/// the store's read of the rows alone, the context's whole fetch (which reads the rows again),
/// and the property reads over the fetched objects.
public struct FetchPhases: Sendable {
    /// Median milliseconds of `SQLiteStore.fetch` alone.
    public var storeFetch: Double
    /// Median milliseconds of `ManagedObjectContext.fetch` (store read included).
    public var contextFetch: Double
    /// Median milliseconds of reading every attribute of every object through its wrappers.
    public var propertyReads: Double

    /// Inserts `count` items into a fresh store in `directory`, then times each phase `runs` times
    /// in fresh sessions.
    public static func measure(count: Int, runs: Int, directory: URL) throws -> FetchPhases {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("phases.sqlite")
        let contender = try CoreStackContender()
        try contender.createStore(at: url)
        try contender.open(url).insert(ItemData.make(count: count))
        var store: [Double] = [], context: [Double] = [], reads: [Double] = []
        for _ in 0..<max(1, runs) {
            guard let session = try contender.open(url) as? CoreStackSession else { throw BenchError.usage("not a CoreStack session") }
            guard let entity = contender.model.entity(named: "Item") else { throw BenchError.usage("no Item entity") }
            let (s, rows) = try timed { try session.store.fetch(StoreFetchRequest(entity: entity)) }
            guard rows.count == count else { throw BenchError.usage("store read \(rows.count) rows of \(count)") }
            try session.context.performAndWait {
                var request = FetchRequest<BenchItem>(entityName: "Item")
                request.returnsObjectsAsFaults = false
                let (c, objects) = try timed { try session.context.fetch(request) }
                let (r, _) = timed { objects.reduce(Int64(0)) { $0 &+ $1.fold } }
                context.append(c)
                reads.append(r)
            }
            store.append(s)
        }
        return FetchPhases(
            storeFetch: BenchFormat.median(store) * 1000, contextFetch: BenchFormat.median(context) * 1000,
            propertyReads: BenchFormat.median(reads) * 1000)
    }
}
