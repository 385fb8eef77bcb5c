/// `stackscope-bench`: the browser's headless benchmark (issue 15, "Speed").
///
/// Creates (or reuses) demo stores of 10,000, 100,000 and 1,000,000 objects in `--dir` (creation
/// is not timed), then, for each store and each entity in `--entities`, starts a fresh process of
/// this binary (`--one SIZE --entity E`) that runs the real browser program on a headless backend
/// of 120×36 cells and measures:
///
/// - launch: from `BrowserSession.open` to the first full screen (program idle, the table's rows,
///   selection and detail drawn);
/// - per key: from `dispatch` on the main queue to the first frame drawn with the program idle
///   and the screen full (`j`, `PgDn`, `G`, `s` on the first column, a filter typed after `f` and
///   applied with Enter, Enter on a table row to open its detail);
/// - the process's peak resident memory (`VmHWM`), after the first screen and at the end.
///
/// The program runs on the main queue, which the main thread services with `dispatchMain()`; the
/// measuring thread hops onto it with `DispatchQueue.main.sync`, like the browser tests do. The
/// time of a frame is taken inside the backend's `draw`, so the polling that waits for the
/// program to settle does not add to the figures. Prints a Markdown table on stdout.
/// `--profile SIZE [--entity E]` instead times the launch's steps one by one (counts, monitors,
/// the table's fetch) through the public API.
///
/// ```sh
/// swift build -c release --scratch-path .build-bench --product stackscope-bench
/// .build-bench/release/stackscope-bench --sizes 10000,100000
/// ```
import ArgumentParser
import CoreStack
import Foundation
import StackScope

// MARK: Command line

