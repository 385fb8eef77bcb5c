import Foundation

/// A child process started with `posix_spawn` and reaped with `waitpid` by this run alone (no
/// run loop involved, so hundreds of short-lived children are reaped at once, in order).
final class Spawned {
    let pid: pid_t
    private(set) var ending: Ending?

    enum Ending: Equatable {
        case exited(Int32)
        case signalled(Int32)

        var isSuccess: Bool { self == .exited(0) }
        var text: String {
            switch self {
            case let .exited(status): "exit status \(status)"
            case let .signalled(signal): "signal \(signal)"
            }
        }
    }

    /// Starts `program` with `arguments`, standard input from /dev/null and standard output and
    /// error appended to `output` (or /dev/null).
    init(_ program: String, _ arguments: [String], output: String?) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let target = output ?? "/dev/null"
        posix_spawn_file_actions_addopen(&actions, 1, target, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, program, &actions, nil, argv, environ)
        guard status == 0 else { throw TortureError("cannot start \(program): \(String(cString: strerror(status)))") }
        self.pid = pid
    }

    /// Whether the process is still running (reaps it when it has ended).
    var isRunning: Bool {
        guard ending == nil else { return false }
        var status: Int32 = 0
        let r = waitpid(pid, &status, WNOHANG)
        guard r == pid else { return r == 0 }
        ending = Self.decode(status)
        return false
    }

    /// Waits for the process to end, up to `limit` seconds; nil when it is still running then.
    @discardableResult
    func wait(limit: TimeInterval = .infinity) -> Ending? {
        let deadline = Date().addingTimeInterval(limit)
        while isRunning {
            if Date() > deadline { return nil }
            usleep(2_000)
        }
        return ending
    }

    func kill(_ signal: Int32 = SIGKILL) {
        if isRunning { _ = Glibc.kill(pid, signal) }
    }

    private static func decode(_ status: Int32) -> Ending {
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }

    /// Runs `program` to its end and returns its output (standard output and error), or nil
    /// when it could not start or exited with an error.
    static func output(_ program: String, _ arguments: [String]) -> String? {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("corestack-torture-\(getpid())-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: file) }
        guard let child = try? Spawned(program, arguments, output: file.path), child.wait() == .exited(0),
            let text = try? String(contentsOf: file, encoding: .utf8)
        else { return nil }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
