import CoreStack
import Foundation

/// Where CoreStack's time goes in workload 2, for profiling (`corestack-bench --only phases`):
/// the store's read of the rows alone, the context's whole fetch (which reads the rows again),
/// the property reads over the fetched objects, then releasing the objects and closing the
/// session (its context, coordinator and row cache), which workload 2's timing does not include.
public struct FetchPhases: Sendable {
    /// Median milliseconds of `SQLiteStore.fetch` alone.
    public var storeFetch: Double
    /// Median milliseconds of `ManagedObjectContext.fetch` (store read included).
    public var contextFetch: Double
    /// Median milliseconds of reading every attribute of every object through its wrappers.
    public var propertyReads: Double
    /// Median milliseconds of releasing the fetched objects.
    public var objectRelease: Double
    /// Median milliseconds of releasing the session: context, coordinator, row cache, store.
    public var sessionClose: Double

    /// Inserts `count` items into a fresh store in `directory`, then times each phase `runs` times
    /// in fresh sessions.
    public static func measure(count: Int, runs: Int, directory: URL) throws -> FetchPhases {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("phases.sqlite")
        let contender = try CoreStackContender()
        try contender.createStore(at: url)
        try contender.open(url).insert(ItemData.make(count: count))
        var store: [Double] = [], context: [Double] = [], reads: [Double] = [], release: [Double] = [], close: [Double] = []
        guard let entity = contender.model.entity(named: "Item") else { throw BenchError.usage("no Item entity") }
        for _ in 0..<max(1, runs) {
            var session: CoreStackSession? = try contender.open(url) as? CoreStackSession
            try session.map { s in
                let (t, read) = try timed { try s.store.fetch(StoreFetchRequest(entity: entity)).count }
                guard read == count else { throw BenchError.usage("store read \(read) rows of \(count)") }
                store.append(t)
                try s.context.performAndWait {
                    var request = FetchRequest<BenchItem>(entityName: "Item")
                    request.returnsObjectsAsFaults = false
                    var (c, objects) = try timed { try s.context.fetch(request) }
                    let (r, _) = timed { objects.reduce(Int64(0)) { $0 &+ $1.fold } }
                    let (d, _) = timed { objects = [] }
                    context.append(c)
                    reads.append(r)
                    release.append(d)
                }
            }
            guard session != nil else { throw BenchError.usage("not a CoreStack session") }
            let (e, _) = timed { session = nil }
            close.append(e)
        }
        return FetchPhases(
            storeFetch: BenchFormat.median(store) * 1000, contextFetch: BenchFormat.median(context) * 1000,
            propertyReads: BenchFormat.median(reads) * 1000, objectRelease: BenchFormat.median(release) * 1000,
            sessionClose: BenchFormat.median(close) * 1000)
    }
}