struct StackScopeBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stackscope-bench",
        abstract: "Headless benchmark of the stackscope browser on demo stores (release build).")

    @Option(help: "Where the demo stores are kept (and reused between runs).")
    var dir = "/tmp/stackscope-bench"

    @Option(help: "Comma-separated store sizes in objects.")
    var sizes = "10000,100000,1000000"

    @Option(help: "Comma-separated entities whose table is measured (each in its own process): Book, Chapter, Author.")
    var entities = "Book,Chapter"

    @Option(help: "Repetitions of each measured key (moves: 30 presses of j, 20 of PgDn).")
    var reps = 5

    @Option(help: "Processes per store and entity whose launch is timed (the median is reported).")
    var launches = 3

    @Option(help: .hidden) var one: Int?
    @Option(help: "The table --profile opens.") var entity = "Book"
    @Flag(help: .hidden) var launchOnly = false
    /// Measures the value inspector on a 100 MB value and a large keyed archive instead (``InspectorBench``).
    @Flag(help: "Instead of the table: the value inspector on a 100 MB value and a 10 MB keyed archive.")
    var inspector = false
    /// Measures issue 31's speed targets instead (``Issue31Bench``).
    @Option(help: "Instead of the table: issue 31's targets (archive, picture, table, store or all).")
    var issue31: String?
    /// Times the browser's launch steps one by one through the public API (`--profile SIZE`).
    @Option(help: "Instead of the table: time the launch's steps one by one in the store of this size (with --entity).")
    var profile: Int?

    mutating func validate() throws {
        guard reps >= 1 else { throw ValidationError("--reps must be at least 1") }
        guard launches >= 1 else { throw ValidationError("--launches must be at least 1") }
        for e in entityList where Probe.filters[e] == nil {
            throw ValidationError("--entities: no filter known for \(e) (one of \(Probe.filters.keys.sorted().joined(separator: ", ")))")
        }
        for s in try sizeList where !(1...1_000_000).contains(s) {
            throw ValidationError("--sizes: \(s) is not between 1 and 1000000")
        }
    }

    var sizeList: [Int] {
        get throws {
            try sizes.split(separator: ",").map {
                guard let n = Int($0.trimmingCharacters(in: .whitespaces)) else { throw ValidationError("--sizes: \($0) is not a number") }
                return n
            }
        }
    }

    var entityList: [String] {
        entities.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    func run() throws {
        if let one {
            runChild(size: one)
        }
        if let issue31 {
            let dir = URL(fileURLWithPath: dir).appendingPathComponent("issue31")
            onOwnThread { try Issue31Bench(dir: dir, part: issue31).run() }
        }
        if inspector {
            let dir = URL(fileURLWithPath: dir).appendingPathComponent("inspector")
            onOwnThread { try InspectorBench(dir: dir).run() }
        }
        if let profile {
            let path = Self.storeURL(dir: dir, size: profile).path
            let entity = entity
            onOwnThread { try LaunchSteps(storePath: path, entity: entity).run() }
        }
        try runParent()
    }

    /// The measuring process: the program on the main queue, the probe on its own thread.
    func runChild(size: Int) -> Never {
        let config = Probe.Config(
            storePath: Self.storeURL(dir: dir, size: size).path, size: size, entity: entity, reps: reps, launchOnly: launchOnly)
        onOwnThread {
            let result = try Probe(config).run()
            FileHandle.standardOutput.write(try JSONEncoder().encode(result))
        }
    }

    /// Runs `body` on a new thread while the main thread services the main queue; exits when done.
    func onOwnThread(_ body: @escaping @Sendable () throws -> Void) -> Never {
        let worker = Thread {
            do {
                try body()
                Foundation.exit(0)
            } catch {
                FileHandle.standardError.write(Data("stackscope-bench: \(error)\n".utf8))
                Foundation.exit(1)
            }
        }
        worker.stackSize = 8 << 20
        worker.start()
        dispatchMain()
    }

    static func storeURL(dir: String, size: Int) -> URL {
        URL(fileURLWithPath: dir).appendingPathComponent("demo-\(size).sqlite")
    }

    func runParent() throws {
        let sizes = try sizeList
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for size in sizes { try Self.ensureStore(dir: dir, size: size) }
        var columns: [(size: Int, entity: String, result: ProbeResult, launches: [Double])] = []
        for size in sizes {
            for entity in entityList {
                log("measuring \(entity) in the \(size)-object store …")
                let full = try child(size: size, entity: entity, launchOnly: false)
                var launchTimes = [full.launchMs]
                for _ in 1..<launches {
                    launchTimes.append(try child(size: size, entity: entity, launchOnly: true).launchMs)
                }
                log(String(format: "  first screen %.0f ms, peak %.0f MB", median(launchTimes), full.peakKiB * 1024 / 1e6))
                columns.append((size, entity, full, launchTimes))
            }
        }
        print(Report.markdown(columns.map { .init(size: $0.size, entity: $0.entity, result: $0.result, launches: $0.launches) }, reps: reps))
    }

    /// Runs one measuring process of this binary and reads its JSON.
    func child(size: Int, entity: String, launchOnly: Bool) throws -> ProbeResult {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        p.arguments = ["--dir", dir, "--one", String(size), "--entity", entity, "--reps", String(reps)] + (launchOnly ? ["--launch-only"] : [])
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw ValidationError("the measuring process for \(entity) at \(size) failed (status \(p.terminationStatus))") }
        return try JSONDecoder().decode(ProbeResult.self, from: data)
    }

    /// Creates the demo store of `size` objects unless a complete one is there (a marker file is
    /// written once `DemoLibrary.create` has returned).
    static func ensureStore(dir: String, size: Int) throws {
        let url = storeURL(dir: dir, size: size)
        let marker = url.appendingPathExtension("complete")
        if FileManager.default.fileExists(atPath: marker.path), FileManager.default.fileExists(atPath: url.path) {
            log("reusing \(url.path)")
            return
        }
        try? FileManager.default.removeItem(at: marker)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        log("creating \(url.path) (\(size) objects; about 80 s and 1 GiB for 1,000,000 in release) …")
        let start = Date()
        let done = DispatchSemaphore(value: 0)
        let ticker = Thread {
            while done.wait(timeout: .now() + 10) == .timedOut {
                log(String(format: "  … %.0f s", Date().timeIntervalSince(start)))
            }
        }
        ticker.start()
        defer { done.signal() }
        let summary = try DemoLibrary.create(at: url, size: size)
        try Data("\(summary.total)\n".utf8).write(to: marker)
        log(String(format: "  created %d objects in %.1f s", summary.total, Date().timeIntervalSince(start)))
    }
}

