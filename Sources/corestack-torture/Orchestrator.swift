import CoreStack
import Foundation

/// Runs rounds of many processes on one new store and checks that no acknowledged commit was
/// hidden or lost (see main.swift for the whole test).
final class Orchestrator {
    struct Options {
        var seed: UInt64 = 1
        var seconds: Double = 60
        var roundSeconds: Double = 2
        var stackscope: String?
        var folder: URL
        var keep = false
    }

    /// A process this run started.
    final class Child {
        let name: String
        let role: String
        let process: Spawned
        let errorLog: URL
        let command: String
        var killed = false
        init(name: String, role: String, process: Spawned, errorLog: URL, command: String) {
            self.command = command
            self.name = name
            self.role = role
            self.process = process
            self.errorLog = errorLog
        }
    }

    struct Counts {
        var rounds = 0, processes = 0, commits = 0, kills = 0, openers = 0, browsers = 0, checks = 0
    }

    let options: Options
    let executable: String
    var random: SplitMix64
    var counts = Counts()
    var failures: [String] = []
    let tmux: String?
    let sqlite3: String?
    let tmuxSocket = "corestack-torture-\(getpid())"

    init(options: Options) {
        self.options = options
        executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
        random = SplitMix64(seed: options.seed)
        tmux = options.stackscope == nil ? nil : Self.which("tmux")
        sqlite3 = Self.which("sqlite3")
    }

