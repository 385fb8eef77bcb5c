import Foundation

/// The sizes and repetitions of one benchmark run.
public struct BenchConfig: Sendable, Codable {
    /// Items of workloads 1, 2, 3 and 6.
    public var items: Int
    /// Items changed in workload 4.
    public var updates: Int
    /// Items looked up in workload 5.
    public var lookups: Int
    /// Books of workload 7.
    public var books: Int
    /// Objects imported in workload 8.
    public var imports: Int
    /// Runs per measurement (the median is reported).
    public var runs: Int
    /// Fetch batch size of workload 3.
    public var batchSize: Int
    /// The workloads to run (1…8).
    public var workloads: [Int]

    /// The defaults scaled to `n` items (100,000 by default).
    public static func scaled(n: Int = 100_000, runs: Int = 5) -> BenchConfig {
        let n = max(100, n)
        return BenchConfig(
            items: n, updates: n / 10, lookups: n / 10, books: n / 10, imports: n / 5, runs: max(1, runs),
            batchSize: 500, workloads: Array(1...8))
    }

    /// A tiny run that only proves every path works.
    public static let quick = BenchConfig(
        items: 2_000, updates: 200, lookups: 200, books: 100, imports: 400, runs: 1, batchSize: 50, workloads: Array(1...8))
}

/// One contender's figures on one workload.
public struct BenchEntry: Sendable, Codable {
    public var contender: String
    /// Every run's time in seconds.
    public var runs: [Double]
    public var medianSeconds: Double
    public var rowsPerSecond: Double
    /// Median time over raw SQLite's median time (nil when there is no raw figure).
    public var ratioToRaw: Double?
    /// What the contender read, folded (equal across contenders when they agree).
    public var checksum: Int64?
    /// Peak resident memory of the process that ran it (VmHWM), in KiB.
    public var peakMemoryKiB: Int?
    /// How far the resident set rose above where it stood when a run began (the largest over the
    /// runs), in KiB: measured only when ``BenchRunner/tracksPeakMemory`` is on.
    public var peakGrowthKiB: Int?
    /// Main-queue figures of workload 8, in seconds.
    public var mainQueueBusySeconds: Double?
    public var longestMainQueueStallSeconds: Double?
}

/// One workload's table.
public struct WorkloadResult: Sendable, Codable {
    public var id: String
    public var title: String
    /// The number of rows (objects) one run handles: the rows/s basis.
    public var rows: Int
    public var entries: [BenchEntry]
    /// Notes (checksum mismatches, how something was measured).
    public var notes: [String] = []
}

/// Everything a run produced, as written by `--json`.
public struct BenchReport: Sendable, Codable {
    public var date: Date
    public var machine: MachineInfo
    public var config: BenchConfig
    public var results: [WorkloadResult]
}

/// What the numbers ran on.
public struct MachineInfo: Sendable, Codable {
    public var cpuModel: String
    public var processors: Int
    public var memoryGiB: Double
    public var sqliteVersion: String
    public var kernel: String

    public static func current() -> MachineInfo {
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpu.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { String($0.split(separator: ":", maxSplits: 1).last ?? "").trimmingCharacters(in: .whitespaces) } ?? "unknown"
        let mem = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
        let kib = mem.split(separator: "\n").first { $0.hasPrefix("MemTotal:") }
            .flatMap { Double($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        let kernel = ((try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return MachineInfo(
            cpuModel: model, processors: ProcessInfo.processInfo.activeProcessorCount,
            memoryGiB: (kib / 1_048_576 * 10).rounded() / 10, sqliteVersion: CoreStackBenchKit.sqliteVersion, kernel: kernel)
    }
}

// MARK: - Formatting

public enum BenchFormat {
    static func median(_ xs: [Double]) -> Double {
        let s = xs.sorted()
        guard !s.isEmpty else { return 0 }
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    static func time(_ s: Double) -> String {
        if s >= 10 { return String(format: "%.1f s", s) }
        if s >= 1 { return String(format: "%.2f s", s) }
        if s >= 0.001 { return String(format: "%.1f ms", s * 1000) }
        return String(format: "%.0f µs", s * 1_000_000)
    }

    static func grouped(_ v: Double) -> String {
        let n = Int(v.rounded())
        let digits = String(n)
        var out = ""
        for (i, c) in digits.reversed().enumerated() {
            if i > 0 && i % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return String(out.reversed())
    }

    /// A stall over `rows` objects as time per 1,000 objects.
    static func perThousand(_ s: Double, rows: Int) -> String {
        rows > 0 ? time(s * 1000 / Double(rows)) : "–"
    }

    /// A Markdown table of one workload.
    public static func table(_ r: WorkloadResult) -> String {
        var lines = ["### \(r.id). \(r.title)", ""]
        let hasMemory = r.entries.contains { $0.peakMemoryKiB != nil }
        let hasMain = r.entries.contains { $0.mainQueueBusySeconds != nil || $0.longestMainQueueStallSeconds != nil }
        var header = ["stack", "median", "rows/s", "× raw"]
        if hasMemory { header.append("peak memory") }
        if hasMain { header += ["main queue blocked", "longest main stall", "longest stall per 1,000 objects"] }
        header.append("runs")
        lines.append("| " + header.joined(separator: " | ") + " |")
        lines.append("|" + header.map { _ in "---" }.joined(separator: "|") + "|")
        for e in r.entries {
            var cells = [
                e.contender, time(e.medianSeconds), grouped(e.rowsPerSecond),
                e.ratioToRaw.map { String(format: "%.2f", $0) } ?? "–",
            ]
            if hasMemory { cells.append(e.peakMemoryKiB.map { String(format: "%.1f MiB", Double($0) / 1024) } ?? "–") }
            if hasMain {
                cells.append(e.mainQueueBusySeconds.map(time) ?? "–")
                cells.append(e.longestMainQueueStallSeconds.map(time) ?? "–")
                cells.append(e.longestMainQueueStallSeconds.map { perThousand($0, rows: r.rows) } ?? "–")
            }
            cells.append(String(e.runs.count))
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        for n in r.notes { lines.append(""); lines.append("> \(n)") }
        return lines.joined(separator: "\n")
    }

    public static func report(_ report: BenchReport) -> String {
        let m = report.machine
        var out = [
            "Machine: \(m.cpuModel), \(m.processors) CPUs, \(m.memoryGiB) GiB, Linux \(m.kernel), SQLite \(m.sqliteVersion)",
            "N = \(report.config.items) items, \(report.config.runs) runs per figure (median)", "",
        ]
        for r in report.results { out.append(table(r)); out.append("") }
        return out.joined(separator: "\n")
    }

    public static func json(_ report: BenchReport) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(report)
    }
}
