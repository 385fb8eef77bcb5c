import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Why a tmux step failed.
enum TmuxError: Error, CustomStringConvertible {
    case notInstalled
    case commandFailed(arguments: [String], status: Int32, output: String)
    case timedOut(waitingFor: String, screen: String)

    var description: String {
        switch self {
        case .notInstalled: "tmux is not installed (apt-get install tmux)"
        case let .commandFailed(arguments, status, output):
            "tmux \(arguments.joined(separator: " ")) exited with \(status): \(output)"
        case let .timedOut(waitingFor, screen): "timed out waiting for \(waitingFor); the screen was:\n\(screen)"
        }
    }
}

/// One command running in a private tmux server (`tmux -L stackscope-test-…`), in a window of a
/// fixed size with `TERM=xterm-256color` and `LANG=C.UTF-8`, driven with `send-keys` and read with
/// `capture-pane`: the end-to-end harness for `stackscope` (Sources/CoreStack/CoreStack.docc/Reference/Architecture.md, "Testing and screenshots").
///
/// ```swift
/// @Test(.enabled(if: Tmux.isAvailable)) func prompt() throws {
///     try Tmux.withSession("bash --norc --noprofile") { tmux in
///         try tmux.waitFor(text: Tmux.prompt)
///         try tmux.sendLine("echo hi")
///         try tmux.waitFor(text: "hi")
///     }
/// }
/// ```
struct Tmux: Sendable {
    /// The tmux executable, nil when it is not installed.
    static let executable: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let dirs = path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin", "/bin"]
        return dirs.map { $0 + "/tmux" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Whether tmux is installed (for `.enabled(if:)`).
    static var isAvailable: Bool { executable != nil }

    /// The prompt of the shells the tests start (`PS1` is this and a space, which `capture-pane`
    /// trims), unlikely to appear otherwise.
    static let prompt = "tmux-test$"

    /// The server's socket name (`-L`), unique per session.
    let socket: String
    /// The session's (and its single pane's) target.
    let target = "stackscope-test"
    /// A private folder for the server's config and the tests' files.
    let folder: URL

    /// Starts `command` (a shell command line) in a new detached session of a new private server.
    /// The pane stays after the command exits (`remain-on-exit`), so its last screen can be read.
    init(
        _ command: String, width: Int = 120, height: Int = 36, environment: [String: String] = [:],
        directory: URL? = nil
    ) throws {
        guard Tmux.isAvailable else { throw TmuxError.notInstalled }
        socket = "stackscope-test-\(getpid())-\(UUID().uuidString.prefix(8).lowercased())"
        folder = try TestSupport.temporaryDirectory().appendingPathComponent(socket)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let config = folder.appendingPathComponent("tmux.conf")
        try """
            set -g default-terminal xterm-256color
            set -g status off
            set -g remain-on-exit on
            set -sg escape-time 0
            set -g history-limit 2000
            set -g default-size \(width)x\(height)
            """.write(to: config, atomically: true, encoding: .utf8)
        var env = ["TERM": "xterm-256color", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PS1": Tmux.prompt + " ", "HISTFILE": "/dev/null"]
        env.merge(environment) { _, new in new }
        var arguments = ["-f", config.path, "new-session", "-d", "-s", target, "-x", "\(width)", "-y", "\(height)"]
        arguments += ["-c", (directory ?? folder).path]
        // The environment goes on the command line through env(1): tmux 3.3's `new-session -e`
        // does not reach the first pane when the same call starts the server.
        func quoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let assignments = env.sorted(by: { $0.key < $1.key }).map { quoted("\($0.key)=\($0.value)") }
        arguments.append("exec env " + assignments.joined(separator: " ") + " sh -c " + quoted(command))
        try run(arguments)
    }

    /// Runs `body` with a session of `command`, killing the server afterwards whatever happens.
    static func withSession<R>(
        _ command: String, width: Int = 120, height: Int = 36, environment: [String: String] = [:],
        _ body: (Tmux) throws -> R
    ) throws -> R {
        let tmux = try Tmux(command, width: width, height: height, environment: environment)
        defer { tmux.kill() }
        return try body(tmux)
    }

    /// Where command output is collected (the session's folder once it exists).
    private var folderForOutput: URL {
        FileManager.default.fileExists(atPath: folder.path) ? folder : FileManager.default.temporaryDirectory
    }

    /// Runs one tmux command against this server and returns its standard output.
    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        guard let executable = Tmux.executable else { throw TmuxError.notInstalled }
        var env = ProcessInfo.processInfo.environment
        env["LANG"] = "C.UTF-8"
        env["LC_ALL"] = "C.UTF-8"
        env.removeValue(forKey: "TMUX")
        // `swift test` may run the tests with NO_COLOR set; the server and its panes would inherit
        // it. A test that wants it passes it in `environment`.
        env.removeValue(forKey: "NO_COLOR")
        // Output goes through a file, and the process is started with posix_spawn and waited
        // for with waitpid, not with Foundation's Process: the server that `new-session` forks
        // inherits the client's descriptors, so neither a pipe nor Process' exit monitor would
        // ever see the client end.
        let outputFile = folderForOutput.appendingPathComponent("out-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: outputFile) }
        let status = try Tmux.spawnAndWait(
            executable, ["-u", "-L", socket] + arguments, environment: env, output: outputFile.path)
        let text = String(decoding: (try? Data(contentsOf: outputFile)) ?? Data(), as: UTF8.self)
        guard status == 0 else {
            throw TmuxError.commandFailed(arguments: arguments, status: status, output: text)
        }
        return text
    }

    /// posix_spawn + waitpid, stdin from /dev/null, stdout and stderr to `output`; the exit status.
    private static func spawnAndWait(
        _ executable: String, _ arguments: [String], environment: [String: String], output: String
    ) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        // The calling thread is a Dispatch worker, which blocks SIGTERM, SIGHUP, SIGCHLD, SIGINT…
        // and a spawned process inherits that mask: a tmux server (and the shells and programs in
        // its panes) would then never see kill-server, SIGHUP or its children exiting. Start with
        // no signal blocked and default actions.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for sig in [SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGPIPE, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU, SIGWINCH, SIGUSR1, SIGUSR2] {
            sigaddset(&defaults, sig)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            throw TmuxError.commandFailed(arguments: arguments, status: -1, output: "posix_spawn: \(spawned)")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return -1 }
        }
        // WIFEXITED / WEXITSTATUS
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    // MARK: input

