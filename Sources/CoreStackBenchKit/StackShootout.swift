import CoreStack
import Foundation

/// Remembers the main thread, so its CPU time can be read from other threads.
public enum MainThreadClock {
    nonisolated(unsafe) private static var thread: pthread_t?
    private static let lock = NSLock()

    /// Call once from the main thread.
    public static func register() {
        lock.lock()
        thread = pthread_self()
        lock.unlock()
    }

    /// The main thread's CPU time in seconds (nil when not registered).
    static func cpuSeconds() -> Double? {
        lock.lock()
        let t = thread
        lock.unlock()
        guard let t else { return nil }
        var clock = clockid_t()
        guard pthread_getcpuclockid(t, &clock) == 0 else { return nil }
        var ts = timespec()
        guard clock_gettime(clock, &ts) == 0 else { return nil }
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// Pings the main queue every millisecond and records the longest wait for a ping to run.
final class MainQueueProbe: @unchecked Sendable {
    private let lock = NSLock()
    private var longest: Double = 0
    private var timer: DispatchSourceTimer?

    func start() {
        let t = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "bench.probe"))
        t.schedule(deadline: .now(), repeating: .milliseconds(1))
        t.setEventHandler { [self] in
            let sent = DispatchTime.now().uptimeNanoseconds
            DispatchQueue.main.async { [self] in
                let lag = Double(DispatchTime.now().uptimeNanoseconds - sent) / 1e9
                lock.lock()
                longest = max(longest, lag)
                lock.unlock()
            }
        }
        timer = t
        t.resume()
    }

    /// Stops and returns the longest stall, after letting the last ping through.
    func stop() -> Double {
        timer?.cancel()
        timer = nil
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.main.async { done.signal() }
        done.wait()
        lock.lock()
        defer { lock.unlock() }
        return longest
    }
}

/// Workload 8: importing through the three stack shapes.
struct StackShootout {
    let runner: BenchRunner
    var config: BenchConfig { runner.config }

    enum Shape: CaseIterable {
        case nested, sibling, batch

        var title: String {
            switch self {
            case .nested: "CoreStack (a) worker child of main, saved up the chain"
            case .sibling: "CoreStack (b) sibling context, merged into main by did-save"
            case .batch: "CoreStack (c) batch context on its own coordinator, merged into main"
            }
        }
    }

    struct Figures {
        var seconds: Double
        var mainBusy: Double?
        var longestStall: Double?
    }

    func run() throws -> WorkloadResult {
        let items = ItemData.make(count: config.imports)
        let model = try BenchModel.make()
        var result = try runner.measure("8", "Stack shoot-out: import \(config.imports) items", rows: config.imports) { i, c, run in
            // The plain baseline for the import itself: each contender inserting into a fresh file.
            let u = runner.url("w8-\(i)-\(run).sqlite")
            BenchRunner.remove(u)
            defer { BenchRunner.remove(u) }
            try c.createStore(at: u)
            let s = try c.open(u)
            let (t, _) = try timed { try s.insert(items) }
            return (t, nil)
        }
        let raw = result.entries.first { $0.contender == ContenderName.raw }?.medianSeconds
        for shape in Shape.allCases {
            var figures: [Figures] = []
            for run in 0..<config.runs {
                let u = runner.url("w8-\(shape)-\(run).sqlite")
                BenchRunner.remove(u)
                defer { BenchRunner.remove(u) }
                _ = try SQLiteStore(url: u, model: model)
                figures.append(try importOnce(shape, items: items, url: u, model: model))
            }
            let median = BenchFormat.median(figures.map(\.seconds))
            result.entries.append(
                BenchEntry(
                    contender: shape.title, runs: figures.map(\.seconds), medianSeconds: median,
                    rowsPerSecond: median > 0 ? Double(config.imports) / median : 0,
                    ratioToRaw: raw.flatMap { $0 > 0 ? median / $0 : nil },
                    mainQueueBusySeconds: figures.compactMap(\.mainBusy).isEmpty ? nil : BenchFormat.median(figures.compactMap(\.mainBusy)),
                    longestMainQueueStallSeconds: figures.compactMap(\.longestStall).max()))
        }
        result.notes.append(
            runner.shootoutUsesMainQueue
                ? "Import time runs from the first insert until the data is on disk and the main context has it (merged or saved). Main queue busy: the main thread's CPU time during the import (the main thread only services the main queue, via dispatchMain()), median. Longest main stall: the longest wait of a 1 ms heartbeat block on the main queue, worst run."
                : "The main context is a private-queue context here (the main queue is not serviced), so no main-queue figures.")
        return result
    }

    private func importOnce(_ shape: Shape, items: [ItemData], url: URL, model: ManagedObjectModel) throws -> Figures {
        let mainType: ManagedObjectContext.ConcurrencyType = runner.shootoutUsesMainQueue ? .mainQueue : .privateQueue
        let probe = MainQueueProbe()
        let measureMain = runner.shootoutUsesMainQueue
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(SQLiteStore(url: url, model: model))
        var seconds = 0.0
        var cpuBefore: Double?
        if measureMain {
            probe.start()
            cpuBefore = MainThreadClock.cpuSeconds()
        }
        switch shape {
        case .nested:
            let root = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: "persisting")
            let main = ManagedObjectContext(concurrencyType: mainType, parent: root, name: "main")
            let worker = ManagedObjectContext(concurrencyType: .privateQueue, parent: main, name: "worker")
            (seconds, _) = try timed {
                try worker.performAndWait {
                    try CoreStackSession.insert(items, into: worker)
                    try worker.save()
                }
                try main.performAndWait { try main.save() }
                try root.performAndWait { try root.save() }
            }
        case .sibling, .batch:
            let main = ManagedObjectContext(concurrencyType: mainType, coordinator: coordinator, name: "main")
            let importer: ManagedObjectContext
            if shape == .sibling {
                importer = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: "importer")
            } else {
                let own = PersistentStoreCoordinator(managedObjectModel: model)
                try own.addPersistentStore(SQLiteStore(url: url, model: model))
                importer = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: own, name: "batch")
            }
            let merged = DispatchSemaphore(value: 0)
            let token = importer.addDidSaveObserver { saved in
                let ids = saved.objectIDs
                main.perform {
                    main.mergeChanges(from: ids)
                    merged.signal()
                }
            }
            (seconds, _) = try timed {
                try importer.performAndWait {
                    try CoreStackSession.insert(items, into: importer)
                    try importer.save()
                }
                merged.wait()
            }
            importer.removeObserver(token)
        }
        guard measureMain else { return Figures(seconds: seconds) }
        let stall = probe.stop()
        var busy: Double?
        if let before = cpuBefore, let after = MainThreadClock.cpuSeconds() { busy = after - before }
        return Figures(seconds: seconds, mainBusy: busy, longestStall: stall)
    }
}