func log(_ line: String) {
    FileHandle.standardError.write(Data("stackscope-bench: \(line)\n".utf8))
}

func median(_ xs: [Double]) -> Double {
    guard !xs.isEmpty else { return .nan }
    let s = xs.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

/// Peak resident set size of this process so far (`VmHWM`), in KiB.
func peakKiB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return .nan }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Double(line.split(separator: " ").dropFirst().first ?? "") ?? .nan
    }
    return .nan
}

func nowNs() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

// MARK: The measuring process

/// What one measuring process reports (times in milliseconds).
struct ProbeResult: Codable {
    var entity: String
    var storeObjects: Int
    var tableRows: Int
    var sortColumn: String
    var filter: String
    var filteredRows: Int
    var launchMs: Double
    /// Parts of the launch: the session opened; `start()` returned (entity tree, counts, monitors).
    var openMs: Double
    var startMs: Double
    var keys: [String: [Double]] = [:]
    var peakAfterLaunchKiB: Double
    var peakKiB: Double
}

/// A backend that hands every frame to a ``HeadlessBackend`` and notes when the first frame drawn
/// with the program idle and the screen full came, after ``arm()``.
final class TimedBackend: TerminalBackend {
    let inner: HeadlessBackend
    weak var program: BrowserProgram?
    private(set) var settledAt: UInt64?
    private(set) var armedAt: UInt64 = 0

    init(size: Size) { inner = HeadlessBackend(size: size) }

    var size: Size { inner.size }

    func draw(_ frame: Frame) {
        inner.draw(frame)
        let now = nowNs()
        if settledAt == nil, let program, program.isIdle, Self.isFull(program.state) { settledAt = now }
    }

    func invalidate() { inner.invalidate() }

    /// Starts a measurement: the next settled frame counts.
    func arm() {
        settledAt = nil
        armedAt = nowNs()
    }

    /// The screen has its table: nothing busy, the window of rows is current and holds the
    /// selected row, and the detail pane shows that row's object.
    static func isFull(_ s: AppState) -> Bool {
        guard s.busy == nil, s.table.source != nil, s.table.rowCount > 0 else { return false }
        let w = s.table.window
        guard w.generation == s.table.generation, let id = w.row(s.table.scroll.selection)?.objectID else { return false }
        return s.table.selectedID == id && s.detail.snapshot?.objectID == id
    }
}

/// Drives one program on the main queue from the calling (non-main) thread.
final class Probe: @unchecked Sendable {
    struct Config: Sendable {
        var storePath: String
        var size: Int
        var entity: String
        var reps: Int
        var launchOnly: Bool
    }

    /// The filter typed for each entity (about half of the rows match).
    static let filters = ["Book": "pages > 300", "Chapter": "wordCount > 5000", "Author": "rating > 3"]

    let config: Config
    let backend = TimedBackend(size: Size(width: 120, height: 36))
    var program: BrowserProgram!
    var session: BrowserSession!

    init(_ config: Config) { self.config = config }

