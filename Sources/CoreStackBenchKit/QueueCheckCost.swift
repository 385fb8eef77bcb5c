import CoreStack
import Dispatch
import Foundation

/// What the always-on queue check costs (`corestack-bench --only queuecheck`): every entry point
/// of a context (fetch, save, insert, delete, `object(with:)`, …) first asks
/// ``ManagedObjectContext/isOnQueue`` and traps when the caller is off the context's queue. Timed
/// in one run: the check alone on a private-queue context (inside `performAndWait`) and on a
/// main-queue context (inside `perform` on the main queue), next to `object(with:)` of registered
/// objects (a checked entry point, W5's per-object call once the object is registered) and
/// `registeredObject(for:)` (the same look-up without the check).
///
/// ```swift
/// let cost = try QueueCheckCost.measure(calls: 1_000_000, runs: 5)
/// print(cost.privateCheckNanos, cost.objectWithNanos)
/// ```
public struct QueueCheckCost: Sendable {
    /// Median nanoseconds per `isOnQueue` on a private-queue context, on its queue.
    public var privateCheckNanos: Double
    /// Median nanoseconds per `isOnQueue` on a main-queue context, on the main queue.
    public var mainCheckNanos: Double
    /// Median nanoseconds per `object(with:)` of a registered object (checked entry point).
    public var objectWithNanos: Double
    /// Median nanoseconds per `registeredObject(for:)` of the same objects (no check).
    public var registeredObjectNanos: Double

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionName: "QueueCheck") {
            EntityDescription("Item") { AttributeDescription("name", .string) }
        }
    }

    /// Times `calls` calls of each, `runs` times; the main-queue part runs on the main queue, so
    /// call it from a thread other than the main thread while the main queue is serviced (as
    /// `corestack-bench` does), or from the main thread itself.
    public static func measure(calls: Int, runs: Int) throws -> QueueCheckCost {
        let model = try model()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(InMemoryStore(model: model))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        let ids: [ManagedObjectID] = try context.performAndWait {
            try (0..<1_000).map { _ in try context.insertObject(forEntityName: "Item") }.map(\.objectID)
        }
        var privateCheck: [Double] = [], objectWith: [Double] = [], registered: [Double] = []
        for _ in 0..<max(1, runs) {
            try context.performAndWait {
                var hits = 0
                let (c, _) = timed { for _ in 0..<calls where context.isOnQueue { hits += 1 } }
                guard hits == calls else { throw BenchError.usage("queuecheck: isOnQueue was false on the queue") }
                privateCheck.append(c * 1e9 / Double(calls))
                let (o, _) = try timed {
                    for i in 0..<calls { _ = try context.object(with: ids[i % ids.count]) }
                }
                objectWith.append(o * 1e9 / Double(calls))
                let (r, _) = timed {
                    for i in 0..<calls where context.registeredObject(for: ids[i % ids.count]) == nil { hits += 1 }
                }
                registered.append(r * 1e9 / Double(calls))
            }
        }
        let main = ManagedObjectContext(concurrencyType: .mainQueue, coordinator: coordinator)
        var mainCheck: [Double] = []
        for _ in 0..<max(1, runs) {
            let nanos: Double = onMainQueue {
                var hits = 0
                let (c, _) = timed { for _ in 0..<calls where main.isOnQueue { hits += 1 } }
                return hits == calls ? c * 1e9 / Double(calls) : .nan
            }
            mainCheck.append(nanos)
        }
        return QueueCheckCost(
            privateCheckNanos: BenchFormat.median(privateCheck), mainCheckNanos: BenchFormat.median(mainCheck),
            objectWithNanos: BenchFormat.median(objectWith), registeredObjectNanos: BenchFormat.median(registered))
    }

    private static func onMainQueue<T>(_ body: () -> T) -> T {
        Thread.isMainThread ? body() : DispatchQueue.main.sync(execute: body)
    }
}
