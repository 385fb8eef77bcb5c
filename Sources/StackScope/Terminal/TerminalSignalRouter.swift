import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The process-wide half of ``TerminalSignals``: one signal handler for the browser's signals
/// writes each signal's number to a pipe, and a Dispatch read source on the pipe hands every
/// signal read to each live ``TerminalSignals`` that takes it, on that one's queue.
///
/// Why not Dispatch signal sources: on Linux, libdispatch installs its handler for a signal (with
/// `sigaction`, then a `signalfd` in its epoll set) when the source's registration reaches its
/// manager thread, asynchronously after `resume()`, and only the first time that signal gets a
/// source in the process (it never installs it again, even after someone else replaced it). Until
/// then the signal keeps whatever action it had: its default (SIGINT would end the process) or,
/// as `TerminalSignals` used to set first, `SIG_IGN`, with which the kernel discards a signal as
/// it is sent. A SIGWINCH sent right after `init` returned was lost, and waiting in `init` for
/// the registration would block the caller on the manager thread.
///
/// Here `sigaction` installs the handler synchronously in ``subscribe(_:queue:handler:)``, and
/// the subscriber is listed before it, so from the moment `subscribe` returns every signal sent
/// lands in the pipe, which keeps it until the read source (registered whenever libdispatch gets
/// to it) reads it: nothing is lost and nothing waits. The handler only loads an atomic and calls
/// `write` (async-signal-safe; it keeps `errno`). A thread must be able to take the signal: the
/// main thread always can in `dispatchMain()` (libdispatch parks it in `sigsuspend` with an empty
/// mask), and so can every thread libdispatch did not make.
///
/// ```swift
/// let token = TerminalSignalRouter.shared.subscribe([.resized], queue: .main) { print($0) }
/// TerminalSignalRouter.shared.unsubscribe(token, restoringDefaults: true)
/// ```
final class TerminalSignalRouter: @unchecked Sendable {
    /// The one router of the process.
    static let shared = TerminalSignalRouter()

    /// The pipe's write end, which the handler reads (-1 until the pipe exists). An atomic, not a
    /// lock: the handler may interrupt a thread holding any lock.
    static let writeFD = Atomic<Int32>(-1)

    private struct Subscriber {
        let signals: [TerminalSignal]
        let queue: DispatchQueue
        let handler: @Sendable (TerminalSignal) -> Void
    }

    // `subscribers`, `nextToken`, `readFD` and `source` are read and written only under `lock`
    // (`readFD` also on `pipeQueue` once set, when it no longer changes).
    private let lock = NSLock()
    private var subscribers: [UInt64: Subscriber] = [:]
    private var nextToken: UInt64 = 0
    private var readFD: Int32 = -1
    private var source: (any DispatchSourceRead)?
    private let pipeQueue = DispatchQueue(label: "StackScope.TerminalSignalRouter")

    private init() {}

    /// Starts delivering `signals` to `handler` on `queue`: lists the subscriber, then installs
    /// the handler for each signal (so every signal sent after this returns is delivered).
    /// Returns the token to unsubscribe with, or nil when no pipe could be made (no descriptors
    /// left); nothing is installed then.
    func subscribe(
        _ signals: [TerminalSignal], queue: DispatchQueue, handler: @escaping @Sendable (TerminalSignal) -> Void
    ) -> UInt64? {
        lock.lock()
        defer { lock.unlock() }
        guard openPipeLocked() else { return nil }
        nextToken += 1
        subscribers[nextToken] = Subscriber(signals: signals, queue: queue, handler: handler)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = terminalSignalHandler
        // Restarted, not failed with EINTR: the interrupted thread is any thread of the process.
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        for kind in signals { _ = sigaction(kind.signalNumber, &action, nil) }
        return nextToken
    }

    /// Stops delivering to the subscriber of `token` (nothing more reaches its handler once this
    /// returns, even what was already queued). With `restoringDefaults`, the signals no other
    /// subscriber takes get their default actions back.
    func unsubscribe(_ token: UInt64, restoringDefaults: Bool) {
        lock.lock()
        defer { lock.unlock() }
        guard let gone = subscribers.removeValue(forKey: token), restoringDefaults else { return }
        let stillTaken = Set(subscribers.values.flatMap(\.signals))
        for kind in gone.signals where !stillTaken.contains(kind) {
            _ = signal(kind.signalNumber, SIG_DFL)
        }
    }

    /// Makes the pipe and its read source once. Under the lock.
    private func openPipeLocked() -> Bool {
        if readFD >= 0 { return true }
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return false }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readFD = fds[0]
        Self.writeFD.store(fds[1], ordering: .releasing)
        let source = DispatchSource.makeReadSource(fileDescriptor: fds[0], queue: pipeQueue)
        source.setEventHandler { [self] in drain() }
        source.resume()
        self.source = source
        return true
    }

    /// Reads every signal number waiting in the pipe and hands them, in order, to the subscribers
    /// that take them (a signal repeated back to back goes once). On `pipeQueue`.
    private func drain() {
        lock.lock()
        let fd = readFD
        lock.unlock()
        var arrived: [TerminalSignal] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n > 0 {
                for byte in buffer.prefix(n) {
                    if let kind = TerminalSignal(signalNumber: Int32(byte)), arrived.last != kind { arrived.append(kind) }
                }
            } else if n < 0, errno == EINTR {
                continue
            } else {
                break
            }
        }
        guard !arrived.isEmpty else { return }
        lock.lock()
        let targets = subscribers.sorted { $0.key < $1.key }
        lock.unlock()
        for (token, subscriber) in targets {
            let mine = arrived.filter { subscriber.signals.contains($0) }
            guard !mine.isEmpty else { continue }
            subscriber.queue.async { [self] in
                guard isSubscribed(token) else { return }
                for kind in mine { subscriber.handler(kind) }
            }
        }
    }

    private func isSubscribed(_ token: UInt64) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return subscribers[token] != nil
    }
}

/// The handler of every ``TerminalSignal``: async-signal-safe calls only (an atomic load, `write`).
private let terminalSignalHandler: @convention(c) (Int32) -> Void = { signalNumber in
    let savedErrno = errno
    let fd = TerminalSignalRouter.writeFD.load(ordering: .acquiring)
    if fd >= 0 {
        // A full pipe drops the byte: signals are already waiting to be read then.
        var byte = UInt8(truncatingIfNeeded: signalNumber)
        _ = write(fd, &byte, 1)
    }
    errno = savedErrno
}
