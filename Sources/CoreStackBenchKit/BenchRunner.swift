import Foundation

/// Wall-clock seconds of a block.
@inline(never)
func timed<T>(_ body: () throws -> T) rethrows -> (Double, T) {
    let start = DispatchTime.now().uptimeNanoseconds
    let value = try body()
    return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, value)
}

/// The peak resident set size of this process so far (`VmHWM` in /proc/self/status), in KiB.
public func peakMemoryKiB() -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }
    return nil
}

/// A small deterministic random number generator (SplitMix64), so every contender gets the same keys.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// `count` distinct codes out of 1…`of`, in random order.
func randomCodes(_ count: Int, of total: Int, seed: UInt64) -> [Int64] {
    var rng = SplitMix64(seed: seed)
    var all = Array(1...Int64(max(1, total)))
    all.shuffle(using: &rng)
    return Array(all.prefix(min(count, all.count)))
}

/// What the workload-3 child process reports.
public struct ChildReport: Codable, Sendable {
    public var seconds: Double
    public var checksum: Int64
    public var peakMemoryKiB: Int?
    /// The child's resident set just before it opened the store, in KiB.
    public var baselineKiB: Int?
}

/// Runs the workloads and collects the tables.
public final class BenchRunner {
    public let config: BenchConfig
    public let directory: URL
    /// Progress lines.
    public var log: (String) -> Void = { _ in }
    /// Runs workload 3 of one contender in a fresh process (for its peak memory). When nil,
    /// workload 3 runs in this process and no peak memory is reported.
    public var workload3Child: ((_ contender: String, _ db: URL, _ batchSize: Int) throws -> ChildReport)?
    /// Whether workload 8's main context is a main-queue context (needs the main queue serviced,
    /// e.g. by `dispatchMain()`); when false it is a private-queue context and no main-queue
    /// figures are reported.
    public var shootoutUsesMainQueue = false
    /// Whether every run also records how far the resident set rose above where it stood when the
    /// run began (``BenchEntry/peakGrowthKiB``, see ``PeakMemory``; workload 3 takes it from its
    /// child process). Off by default: the reset and the trim cost a little before each run.
    public var tracksPeakMemory = false

    let contenders: [any Contender]

    public init(config: BenchConfig, directory: URL) throws {
        self.config = config
        self.directory = directory
        contenders = try allContenders()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    static func remove(_ url: URL) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
    }

    /// Runs every configured workload.
    public func run() throws -> BenchReport {
        var results: [WorkloadResult] = []
        let items = ItemData.make(count: config.items)
        let want = Set(config.workloads)
        let needsItems = !want.isDisjoint(with: [2, 3, 4, 5, 6])
        if want.contains(1) { results.append(try workload1(items)) }
        var prepared: [URL] = []
        if needsItems {
            log("preparing item stores")
            for (i, c) in contenders.enumerated() {
                let u = url("items-\(i).sqlite")
                Self.remove(u)
                try c.createStore(at: u)
                try c.open(u).insert(items)
                prepared.append(u)
            }
        }
        if want.contains(2) {
            results.append(try measure("2", "Fetch all \(config.items) items as objects, read every attribute", rows: config.items) { i, c, _ in
                let s = try c.open(prepared[i])
                return try timed { try s.fetchAll() }
            })
        }
        if want.contains(3) { results.append(try workload3(prepared)) }
        if want.contains(4) {
            results.append(try measure("4", "Update \(config.updates) random items (load, change two attributes, save)", rows: config.updates) { i, c, run in
                let s = try c.open(prepared[i])
                try s.prepare(codes: randomCodes(self.config.updates, of: self.config.items, seed: UInt64(100 + run)))
                return try timed { try s.update() }
            })
        }
        if want.contains(5) {
            results.append(try measure("5", "Look up \(config.lookups) random items by ID in a fresh context (fault fire)", rows: config.lookups) { i, c, run in
                let s = try c.open(prepared[i])
                try s.prepare(codes: randomCodes(self.config.lookups, of: self.config.items, seed: UInt64(200 + run)))
                return try timed { try s.lookup() }
            })
        }
        if want.contains(6) {
            let rows = config.items / 100
            results.append(try measure("6", "Fetch quantity < 10 sorted by name (\(rows) of \(config.items)), read every attribute", rows: rows) { i, c, _ in
                let s = try c.open(prepared[i])
                return try timed { try s.predicateFetch(threshold: 10) }
            })
            results.append(try workload6SwiftPredicate(prepared))
        }
        for u in prepared { Self.remove(u) }
        if want.contains(7) { results += try workload7() }
        if want.contains(8) { results.append(try StackShootout(runner: self).run()) }
        return BenchReport(date: Date(), machine: .current(), config: config, results: results)
    }

    private func workload1(_ items: [ItemData]) throws -> WorkloadResult {
        try measure("1", "Insert \(config.items) items (six attributes) and save", rows: config.items) { i, c, run in
            let u = self.url("w1-\(i)-\(run).sqlite")
            Self.remove(u)
            defer { Self.remove(u) }
            try c.createStore(at: u)
            let s = try c.open(u)
            let (t, _) = try timed { try s.insert(items) }
            return (t, nil)
        }
    }