    /// Sends tmux key names (`"j"`, `"Enter"`, `"C-z"`, `"Escape"`, `"PageDown"`, `"BTab"`, `"F5"`).
    func sendKeys(_ keys: String...) throws {
        try sendKeys(keys)
    }

    /// Sends tmux key names.
    func sendKeys(_ keys: [String]) throws {
        try run(["send-keys", "-t", target] + keys)
    }

    /// Types `text` literally (no key-name lookup).
    func sendText(_ text: String) throws {
        try run(["send-keys", "-t", target, "-l", "--", text])
    }

    /// Types `line` and Enter.
    func sendLine(_ line: String) throws {
        try sendText(line)
        try sendKeys("Enter")
    }

    /// Sends raw bytes to the program (for input tmux has no key name for, such as a mouse report).
    func sendBytes(_ bytes: [UInt8]) throws {
        try run(["send-keys", "-t", target, "-H"] + bytes.map { String($0, radix: 16) })
    }

    /// Sends an SGR (1006) mouse report for a left-button press (and release) at a cell, 0-based.
    func click(x: Int, y: Int, release: Bool = true) throws {
        try sendBytes(Array("\u{1B}[<0;\(x + 1);\(y + 1)M".utf8))
        if release { try sendBytes(Array("\u{1B}[<0;\(x + 1);\(y + 1)m".utf8)) }
    }

    // MARK: output

    /// The visible screen: plain text (`capture-pane -p`, trailing spaces trimmed by tmux), or with
    /// SGR escapes and trailing spaces kept (`-e -N`), as the screenshot renderer wants it.
    func capture(escapes: Bool = false) throws -> String {
        try run(["capture-pane", "-p", "-t", target] + (escapes ? ["-e", "-N"] : []))
    }

