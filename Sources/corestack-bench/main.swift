import ArgumentParser
import CoreStackBenchKit
import Foundation

/// `swift run -c release corestack-bench [--n 100000] [--runs 5] [--sizes 10000,100000] [--quick] [--json out.json]`
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "corestack-bench",
        abstract: "CoreStack against raw SQLite and GRDB, same machine, same run.")

    @Option(help: "Items of workloads 1-3 and 6; the other sizes scale with it (updates, lookups and books n/10, imports n/5).")
    var n: Int = 100_000

    @Option(help: "Comma-separated item counts (e.g. 10000,100000,1000000): the workloads at each size, reported side by side with time per object and the peak memory each run added.")
    var sizes: String?

    @Option(help: "Runs per figure; the median is reported.")
    var runs: Int = 5

    @Option(help: "Comma-separated workloads to run (1-8).")
    var workloads: String?

    @Flag(help: "A tiny run that only proves every path works.")
    var quick = false

    @Option(help: "Also write the results as JSON to this file.")
    var json: String?

    @Option(help: "CoreStack's row-cache limit: a row count, or none for no bound (default 100000).")
    var rowCacheLimit: String?

    @Option(help: "Comma-separated contenders to run (raw, grdb-statement, grdb-record, corestack; default all), e.g. corestack alone under perf.")
    var contenders: String?

    @Option(help: .hidden) var only: String?
    @Option(help: .hidden) var contender: String?
    @Option(help: .hidden) var db: String?
    @Option(help: .hidden) var batchSize: Int = 500

    mutating func validate() throws {
        guard n >= 100 else { throw ValidationError("--n must be at least 100") }
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
        if let contenders {
            let names = contenders.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard !names.isEmpty, names.allSatisfy(ContenderName.shortNames.contains) else {
                throw ValidationError("--contenders takes \(ContenderName.shortNames.joined(separator: ", ")), e.g. raw,corestack")
            }
        }
        if let rowCacheLimit, rowCacheLimit != "none", Int(rowCacheLimit) == nil {
            throw ValidationError("--row-cache-limit takes a row count or none")
        }
        if sizes != nil, sizeList.isEmpty || sizeList.contains(where: { $0 < 100 }) {
            throw ValidationError("--sizes takes item counts of at least 100, e.g. 10000,100000,1000000")
        }
    }

    /// The sizes of `--sizes` (empty when a part is not a number).
    var sizeList: [Int] {
        let parts = (sizes ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: "") }
        let list = parts.compactMap { Int($0) }
        return list.count == parts.count ? list : []
    }

    func run() throws {
        if let rowCacheLimit { setenv(rowCacheLimitVariable, rowCacheLimit, 1) }
        if let contenders { setenv(contendersVariable, contenders, 1) }
        if let only {
            try runChild(only)
            return
        }
        var config = quick ? BenchConfig.quick : BenchConfig.scaled(n: n, runs: runs)
        if let workloads {
            let list = workloads.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard !list.isEmpty, list.allSatisfy({ (1...8).contains($0) }) else {
                throw ValidationError("--workloads takes numbers 1-8, e.g. 1,2,4")
            }
            config.workloads = list
        }
        let jsonPath = json
        let settings = config
        let sizes = sizeList
        guard settings.workloads.contains(8) else {
            // Nothing needs the main queue: run here (also what valgrind copes with).
            try Bench.runAll(settings, sizes: sizes, jsonPath: jsonPath)
            return
        }
        // The work runs on its own thread while the main thread services the main queue, which
        // workload 8's main-queue context needs.
        let worker = Thread {
            let code: Int32
            do {
                try Bench.runAll(settings, sizes: sizes, jsonPath: jsonPath)
                code = 0
            } catch {
                FileHandle.standardError.write(Data("corestack-bench: \(error)\n".utf8))
                code = 1
            }
            Foundation.exit(code)
        }
        worker.stackSize = 8 << 20
        worker.start()
        dispatchMain()
    }

    /// One run of the configured workloads; with `sizes`, one per size (the other sizes scaled
    /// from each), each run's peak memory tracked, and the tables side by side.
    static func runAll(_ config: BenchConfig, sizes: [Int], jsonPath: String?) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("corestack-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        func runner(_ config: BenchConfig) throws -> BenchRunner {
            let runner = try BenchRunner(config: config, directory: dir)
            runner.log = { FileHandle.standardError.write(Data("· \($0)\n".utf8)) }
            runner.shootoutUsesMainQueue = true
            runner.workload3Child = childProcess
            return runner
        }
        guard !sizes.isEmpty else {
            let report = try runner(config).run()
            print(BenchFormat.report(report))
            if let jsonPath {
                try BenchFormat.json(report).write(to: URL(fileURLWithPath: jsonPath))
            }
            return
        }
        var reports: [BenchReport] = []
        for n in sizes {
            var sized = BenchConfig.scaled(n: n, runs: config.runs)
            sized.workloads = config.workloads
            FileHandle.standardError.write(Data("· N = \(n)\n".utf8))
            let r = try runner(sized)
            r.tracksPeakMemory = true
            reports.append(try r.run())
        }
        print(BenchFormat.sizes(reports))
        if let jsonPath {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            try encoder.encode(reports).write(to: URL(fileURLWithPath: jsonPath))
        }
    }

    /// Runs workload 3 of one contender in a fresh process of this binary.
    static func childProcess(contender: String, db: URL, batchSize: Int) throws -> ChildReport {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        p.arguments = ["--only", "w3", "--contender", contender, "--db", db.path, "--batch-size", String(batchSize)]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw BenchError.child("exit status \(p.terminationStatus) for \(contender)") }
        return try JSONDecoder().decode(ChildReport.self, from: data)
    }

    func runChild(_ mode: String) throws {
        if mode == "remote" {
            // Remote-change latency and contention (BENCHMARKS.md, "Remote changes"): --n saves.
            let probe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
                .appendingPathComponent("corestack-history-probe")
            guard FileManager.default.isExecutableFile(atPath: probe.path) else {
                throw ValidationError("build corestack-history-probe next to corestack-bench first: swift build -c release --product corestack-history-probe")
            }
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("corestack-bench-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: dir) }
            let lines = try RemoteChangeBench.run(saves: n, pauseMs: 20, probe: probe, directory: dir) {
                FileHandle.standardError.write(Data("· \($0)\n".utf8))
            }
            print(lines.joined(separator: "\n"))
            return
        }
        if mode == "phases" {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("corestack-bench-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: dir) }
            let p = try FetchPhases.measure(count: n, runs: runs, directory: dir)
            print(String(format: "workload 2 phases, N = %d, median of %d: store fetch %.1f ms, context fetch %.1f ms (store read included), property reads %.1f ms, objects released %.1f ms, session closed %.1f ms",
                         n, runs, p.storeFetch, p.contextFetch, p.propertyReads, p.objectRelease, p.sessionClose))
            return
        }
        if mode == "frcinsert" {
            // A controller taking in objects inserted into its context (BENCHMARKS.md, "Controllers").
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("corestack-bench-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: dir) }
            print("| items | inserted | controller | ms to take them in | µs per object |")
            print("|---:|---:|---|---:|---:|")
            for row in try ControllerInsertCost.measure(count: n, inserts: [1, 100, 1_000, 10_000], runs: runs, directory: dir) {
                print(String(format: "| %d | %d | %@ | %.2f | %.1f |", row.items, row.inserted, row.batched ? "batched (50)" : "objects",
                             row.milliseconds, row.milliseconds * 1000 / Double(row.inserted)))
            }
            return
        }
        if mode == "queuecheck" {
            // The always-on queue check of a context's entry points (BENCHMARKS.md, "Queue confinement").
            let c = try QueueCheckCost.measure(calls: max(n, 100_000) * 10, runs: runs)
            print("| call | ns per call |")
            print("|---|---:|")
            print(String(format: "| `isOnQueue`, private-queue context on its queue | %.2f |", c.privateCheckNanos))
            print(String(format: "| `isOnQueue`, main-queue context on the main thread | %.2f |", c.mainCheckNanos))
            print(String(format: "| `object(with:)` of a registered object (checked entry point) | %.2f |", c.objectWithNanos))
            print(String(format: "| `registeredObject(for:)` of the same objects (no check) | %.2f |", c.registeredObjectNanos))
            return
        }
        if mode == "links" {
            print("| members | ns per link, to-one into an ordered inverse | ns per link, add to an unordered to-many |")
            print("|---:|---:|---:|")
            // Issue 34: the time per link flat from 1,000 to 1,000,000 members (`--sizes` for others).
            let members = sizeList.isEmpty ? [1_000, 10_000, 100_000, 1_000_000] : sizeList
            for row in try LinkScaling.measure(sizes: members, runs: runs) {
                print(String(format: "| %d | %.0f | %.0f |", row.members, row.orderedNanosPerLink, row.unorderedNanosPerLink))
            }
            return
        }
        guard mode == "w3", let contender, let db else {
            throw ValidationError("--only w3 needs --contender and --db")
        }
        let report = try BenchRunner.childWorkload3(contender: contender, db: URL(fileURLWithPath: db), batchSize: batchSize)
        FileHandle.standardOutput.write(try JSONEncoder().encode(report))
    }
}

Bench.main()