    private func workload3(_ prepared: [URL]) throws -> WorkloadResult {
        var peaks: [String: Int] = [:]
        var growth: [String: Int] = [:]
        var result = try measure(
            "3", "Fetch all \(config.items) items in batches of \(config.batchSize), read every attribute", rows: config.items
        ) { i, c, _ in
            if let child = self.workload3Child {
                let r = try child(c.name, prepared[i], self.config.batchSize)
                if let p = r.peakMemoryKiB { peaks[c.name] = max(peaks[c.name] ?? 0, p) }
                if let p = r.peakMemoryKiB, let b = r.baselineKiB { growth[c.name] = max(growth[c.name] ?? 0, p - b) }
                return (r.seconds, r.checksum)
            }
            let s = try c.open(prepared[i])
            return try timed { try s.fetchBatched(batchSize: self.config.batchSize) }
        }
        for j in result.entries.indices {
            result.entries[j].peakMemoryKiB = peaks[result.entries[j].contender]
            if tracksPeakMemory { result.entries[j].peakGrowthKiB = growth[result.entries[j].contender] }
        }
        result.notes.append(
            workload3Child == nil
                ? "Run in this process: no peak memory (VmHWM cannot be reset between workloads)."
                : "Each run in a fresh child process of the same binary; peak memory is that process's VmHWM (the largest over the runs), which includes the runtime (~10–20 MiB).")
        return result
    }

    private func workload7() throws -> [WorkloadResult] {
        let graph = GraphData(books: config.books)
        var last: [Int: URL] = [:]
        let objects = graph.bookCount * (1 + GraphData.chaptersPerBook) + graph.authorCount
        let insert = try measure(
            "7a", "Insert \(graph.bookCount) books, each with 3 of \(graph.authorCount) authors and 10 ordered chapters, and save",
            rows: graph.bookCount
        ) { i, c, run in
            let u = self.url("w7-\(i)-\(run).sqlite")
            Self.remove(u)
            try c.createStore(at: u)
            let s = try c.open(u)
            let (t, _) = try timed { try s.insertGraph(graph) }
            if let old = last[i] { Self.remove(old) }
            last[i] = u
            return (t, nil)
        }
        var insertResult = insert
        insertResult.notes.append("\(objects) objects and \(graph.bookCount * GraphData.authorsPerBook) many-to-many links per run; rows/s counts books.")
        let fetch = try measure("7b", "Fetch the \(graph.bookCount) books with their authors prefetched, read titles and author names", rows: graph.bookCount) { i, c, _ in
            guard let u = last[i] else { throw BenchError.usage("workload 7a did not run") }
            let s = try c.open(u)
            return try timed { try s.fetchGraph() }
        }
        for u in last.values { Self.remove(u) }
        return [insertResult, fetch]
    }

    /// Runs `body` for each run and contender (interleaved, so drift hits everyone alike) and
    /// builds the table.
    func measure(
        _ id: String, _ title: String, rows: Int,
        _ body: (_ index: Int, _ contender: any Contender, _ run: Int) throws -> (Double, Int64?)
    ) throws -> WorkloadResult {
        log("workload \(id): \(title)")
        var times = Array(repeating: [Double](), count: contenders.count)
        var sums = Array(repeating: Int64?.none, count: contenders.count)
        var notes: [String] = []
        var growth = Array(repeating: Int?.none, count: contenders.count)
        for run in 0..<config.runs {
            var runSums: [Int64?] = []
            for (i, c) in contenders.enumerated() {
                let mark = tracksPeakMemory ? PeakMemory.start() : nil
                let (t, sum) = try body(i, c, run)
                if let g = mark?.growthKiB() { growth[i] = max(growth[i] ?? 0, g) }
                times[i].append(t)
                runSums.append(sum)
                sums[i] = sum
            }
            let distinct = Set(runSums.compactMap { $0 })
            if distinct.count > 1 {
                let detail = zip(contenders, runSums).map { "\($0.name)=\($1.map(String.init) ?? "-")" }.joined(separator: ", ")
                notes.append("CHECKSUM MISMATCH in run \(run + 1): \(detail)")
            }
        }
        let medians = times.map(BenchFormat.median)
        let raw = contenders.firstIndex { $0.name == ContenderName.raw }.map { medians[$0] }
        let entries = contenders.indices.map { i in
            BenchEntry(
                contender: contenders[i].name, runs: times[i], medianSeconds: medians[i],
                rowsPerSecond: medians[i] > 0 ? Double(rows) / medians[i] : 0,
                ratioToRaw: raw.flatMap { $0 > 0 ? medians[i] / $0 : nil }, checksum: sums[i],
                peakGrowthKiB: growth[i])
        }
        return WorkloadResult(id: id, title: title, rows: rows, entries: entries, notes: notes)
    }

    /// The body of the workload-3 child process: one batched fetch, its time and this process's peak memory.
    public static func childWorkload3(contender name: String, db: URL, batchSize: Int) throws -> ChildReport {
        guard let c = try allContenders().first(where: { $0.name == name }) else {
            throw BenchError.usage("unknown contender \(name)")
        }
        let baseline = PeakMemory.statusKiB("VmRSS:")
        let s = try c.open(db)
        let (t, sum) = try timed { try s.fetchBatched(batchSize: batchSize) }
        return ChildReport(seconds: t, checksum: sum, peakMemoryKiB: peakMemoryKiB(), baselineKiB: baseline)
    }
}
