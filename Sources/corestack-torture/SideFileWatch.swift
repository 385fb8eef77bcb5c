import Foundation

/// Watches every process's open files (`/proc/PID/fd`) for a store's `-wal` or `-shm` that was
/// deleted while the process kept it open: a process with a deleted `-shm` runs on a WAL index no
/// other process sees (its commits hidden from them, theirs from it).
///
/// SQLite itself unlinks the `-shm` a moment before closing it when the last connection closes,
/// so a deleted side file counts only when the same process still holds it `minimumAge` later.
final class SideFileWatch: @unchecked Sendable {
    struct Holding: Hashable {
        var pid: Int32
        var fd: String
        var target: String
    }

    private let prefix: String
    private let minimumAge: TimeInterval
    private let lock = NSLock()
    private var firstSeen: [Holding: Date] = [:]
    private var reported: Set<Holding> = []
    private var violations: [String] = []
    private var scans = 0
    private var stopped = false
    private var thread: Thread?

    /// Watches side files under the folder `prefix`.
    init(prefix: String, minimumAge: TimeInterval = 0.25) {
        self.prefix = prefix
        self.minimumAge = minimumAge
    }

    func start() {
        let thread = Thread { [self] in
            while !lock.withLock({ stopped }) {
                scan()
                usleep(20_000)
            }
        }
        thread.start()
        self.thread = thread
    }

    func stop() { lock.withLock { stopped = true } }

    /// The violations found since the last call (each names the process and the file), and the
    /// number of scans made in all.
    func takeViolations() -> (violations: [String], scans: Int) {
        lock.withLock {
            let found = violations
            violations.removeAll()
            return (found, scans)
        }
    }

    /// One pass over `/proc/*/fd`.
    func scan() {
        let now = Date()
        var current: Set<Holding> = []
        let fm = FileManager.default
        for entry in (try? fm.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), pid != getpid() else { continue }
            let fdFolder = "/proc/\(entry)/fd"
            guard let fds = try? fm.contentsOfDirectory(atPath: fdFolder) else { continue }
            for fd in fds {
                guard let target = try? fm.destinationOfSymbolicLink(atPath: "\(fdFolder)/\(fd)"),
                    target.hasPrefix(prefix), target.hasSuffix(" (deleted)"),
                    target.contains("-shm") || target.contains("-wal")
                else { continue }
                current.insert(Holding(pid: pid, fd: fd, target: target))
            }
        }
        lock.withLock {
            scans += 1
            for holding in current {
                let first = firstSeen[holding] ?? now
                firstSeen[holding] = first
                if now.timeIntervalSince(first) >= minimumAge, reported.insert(holding).inserted {
                    let command = (try? String(contentsOfFile: "/proc/\(holding.pid)/cmdline", encoding: .utf8))?
                        .replacingOccurrences(of: "\0", with: " ") ?? "?"
                    violations.append("process \(holding.pid) (\(command.prefix(120))) holds the deleted \(holding.target) (fd \(holding.fd))")
                }
            }
            firstSeen = firstSeen.filter { current.contains($0.key) }
        }
    }
}
