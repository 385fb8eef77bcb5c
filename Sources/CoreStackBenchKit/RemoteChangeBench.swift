import CoreStack
import Foundation

/// Remote-change latency and write contention between processes (issue 20), with
/// `corestack-history-probe` as the other process:
///
/// - Latency: the probe makes `saves` saves (one note each, `pauseMs` apart) on a store that tracks
///   history; this process's coordinator, opened with remote change notifications, records when it
///   noticed each transaction. Latency = noticed − the probe's clock right after its save returned.
/// - Idle cost: CPU time this process spends polling while nothing happens.
/// - Contention: one probe writing alone, then two at once (each save's time includes waiting for
///   the other's write lock, up to SQLite's 10 s busy timeout), and raw SQLite commits for reference.
///
/// ```swift
/// let text = try RemoteChangeBench.run(saves: 300, pauseMs: 20, probe: probeURL, directory: tmp)
/// ```
public enum RemoteChangeBench {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionName: "HistoryProbe") {
            EntityDescription("Note") {
                AttributeDescription("text", .string)
                AttributeDescription("n", .integer64, defaultValue: 0)
            }
        }
    }

    final class Box<T: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [T] = []
        func append(_ v: T) { lock.withLock { items.append(v) } }
        var values: [T] { lock.withLock { items } }
    }

    /// Runs the probe to its end and returns its output lines.
    static func runProbe(_ probe: URL, _ arguments: [String]) throws -> Process {
        let p = Process()
        p.executableURL = probe
        p.arguments = arguments
        p.standardOutput = Pipe()
        p.standardError = FileHandle.standardError
        try p.run()
        return p
    }

    static func output(_ p: Process) -> [String] {
        guard let pipe = p.standardOutput as? Pipe else { return [] }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// `saved <i> <unix time> <ms>` lines: index → (time, duration).
    static func parseSaves(_ lines: [String]) -> [Int: (at: Double, ms: Double)] {
        var out: [Int: (Double, Double)] = [:]
        for l in lines {
            let parts = l.split(separator: " ")
            guard parts.count == 4, parts[0] == "saved", let i = Int(parts[1]), let t = Double(parts[2]), let d = Double(parts[3]) else { continue }
            out[i] = (t, d)
        }
        return out
    }

    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    static func cpuSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Latency figures for one poll interval.
    static func latency(saves: Int, pauseMs: Int, intervalMs: Int, probe: URL, directory: URL) throws -> String {
        let url = directory.appendingPathComponent("latency-\(intervalMs).sqlite")
        let model = try model()
        let options = PersistentStoreOptions(
            persistentHistoryTracking: true, remoteChangeNotifications: true, remoteChangePollInterval: .milliseconds(intervalMs))
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(SQLiteStore(url: url, model: model, options: options))
        let noticed = Box<(author: String, at: Double, committed: Double)>()
        let observation = coordinator.addRemoteChangeObserver { change in
            for t in change.transactions {
                noticed.append((t.author ?? "", change.noticedAt.timeIntervalSince1970, t.timestamp.timeIntervalSince1970))
            }
        }
        // Idle cost of the monitor: CPU of this process over two quiet seconds.
        let cpu0 = cpuSeconds()
        Thread.sleep(forTimeInterval: 2)
        let idleCPU = (cpuSeconds() - cpu0) / 2
        let p = try runProbe(probe, [url.path, "loop", String(saves), String(pauseMs)])
        let lines = output(p)
        Thread.sleep(forTimeInterval: 0.5)
        withExtendedLifetime(observation) {}
        let saved = Self.parseSaves(lines)
        let prefix = "loop-\(p.processIdentifier)-"
        // From the transaction's timestamp (taken in the writer's SQL transaction just before its
        // COMMIT, so the commit itself is included), and from the writer's clock once its save returned.
        var fromCommit: [Double] = []
        var fromReturn: [Double] = []
        for n in noticed.values where n.author.hasPrefix(prefix) {
            guard let i = Int(n.author.dropFirst(prefix.count)), let s = saved[i] else { continue }
            fromCommit.append((n.at - n.committed) * 1000)
            fromReturn.append((n.at - s.at) * 1000)
        }
        fromCommit.sort()
        fromReturn.sort()
        return String(
            format: "poll %3d ms: %d saves, %d noticed; latency from commit median %.1f ms, p95 %.1f ms, worst %.1f ms "
                + "(from the save's return: median %.1f ms, worst %.1f ms); idle monitor CPU %.2f%% of a core",
            intervalMs, saved.count, fromCommit.count, percentile(fromCommit, 0.5), percentile(fromCommit, 0.95),
            fromCommit.last ?? Double.nan, percentile(fromReturn, 0.5), fromReturn.last ?? Double.nan, idleCPU * 100)
    }

    /// Save-time figures for `writers` probes writing `saves` saves each at once.
    static func contention(writers: Int, saves: Int, probe: URL, directory: URL) throws -> String {
        let url = directory.appendingPathComponent("contention-\(writers).sqlite")
        let model = try model()
        _ = try SQLiteStore(url: url, model: model, options: PersistentStoreOptions(persistentHistoryTracking: true))
        let start = Date()
        let processes = try (0..<writers).map { _ in try runProbe(probe, [url.path, "loop", String(saves), "0"]) }
        let outputs = processes.map(output)
        let elapsed = Date().timeIntervalSince(start)
        let failed = processes.filter { $0.terminationStatus != 0 }.count
        let durations = outputs.flatMap { parseSaves($0).values.map { $0.ms } }.sorted()
        return String(
            format: "%d writer%@ x %d saves: %d saves in %.2f s (%.0f saves/s); save time median %.2f ms, p99 %.2f ms, worst %.1f ms; %d failed",
            writers, writers == 1 ? "" : "s", saves, durations.count, elapsed, Double(durations.count) / elapsed,
            percentile(durations, 0.5), percentile(durations, 0.99), durations.last ?? Double.nan, failed)
    }

    /// One-row commits through raw SQLite in WAL mode, the reference for a save's floor.
    static func rawCommits(_ count: Int, directory: URL) throws -> String {
        let conn = try RawConnection(path: directory.appendingPathComponent("raw.sqlite").path)
        try conn.execute("PRAGMA journal_mode = WAL")
        try conn.execute("CREATE TABLE ZNOTE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTEXT VARCHAR, ZN INTEGER)")
        var durations: [Double] = []
        for i in 0..<count {
            let t0 = Date()
            try conn.execute("BEGIN IMMEDIATE; INSERT INTO ZNOTE (Z_ENT, Z_OPT, ZTEXT, ZN) VALUES (1, 1, 'raw-\(i)', \(i)); COMMIT")
            durations.append(Date().timeIntervalSince(t0) * 1000)
        }
        durations.sort()
        return String(format: "raw SQLite, 1 writer x %d one-row commits: median %.3f ms, worst %.2f ms", count, percentile(durations, 0.5), durations.last ?? Double.nan)
    }

    /// Runs every figure and returns the report lines.
    public static func run(saves: Int, pauseMs: Int, probe: URL, directory: URL, log: (String) -> Void = { _ in }) throws -> [String] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var lines: [String] = []
        for interval in [20, 5] {
            log("latency, poll \(interval) ms")
            lines.append(try latency(saves: saves, pauseMs: pauseMs, intervalMs: interval, probe: probe, directory: directory))
        }
        log("contention")
        lines.append(try contention(writers: 1, saves: saves, probe: probe, directory: directory))
        lines.append(try contention(writers: 2, saves: saves, probe: probe, directory: directory))
        lines.append(try contention(writers: 4, saves: saves, probe: probe, directory: directory))
        lines.append(try rawCommits(saves, directory: directory))
        return lines
    }
}