    static func which(_ name: String) -> String? {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// Runs rounds until the time is up; returns the process's exit status (0: no failure).
    func run() -> Int32 {
        let fm = FileManager.default
        try? fm.createDirectory(at: options.folder, withIntermediateDirectories: true)
        let watch = SideFileWatch(prefix: options.folder.resolvingSymlinksInPath().path)
        watch.start()
        let burner = spawn(name: "burner", role: "burn", arguments: ["burn", String(options.seconds + 120)], in: options.folder)
        let end = Date().addingTimeInterval(options.seconds)
        say("corestack-torture: seed \(options.seed), \(options.seconds) s, rounds of \(options.roundSeconds) s, "
            + "browsers \(tmux == nil ? "off (no stackscope or tmux)" : "on"), sqlite3 \(sqlite3 ?? "missing")")
        repeat {
            counts.rounds += 1
            let before = failures.count
            round(counts.rounds, watch: watch)
            let (violations, _) = watch.takeViolations()
            failures += violations.map { "round \(counts.rounds): \($0)" }
            say("round \(counts.rounds): \(failures.count == before ? "ok" : "FAILED (\(failures.count - before))")")

        } while Date() < end && failures.isEmpty
        burner?.process.kill()
        watch.stop()
        say("corestack-torture: \(counts.rounds) rounds, \(counts.processes) processes (\(counts.openers) short-lived openers, "
            + "\(counts.browsers) browsers), \(counts.commits) acknowledged commits, \(counts.kills) kill -9, "
            + "\(counts.checks) end-of-round checks, \(watch.takeViolations().scans) scans of /proc")
        if failures.isEmpty {
            say("corestack-torture: no acknowledged commit lost or hidden, no deleted side file held")
            if !options.keep { try? fm.removeItem(at: options.folder) }
            return 0
        }
        for failure in failures.prefix(40) { say("FAIL: \(failure)") }
        say("corestack-torture: \(failures.count) failures; files kept in \(options.folder.path)")
        return 1
    }

    // MARK: - One round

    func round(_ number: Int, watch: SideFileWatch) {
        let folder = options.folder.appendingPathComponent("round-\(number)", isDirectory: true)
        let store = folder.appendingPathComponent("Torture.sqlite")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let model = try Torture.model()
            let created = try SQLiteStore(url: store, model: model, options: Torture.storeOptions)
            created.close()
        } catch {
            failures.append("round \(number): cannot create the store: \(error)")
            return
        }
        var writers: [Child] = [], readers: [Child] = [], openers: [Child] = []
        var browsers: [String] = []
        var writerNumber = 0
        func startWriter() {
            writerNumber += 1
            let kind = writerNumber % 3 == 0 ? "manager" : "store"
            let name = "w\(writerNumber)"
            if let child = spawn(name: name, role: "writer", arguments: ["writer", name, kind, store.path, String(random.next())], in: folder) {
                writers.append(child)
            }
        }
        func startOpeners(_ n: Int) {
            for _ in 0..<n {
                let which = random.below(options.stackscope == nil ? 2 : 4)
                let arguments: [String]
                let program: String
                switch which {
                case 0: (program, arguments) = (executable, ["opener", "store", store.path])
                case 1: (program, arguments) = (executable, ["opener", "manager", store.path])
                case 2: (program, arguments) = (options.stackscope ?? "", ["info", store.path])
                default: (program, arguments) = (options.stackscope ?? "", ["dump", store.path, "--entity", "Item", "--limit", "3"])
                }
                counts.openers += 1
                if let child = spawn(name: "o\(counts.openers)", role: "opener", program: program, arguments: arguments, in: folder) {
                    openers.append(child)
                }
            }
        }
        func startBrowsers(_ n: Int) {
            guard let tmux, let stackscope = options.stackscope else { return }
            for _ in 0..<n {
                counts.browsers += 1
                let session = "b\(counts.browsers)"
                let log = folder.appendingPathComponent("browser-\(session).err").path
                let command = "exec \(shellQuoted(stackscope)) \(shellQuoted(store.path)) 2>>\(shellQuoted(log))"
                if runTool(tmux, ["-L", tmuxSocket, "new-session", "-d", "-s", session, "-x", "120", "-y", "40", command]) {
                    browsers.append(session)
                    counts.processes += 1
                }
            }
        }
        func stopBrowser(_ session: String, hard: Bool) {
            guard let tmux else { return }
            if hard, let pid = toolOutput(tmux, ["-L", tmuxSocket, "display-message", "-p", "-t", session, "#{pane_pid}"]).flatMap({ Int32($0) }) {
                kill(pid, SIGKILL)
                counts.kills += 1
            }
            _ = runTool(tmux, ["-L", tmuxSocket, "kill-session", "-t", session])
        }

        // Openers and browsers start together on a store nobody has open; the writers and readers
        // start one by one at random moments of the round's first half, while openers keep
        // opening and closing the store around them.
        func startReader() {
            let name = "r\(readers.count + 1)"
            if let child = spawn(name: name, role: "reader", arguments: ["reader", name, readers.count % 2 == 0 ? "store" : "manager", store.path, String(random.next())], in: folder) {
                readers.append(child)
            }
        }
        let roundStart = Date()
        var pending: [(at: Double, start: () -> Void)] = (0..<5).map { i in
            (Double(random.below(1_000)) / 1_000 * options.roundSeconds / 2, i < 3 ? startWriter : startReader)
        }
        pending.sort { $0.at < $1.at }
        startOpeners(6)
        startBrowsers(2)

        let end = Date().addingTimeInterval(options.roundSeconds)
        while Date() < end {
            usleep(UInt32(10_000 + random.below(50_000)))
            while let next = pending.first, Date().timeIntervalSince(roundStart) >= next.at {
                pending.removeFirst()
                next.start()
            }
            switch random.below(20) {
            case 0..<8: startOpeners(1 + random.below(3))
            case 6:
                // kill -9 a writer mid-save (its unacknowledged commit may be lost, nothing else) and start another
                let live = writers.filter { $0.process.isRunning && !$0.killed }
                if !live.isEmpty {
                    let victim = live[random.below(live.count)]
                    victim.killed = true
                    victim.process.kill()
                    counts.kills += 1
                    startWriter()
                }
            case 7:
                let live = readers.filter { $0.process.isRunning && !$0.killed }
                if live.count > 1 {
                    let victim = live[random.below(live.count)]
                    victim.killed = true
                    victim.process.kill()
                    counts.kills += 1
                }
            case 8:
                if !browsers.isEmpty { stopBrowser(browsers.removeFirst(), hard: random.below(2) == 0) }
                startBrowsers(2)
            case 9:
                let live = openers.filter { $0.process.isRunning && !$0.killed }
                if !live.isEmpty {
                    let victim = live[random.below(live.count)]
                    victim.killed = true
                    victim.process.kill()
                    counts.kills += 1
                }
            default: break
            }
            reap(&openers, round: number)
        }

        // Writers stop; every survivor then checks what it sees through the stack it kept open.
        _ = FileManager.default.createFile(atPath: folder.appendingPathComponent("stop-writers").path, contents: nil)
        for opener in openers { waitForExit(opener, limit: 60, round: number) }
        reap(&openers, round: number)
        for next in pending { next.start() }
        // A writer still saving when stop-writers appeared finishes that save and acknowledges it first.
        usleep(200_000)
        _ = FileManager.default.createFile(atPath: folder.appendingPathComponent("check").path, contents: nil)
        for child in writers + readers {
            waitForExit(child, limit: 60, round: number)
            guard !child.killed else { continue }
            let result = (try? String(contentsOf: folder.appendingPathComponent("result-\(child.name).txt"), encoding: .utf8)) ?? ""
            counts.checks += 1
            if !result.hasPrefix("ok") {
                failures.append("round \(number): \(child.role) \(child.name): \(result.isEmpty ? "no result (\(errorText(child)))" : result.trimmingCharacters(in: .newlines))")
            }
        }
        for session in browsers { stopBrowser(session, hard: false) }
        if tmux != nil { _ = runTool(tmux ?? "", ["-L", tmuxSocket, "kill-server"]) }
        usleep(200_000)
        checkFile(store, folder: folder, round: number)
    }