    /// The visible screen's lines, plain.
    func lines() throws -> [String] {
        try capture().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// Polls the screen (every 20 ms) until it contains `text`; returns the screen.
    @discardableResult
    func waitFor(text: String, timeout: Double = 10) throws -> String {
        try waitUntil("\"\(text)\"", timeout: timeout) { $0.contains(text) }
    }

    /// Polls the screen (every 20 ms) until `condition` holds; returns the screen once it has
    /// settled: a capture can catch a frame half drawn (the header of a report before its body),
    /// so it is captured again until two captures 30 ms apart agree (at most 10 times, for screens
    /// that keep changing), and the last one for which `condition` still holds is returned.
    @discardableResult
    func waitUntil(_ what: String, timeout: Double = 10, _ condition: (String) throws -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var screen = ""
        repeat {
            screen = try capture()
            if try condition(screen) {
                for _ in 0..<10 {
                    usleep(30_000)
                    let again = try capture()
                    guard try condition(again) else { break }
                    if again == screen { break }
                    screen = again
                }
                return screen
            }
            usleep(20_000)
        } while Date() < deadline
        throw TmuxError.timedOut(waitingFor: what, screen: screen)
    }

    /// Polls a tmux format (`#{alternate_on}`, `#{pane_dead}`) until it has `value`.
    func waitFor(format: String, toBe value: String, timeout: Double = 10) throws {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        repeat {
            last = try display(format)
            if last == value { return }
            usleep(20_000)
        } while Date() < deadline
        throw TmuxError.timedOut(waitingFor: "\(format) = \(value) (is \(last))", screen: (try? capture()) ?? "")
    }

    /// A tmux format evaluated for the pane (`display-message -p`).
    func display(_ format: String) throws -> String {
        try run(["display-message", "-p", "-t", target, format]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The pane's terminal modes as the program left them: whether it is on the alternate screen,
    /// the cursor is visible, keypad (application cursor keys) and mouse reporting are on.
    func terminalModes() throws -> TerminalModes {
        let fields = try display(
            "#{alternate_on} #{cursor_flag} #{keypad_cursor_flag} #{mouse_any_flag} #{mouse_standard_flag} #{mouse_button_flag} #{mouse_sgr_flag}"
        ).split(separator: " ").map { $0 == "1" }
        guard fields.count == 7 else { return TerminalModes(alternateScreen: false, cursorVisible: true, keypad: false, mouse: false) }
        return TerminalModes(
            alternateScreen: fields[0], cursorVisible: fields[1], keypad: fields[2],
            mouse: fields[3] || fields[4] || fields[5] || fields[6])
    }

    /// What `terminalModes()` reports.
    struct TerminalModes: Equatable, CustomStringConvertible {
        var alternateScreen: Bool
        var cursorVisible: Bool
        var keypad: Bool
        var mouse: Bool
        /// What a shell prompt expects: main screen, cursor visible, no keypad or mouse modes.
        static let shell = TerminalModes(alternateScreen: false, cursorVisible: true, keypad: false, mouse: false)
        var description: String {
            "alternate screen \(alternateScreen), cursor \(cursorVisible), keypad \(keypad), mouse \(mouse)"
        }
    }

    /// The pane's tty (`/dev/pts/N`).
    func paneTTY() throws -> String { try display("#{pane_tty}") }

    // MARK: window

    /// Resizes the window (the program gets SIGWINCH).
    func resize(width: Int, height: Int) throws {
        try run(["resize-window", "-t", target, "-x", "\(width)", "-y", "\(height)"])
    }

    /// Ends the server and everything in it. Safe to call twice.
    func kill() {
        _ = try? run(["kill-server"])
    }
}

/// `stty -a` as a shell inside a tmux pane sees it, to check that a program left the terminal
/// as it found it.
///
/// ```swift
/// let before = try SttySnapshot.take(in: tmux)
/// // … run and quit the program …
/// let after = try SttySnapshot.take(in: tmux)
/// #expect(before.differences(from: after).isEmpty)
/// ```
struct SttySnapshot: Equatable, CustomStringConvertible {
    /// The raw `stty -a` text.
    var text: String

    /// Runs `stty -a` in the pane's shell (which must be at its prompt), through a file written
    /// atomically, and waits for it.
    static func take(in tmux: Tmux, timeout: Double = 10) throws -> SttySnapshot {
        let name = "stty-\(UUID().uuidString.prefix(8))"
        let file = tmux.folder.appendingPathComponent(name + ".txt")
        let partial = tmux.folder.appendingPathComponent(name + ".part")
        try tmux.sendLine("stty -a > '\(partial.path)' && mv '\(partial.path)' '\(file.path)'")
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let text = try? String(contentsOf: file, encoding: .utf8) {
                return SttySnapshot(text: text)
            }
            usleep(20_000)
        }
        throw TmuxError.timedOut(waitingFor: "stty -a in the pane", screen: (try? tmux.capture()) ?? "")
    }

    /// The settings (`-icanon`, `intr = ^C`, `speed 38400 baud`…), one per entry.
    var settings: Set<String> {
        var out = Set<String>()
        for line in text.split(separator: "\n") {
            for part in line.split(separator: ";") {
                let item = part.trimmingCharacters(in: .whitespaces)
                if item.contains("=") || item.hasPrefix("speed") || item.hasPrefix("rows") || item.hasPrefix("columns")
                    || item.hasPrefix("line")
                {
                    out.insert(item)
                } else {
                    for flag in item.split(separator: " ") { out.insert(String(flag)) }
                }
            }
        }
        return out
    }

    /// Settings in one snapshot and not the other, marked `-` (only here) and `+` (only there).
    func differences(from other: SttySnapshot) -> [String] {
        let a = settings
        let b = other.settings
        return a.subtracting(b).sorted().map { "- " + $0 } + b.subtracting(a).sorted().map { "+ " + $0 }
    }

    var description: String { text }
}