    func onMain<T>(_ body: () throws -> T) rethrows -> T { try DispatchQueue.main.sync(execute: body) }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Waits until the program is idle on several turns of the main queue in a row (saves and
    /// ticks come from other queues) and a settled frame was drawn.
    func waitSettled(_ what: String, timeout: TimeInterval = 600) throws {
        let deadline = Date().addingTimeInterval(timeout)
        var quiet = 0
        while quiet < 3 {
            guard Date() < deadline else { throw Failure(description: "\(what): no full screen after \(Int(timeout)) s\n\(onMain { backend.inner.text })") }
            let ok = onMain { program.isIdle && backend.settledAt != nil }
            quiet = ok ? quiet + 1 : 0
            usleep(500)
        }
    }

    /// Presses a key and returns the milliseconds from the dispatch to the first settled frame.
    @discardableResult
    func press(_ key: Key) throws -> Double {
        onMain {
            backend.arm()
            program.dispatch(.key(key))
        }
        try waitSettled("\(key)")
        return onMain { Double((backend.settledAt ?? 0) - backend.armedAt) / 1e6 }
    }

    /// Ends the program and closes its store (for measuring several programs in one process).
    func close() {
        onMain {
            _ = program?.shutDown()
        }
    }

    /// Lets a ticker started by a table load run out (it stops on the first tick with nothing busy).
    func letTickerStop() { usleep(250_000) }

    func run() throws -> ProbeResult {
        let filter = Self.filters[config.entity] ?? ""
        // Launch.
        let t0 = nowNs()
        var tOpen: UInt64 = 0, tStart: UInt64 = 0
        try onMain {
            session = try BrowserSession.open(storePath: config.storePath, modelPath: nil, readOnly: false)
            tOpen = nowNs()
            let p = BrowserProgram(session: session, backend: backend)
            p.copyHandler = { _ in }
            backend.program = p
            program = p
            backend.arm()
            p.start(openEntity: config.entity)
            tStart = nowNs()
        }
        try waitSettled("launch")
        let settled = onMain { backend.settledAt ?? 0 }
        let objects = onMain { program.state.entities.counts.filter { name, _ in session.model.entity(named: name)?.superentity == nil }.values.reduce(0, +) }
        var result = ProbeResult(
            entity: config.entity, storeObjects: objects, tableRows: onMain { program.state.table.rowCount },
            sortColumn: onMain { program.state.table.columns.first?.name ?? "?" }, filter: filter, filteredRows: 0,
            launchMs: Double(settled - t0) / 1e6, openMs: Double(tOpen - t0) / 1e6, startMs: Double(tStart - t0) / 1e6,
            peakAfterLaunchKiB: peakKiB(), peakKiB: 0)
        guard onMain({ program.state.table.entityName }) == config.entity else {
            throw Failure(description: "launch opened \(onMain { program.state.table.entityName } ?? "nothing"), not \(config.entity)")
        }
        if config.launchOnly {
            result.peakKiB = peakKiB()
            return result
        }
        letTickerStop()
        func record(_ name: String, _ ms: Double) { result.keys[name, default: []].append(ms) }

        // Moves.
        for _ in 0..<30 { record("j", try press(.char("j"))) }
        for _ in 0..<20 { record("PgDn", try press(.pageDown)) }
        for _ in 0..<config.reps {
            try press(.char("g"))
            record("G", try press(.char("G")))
        }
        try check(onMain { program.state.table.scroll.selection } == result.tableRows - 1, "G did not reach the last row")
        try press(.char("g"))

        // The detail of an object: Enter in the table, then back to the table (S-Tab).
        for _ in 0..<config.reps {
            try check(onMain { program.state.focus } == .table, "the table is not focused")
            record("Enter (detail)", try press(.enter))
            try check(onMain { program.state.focus } == .detail, "Enter did not open the detail")
            try press(.backTab)
        }

        // Sort by the first column: ascending, descending, off (each refetches the table).
        try check(onMain { program.state.table.selectedColumn } == 0, "the first column is not selected")
        for _ in 0..<config.reps {
            record("s (sort ↑)", try press(.char("s")))
            try check(onMain { program.state.table.sort.first?.ascending } == true, "s did not sort ascending")
            letTickerStop()
            record("s (sort ↓)", try press(.char("s")))
            letTickerStop()
            record("s (sort off)", try press(.char("s")))
            try check(onMain { program.state.table.sort.isEmpty }, "the third s did not turn the sort off")
            letTickerStop()
        }

        // Filter: f, the predicate typed, Enter; F clears it.
        for _ in 0..<config.reps {
            try press(.char("f"))
            for c in filter { record("typing in the filter", try press(.char(c))) }
            record("Enter (apply filter)", try press(.enter))
            try check(onMain { program.state.table.filter } == filter, "the filter was not applied: \(onMain { program.state.table.error ?? program.state.status.message ?? "" })")
            result.filteredRows = onMain { program.state.table.rowCount }
            letTickerStop()
            record("F (clear filter)", try press(.char("F")))
            try check(onMain { program.state.table.filter } == nil, "F did not clear the filter")
            letTickerStop()
        }
        result.peakKiB = peakKiB()
        return result
    }

    func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        guard condition else { throw Failure(description: message() + "\n" + onMain { backend.inner.text }) }
    }
}

