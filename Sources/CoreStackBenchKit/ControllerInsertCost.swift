import CoreStack
import Foundation

/// What a ``FetchedResultsController`` pays to take in objects inserted into its context
/// (`corestack-bench --only frcinsert`): a controller over `count` items sorted by name (one
/// section, or a batched controller), then `inserted` new items with names spread over the whole
/// order, and the time of `processPendingChanges()`, which hands them to the controller.
public struct ControllerInsertCost: Sendable {
    /// One measurement.
    public struct Row: Sendable {
        public var items: Int
        public var inserted: Int
        public var batched: Bool
        /// Median milliseconds of handing the insertions to the controller.
        public var milliseconds: Double
    }

    /// Measures each `(inserted, batched)` pair over a store of `count` items, `runs` times.
    public static func measure(count: Int, inserts: [Int], runs: Int, directory: URL) throws -> [Row] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("frcinsert.sqlite")
        let contender = try CoreStackContender()
        try contender.createStore(at: url)
        try contender.open(url).insert(ItemData.make(count: count))
        var rows: [Row] = []
        for batched in [false, true] {
            for k in inserts {
                var times: [Double] = []
                for run in 0..<max(1, runs) {
                    guard let session = try contender.open(url) as? CoreStackSession else { throw BenchError.usage("not a CoreStack session") }
                    let context = session.context
                    let t: Double = try context.performAndWait {
                        var request = FetchRequest<BenchItem>(entityName: "Item", sortDescriptors: [SortDescriptor("name")])
                        if batched { request.fetchBatchSize = 50 }
                        let controller = FetchedResultsController(fetchRequest: request, context: context)
                        try controller.performFetch()
                        // Names right after existing ones, spread over the whole order.
                        let fresh = (0..<k).map { i in
                            var d = ItemData(code: Int64(count + 1 + i))
                            d.name = "Item \((i &* 7919 &+ run) % max(1, count) + 1) bis"
                            return d
                        }
                        try CoreStackSession.insert(fresh, into: context)
                        let (t, _) = timed { context.processPendingChanges() }
                        guard controller.fetchedObjects.count == count + k else {
                            throw BenchError.usage("the controller has \(controller.fetchedObjects.count) objects, not \(count + k)")
                        }
                        context.rollback()
                        return t
                    }
                    times.append(t)
                }
                rows.append(Row(items: count, inserted: k, batched: batched, milliseconds: BenchFormat.median(times) * 1000))
            }
        }
        return rows
    }
}