    /// The store as a fresh `sqlite3` reads it: whole, and holding every acknowledged commit.
    func checkFile(_ store: URL, folder: URL, round number: Int) {
        let acks = Torture.acknowledged(in: folder)
        counts.commits += acks.count
        guard let sqlite3 else {
            failures.append("round \(number): no sqlite3 to read the file with")
            return
        }
        let integrity = toolOutput(sqlite3, [store.path, "PRAGMA integrity_check"]) ?? "(sqlite3 failed)"
        if integrity != "ok" { failures.append("round \(number): integrity_check: \(integrity.prefix(300))") }
        let rows = toolOutput(sqlite3, ["-separator", " ", store.path, "SELECT ZWRITER, ZSEQ FROM ZITEM"]) ?? ""
        var inFile: Set<Torture.Commit> = []
        for line in rows.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let seq = Int64(parts[1]) { inFile.insert(Torture.Commit(writer: String(parts[0]), seq: seq)) }
        }
        let lost = acks.subtracting(inFile).sorted()
        if !lost.isEmpty {
            failures.append("round \(number): \(lost.count) of \(acks.count) acknowledged commits are not in the file: "
                + lost.prefix(10).map(\.description).joined(separator: " "))
        }
    }

    // MARK: - Processes

    func spawn(name: String, role: String, program: String? = nil, arguments: [String], in folder: URL) -> Child? {
        let errorLog = folder.appendingPathComponent("\(name).err")
        let program = program ?? executable
        do {
            let process = try Spawned(program, arguments, output: errorLog.path)
            counts.processes += 1
            let command = ([URL(fileURLWithPath: program).lastPathComponent] + arguments).joined(separator: " ")
            return Child(name: name, role: role, process: process, errorLog: errorLog, command: command)
        } catch {
            failures.append("cannot start \(role) \(name): \(error)")
            return nil
        }
    }

    /// Removes finished openers, recording a failure for any that exited with an error.
    func reap(_ children: inout [Child], round number: Int) {
        children.removeAll { child in
            guard !child.process.isRunning else { return false }
            if !child.killed, let ending = child.process.ending, !ending.isSuccess {
                failures.append("round \(number): \(child.role) \(child.name) (\(child.command)) ended with \(ending.text): \(errorText(child))")
            }
            return true
        }
    }

    func waitForExit(_ child: Child, limit: TimeInterval, round number: Int) {
        guard let ending = child.process.wait(limit: limit) else {
            failures.append("round \(number): \(child.role) \(child.name) still running after \(Int(limit)) s; killed")
            child.killed = true
            child.process.kill()
            child.process.wait()
            return
        }
        if !child.killed && !ending.isSuccess && child.role != "opener" {
            failures.append("round \(number): \(child.role) \(child.name) ended with \(ending.text): \(errorText(child))")
        }
    }

    func errorText(_ child: Child) -> String {
        let text = (try? String(contentsOf: child.errorLog, encoding: .utf8)) ?? ""
        return text.isEmpty ? "no message" : String(text.trimmingCharacters(in: .whitespacesAndNewlines).prefix(400))
    }

    @discardableResult
    func runTool(_ program: String, _ arguments: [String]) -> Bool {
        (try? Spawned(program, arguments, output: nil))?.wait(limit: 30) == .exited(0)
    }

    func toolOutput(_ program: String, _ arguments: [String]) -> String? {
        Spawned.output(program, arguments)
    }

    func shellQuoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}