// MARK: Launch steps

/// The steps of the browser's launch, one at a time, through the public API as `BrowserData`
/// takes them (session open; a count per entity on the main context; an entity monitor per
/// entity; the table's fetched results controller), each with its time and the peak memory after
/// it; then what the same counts cost on the root context and what a sorted fetch costs.
final class LaunchSteps: @unchecked Sendable {
    let storePath: String
    let entity: String
    init(storePath: String, entity: String) {
        self.storePath = storePath
        self.entity = entity
    }

    func run() throws {
        try DispatchQueue.main.sync {
            var t = nowNs()
            func step(_ what: String) {
                let now = nowNs()
                let label = what.count < 64 ? what + String(repeating: " ", count: 64 - what.count) : what
                print(label + String(format: " %9.1f ms   peak %5.0f MB", Double(now - t) / 1e6, peakKiB() * 1024 / 1e6))
                t = nowNs()
            }
            let session = try BrowserSession.open(storePath: storePath, modelPath: nil, readOnly: false)
            step("BrowserSession.open")
            let context = session.mainContext
            let entities = session.model.entities
            for e in entities {
                _ = try context.count(for: FetchRequest<ManagedObject>(entityName: e.name))
                step("count(for: \(e.name)) on the main context")
            }
            var monitors: [EntityMonitor<ManagedObject>] = []
            for e in entities { monitors.append(try EntityMonitor<ManagedObject>(context: context, entityName: e.name, frequency: .onChange)) }
            step("an EntityMonitor per entity")
            var batched = FetchRequest<ManagedObject>(entityName: entity)
            batched.sortDescriptors = [SortDescriptor("title")]
            batched.fetchBatchSize = 50
            let lean = FetchedResultsController(fetchRequest: batched, context: context)
            try lean.performFetch()
            step("FetchedResultsController(\(entity), by title, fetchBatchSize 50).performFetch: \(lean.count) objects")
            for r in 0..<min(50, lean.count) { _ = try lean.object(at: [0, r]).value(forKey: "title") }
            step("its first 50 objects read (\(context.registeredObjects.count) registered)")
            var unsortedRequest = FetchRequest<ManagedObject>(entityName: entity)
            unsortedRequest.fetchBatchSize = 50
            let unsorted = FetchedResultsController(fetchRequest: unsortedRequest, context: context)
            try unsorted.performFetch()
            step("FetchedResultsController(\(entity), no sort, fetchBatchSize 50).performFetch: \(unsorted.count) objects")
            let prepared = try lean.prepareFetch()
            step("  prepareFetch() of the controller by title (on the main queue)")
            let ran = try prepared.run()
            step("  its run() (the SQL query; off the main queue in the browser)")
            try lean.apply(ran)
            step("  apply(_:) on the main queue: \(lean.count) objects")
            let plain = FetchedResultsController(fetchRequest: FetchRequest<ManagedObject>(entityName: entity), context: context)
            try plain.performFetch()
            step("FetchedResultsController(\(entity)).performFetch: \(plain.count) objects")
            try plain.performFetch()
            step("the same performFetch again")
            var sorted = FetchRequest<ManagedObject>(entityName: entity)
            sorted.sortDescriptors = [SortDescriptor("title")]
            let byTitle = FetchedResultsController(fetchRequest: sorted, context: context)
            try byTitle.performFetch()
            step("a second controller, sorted by title: performFetch")
            if let root = session.stack?.privateQueueContext {
                try root.performAndWait {
                    for e in entities { _ = try root.count(for: FetchRequest<ManagedObject>(entityName: e.name)) }
                }
                step("the same counts on the root context (no parent)")
            }
            _ = monitors
        }
    }
}

