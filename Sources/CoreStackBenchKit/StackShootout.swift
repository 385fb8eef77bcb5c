import CoreStack
import Foundation

/// Measures how long the main queue is blocked: a background timer sends a block to the main
/// queue every millisecond; each block's wait (sent → run) is an interval during which the main
/// queue could not run anything. The union of those intervals (counting waits over 0.25 ms, to
/// leave out ordinary wake-up latency) is the blocked time; the longest wait is the worst stall.
/// This does not depend on which thread runs a main-queue block (a `DispatchQueue.main.sync`
/// from another thread holds the main queue as surely as a block on the main thread).
final class MainQueueProbe: @unchecked Sendable {
    private let lock = NSLock()
    private var longest: Double = 0
    /// The waits over the threshold, as (sent, ran).
    private var waits: [(sent: UInt64, ran: UInt64)] = []
    private var blocked: Double = 0
    private var coveredUntil: UInt64 = 0
    private var timer: DispatchSourceTimer?
    static let threshold: UInt64 = 250_000

    func start() {
        let t = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "bench.probe"))
        t.schedule(deadline: .now(), repeating: .milliseconds(1), leeway: .microseconds(100))
        t.setEventHandler { [self] in
            let sent = DispatchTime.now().uptimeNanoseconds
            DispatchQueue.main.async { [self] in
                record(sent: sent, ran: DispatchTime.now().uptimeNanoseconds)
            }
        }
        timer = t
        t.resume()
    }

    private func record(sent: UInt64, ran: UInt64) {
        lock.lock()
        defer { lock.unlock() }
        let lag = ran > sent ? ran - sent : 0
        longest = max(longest, Double(lag) / 1e9)
        guard lag > Self.threshold else { return }
        waits.append((sent, ran))
        if sent >= coveredUntil {
            blocked += Double(lag) / 1e9
        } else if ran > coveredUntil {
            blocked += Double(ran - coveredUntil) / 1e9
        }
        coveredUntil = max(coveredUntil, ran)
    }

    /// The longest part of one wait that fell inside `window` (uptime nanoseconds), among the
    /// waits over the threshold: a wait that spans two steps of the work counts in each for the
    /// time it spent in it.
    func longestStall(within window: ClosedRange<UInt64>) -> Double {
        lock.lock()
        defer { lock.unlock() }
        var l: UInt64 = 0
        for w in waits {
            let from = max(w.sent, window.lowerBound), to = min(w.ran, window.upperBound)
            if to > from { l = max(l, to - from) }
        }
        return Double(l) / 1e9
    }

    /// Stops and returns (blocked time, longest stall), after letting the last ping through.
    func stop() -> (blocked: Double, longest: Double) {
        timer?.cancel()
        timer = nil
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.main.async { done.signal() }
        done.wait()
        lock.lock()
        defer { lock.unlock() }
        return (blocked, longest)
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
        /// The nested shape's longest stall in each save: worker → main, main → root, root → disk.
        var stepStalls: [Double] = []
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
            var growth: Int?
            for run in 0..<config.runs {
                let u = runner.url("w8-\(shape)-\(run).sqlite")
                BenchRunner.remove(u)
                defer { BenchRunner.remove(u) }
                _ = try SQLiteStore(url: u, model: model)
                let mark = runner.tracksPeakMemory ? PeakMemory.start() : nil
                figures.append(try importOnce(shape, items: items, url: u, model: model))
                if let g = mark?.growthKiB() { growth = max(growth ?? 0, g) }
            }
            let median = BenchFormat.median(figures.map(\.seconds))
            result.entries.append(
                BenchEntry(
                    contender: shape.title, runs: figures.map(\.seconds), medianSeconds: median,
                    rowsPerSecond: median > 0 ? Double(config.imports) / median : 0,
                    ratioToRaw: raw.flatMap { $0 > 0 ? median / $0 : nil }, peakGrowthKiB: growth,
                    mainQueueBusySeconds: figures.compactMap(\.mainBusy).isEmpty ? nil : BenchFormat.median(figures.compactMap(\.mainBusy)),
                    longestMainQueueStallSeconds: figures.compactMap(\.longestStall).max()))
            let steps = figures.map(\.stepStalls).filter { $0.count == 3 }
            if shape == .nested, !steps.isEmpty {
                let medians = (0..<3).map { i in BenchFormat.median(steps.map { $0[i] }) }
                let names = ["worker → main", "main → root", "root → disk"]
                let parts = zip(names, medians).map { "\($0) \(BenchFormat.time($1)) (\(BenchFormat.perThousand($1, rows: config.imports)) per 1,000 objects)" }
                result.notes.append(
                    "(a) longest main stall within each save of the chain (median of the runs): " + parts.joined(separator: ", ")
                        + ". The main queue is held by the first two; a stall in the third is the machine (the main thread waiting for a core).")
            }
        }
        result.notes.append(
            runner.shootoutUsesMainQueue
                ? "Import time runs from the first insert until the data is on disk and the main context has it (merged or saved). The main thread services the main queue with dispatchMain(). Main queue blocked: a heartbeat block is sent to the main queue every 1 ms and the union of the waits over 0.25 ms is counted (median of the runs); longest main stall: the longest wait of one heartbeat block (worst run)."
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
        if measureMain { probe.start() }
        switch shape {
        case .nested:
            let root = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: "persisting")
            let main = ManagedObjectContext(concurrencyType: mainType, parent: root, name: "main")
            let worker = ManagedObjectContext(concurrencyType: .privateQueue, parent: main, name: "worker")
            var marks: [UInt64] = []
            (seconds, _) = try timed {
                try worker.performAndWait {
                    try CoreStackSession.insert(items, into: worker)
                    marks.append(DispatchTime.now().uptimeNanoseconds)
                    try worker.save()
                }
                marks.append(DispatchTime.now().uptimeNanoseconds)
                try main.performAndWait { try main.save() }
                marks.append(DispatchTime.now().uptimeNanoseconds)
                try root.performAndWait { try root.save() }
                marks.append(DispatchTime.now().uptimeNanoseconds)
            }
            if measureMain {
                let (blocked, stall) = probe.stop()
                let steps = (0..<3).map { probe.longestStall(within: marks[$0]...marks[$0 + 1]) }
                return Figures(seconds: seconds, mainBusy: blocked, longestStall: stall, stepStalls: steps)
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
        let (blocked, stall) = probe.stop()
        return Figures(seconds: seconds, mainBusy: blocked, longestStall: stall)
    }
}