// MARK: Report

enum Report {
    struct Column {
        var size: Int
        var entity: String
        var result: ProbeResult
        var launches: [Double]
    }

    static func ms(_ x: Double) -> String {
        x.isNaN ? "–" : x < 10 ? String(format: "%.2f ms", x) : x < 100 ? String(format: "%.1f ms", x) : String(format: "%.0f ms", x)
    }

    static func count(_ n: Int) -> String {
        var s = String(n)
        var i = s.count - 3
        while i > 0 {
            s.insert(",", at: s.index(s.startIndex, offsetBy: i))
            i -= 3
        }
        return s
    }

    static func markdown(_ columns: [Column], reps: Int) -> String {
        var lines: [String] = []
        lines.append("| | " + columns.map { "\(count($0.result.storeObjects)) objects, \($0.entity)" }.joined(separator: " | ") + " |")
        lines.append("|---|" + columns.map { _ in "---:|" }.joined())
        func row(_ label: String, _ cell: (Column) -> String) {
            lines.append("| \(label) | " + columns.map(cell).joined(separator: " | ") + " |")
        }
        func key(_ name: String, _ c: Column) -> String {
            let xs = c.result.keys[name] ?? []
            return xs.isEmpty ? "–" : "\(ms(median(xs))) (max \(ms(xs.max() ?? .nan)))"
        }
        row("rows in the table") { count($0.result.tableRows) }
        let processes = columns.first?.launches.count ?? 0
        row("**launch → first full screen** (\(processes == 1 ? "1 process" : "median of \(processes) processes"))") {
            "**\(ms(median($0.launches)))** (\($0.launches.map { ms($0) }.joined(separator: ", ")))"
        }
        row("… of which: session open / `start()` returned") { "\(ms($0.result.openMs)) / \(ms($0.result.startMs))" }
        row("j (move down), median of 30") { key("j", $0) }
        row("PgDn, median of 20") { key("PgDn", $0) }
        row("G (jump to the end), median of \(reps)") { key("G", $0) }
        row("s on the first column (sort ↑), median of \(reps)") { key("s (sort ↑)", $0) }
        row("s again (sort ↓)") { key("s (sort ↓)", $0) }
        row("s again (sort off)") { key("s (sort off)", $0) }
        row("f … Enter (apply the filter), median of \(reps)") { key("Enter (apply filter)", $0) }
        row("a character typed in the filter") { key("typing in the filter", $0) }
        row("F (clear the filter)") { key("F (clear filter)", $0) }
        row("Enter in the table (open the detail)") { key("Enter (detail)", $0) }
        row("sort column / filter (rows matching)") { "`\($0.result.sortColumn)` / `\($0.result.filter)` (\(count($0.result.filteredRows)))" }
        row("peak memory after the first screen (VmHWM)") { String(format: "%.0f MB", $0.result.peakAfterLaunchKiB * 1024 / 1e6) }
        row("**peak memory, whole run** (VmHWM)") { String(format: "**%.0f MB**", $0.result.peakKiB * 1024 / 1e6) }
        return lines.joined(separator: "\n")
    }
}

StackScopeBench.main()
