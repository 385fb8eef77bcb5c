import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's one handler for the signals CoreStack and stackscope take (the
/// ``TerminationSaver``'s and the browser's `TerminalSignals`): a `sigaction` handler writes each
/// signal's number to a pipe, and a Dispatch read source on the pipe hands every signal read to
/// each subscriber that takes it, on that subscriber's queue.
///
/// Why not Dispatch signal sources: on Linux, libdispatch installs its handler for a signal (with
/// `sigaction`, then a `signalfd` in its epoll set) when the source's registration reaches its
/// manager thread, asynchronously after `resume()`, and only the first time that signal gets a
/// source in the process: it never installs it again, even after someone restored the signal's
/// earlier action. Until then the signal keeps whatever action it had: its default (SIGINT ends
/// the process) or `SIG_IGN`, which the kernel applies by discarding the signal. So a signal sent
/// right after a source was made could be lost, and a second install of the same signal (a saver
/// deregistered, then registered again) received nothing at all.
///
/// Here `sigaction` installs the handler synchronously in ``subscribe(_:queue:handler:)``, after
/// the subscriber is listed, so from the moment `subscribe` returns every signal sent lands in
/// the pipe, which keeps it until the read source reads it: nothing is lost and nothing waits.
/// The handler only loads an atomic and calls `write` (async-signal-safe; it keeps `errno`). A
/// thread must be able to take the signal: the main thread can in `dispatchMain()` (libdispatch
/// parks it in `sigsuspend` with an empty mask), and so can every thread libdispatch did not make.
///
/// When no pipe can be made (no file descriptor left), the handler sets the signal's bit in an
/// atomic word instead, and a thread of the router's own (no descriptor needed) takes the bits
/// every few milliseconds: delivery waits up to that long, and nothing is lost or ignored either
/// way (no signal is ever set to `SIG_IGN`, which would discard it).
///
/// The action each signal had before the router first took it is kept
/// (``originalAction(for:)``, for subscribers that pass a signal on to the application's own
/// handler) and put back when the last subscriber taking the signal leaves with `restoring: true`.
///
/// ```swift
/// let token = SignalRouter.shared.subscribe([SIGTERM], queue: queue) { signal in save() }
/// SignalRouter.shared.unsubscribe(token, restoring: true)
/// ```
package final class SignalRouter: @unchecked Sendable {
    /// The one router of the process.
    package static let shared = SignalRouter()

    /// The pipe's write end, which the handler reads (-1 until the pipe exists). An atomic, not a
    /// lock: the handler may interrupt a thread holding any lock.
    static let writeFD = Atomic<Int32>(-1)
    /// Signals caught since a polling router last looked, one bit per signal number (below 64),
    /// set by the handler while some router polls (``polling``).
    static let pendingBits = Atomic<UInt64>(0)
    /// How many routers poll (have no pipe): the handler sets ``pendingBits`` only then.
    static let polling = Atomic<Int>(0)

    /// Whether this router tries to make a pipe (false: it polls from the start, for tests of
    /// what happens when no pipe can be made).
    private let usesPipe: Bool

    private struct Subscriber {
        let signals: [Int32]
        let queue: DispatchQueue
        let handler: @Sendable (Int32) -> Void
    }

    // Everything below is read and written only under `lock` (`readFD` also on `pipeQueue` once
    // set, when it no longer changes).
    private let lock = NSLock()
    private var subscribers: [UInt64: Subscriber] = [:]
    private var nextToken: UInt64 = 0
    private var readFD: Int32 = -1
    private var source: (any DispatchSourceRead)?
    /// Whether this router polls ``pendingBits`` (no pipe).
    private var polls = false
    /// The action of each signal the router handles, from before it first took the signal.
    private var originals: [Int32: sigaction] = [:]
    private let pipeQueue = DispatchQueue(label: "CoreStack.SignalRouter")

    private init() { usesPipe = true }

    /// A router that never makes a pipe, as when none can be made: it polls (for tests).
    package init(polling: Void) { usesPipe = false }

    /// Starts delivering `signals` to `handler` on `queue`: lists the subscriber, then installs
    /// the handler for each signal (so every signal sent after this returns is delivered).
    /// Returns the token to unsubscribe with.
    ///
    /// ```swift
    /// let token = SignalRouter.shared.subscribe([SIGWINCH], queue: .main) { _ in redraw() }
    /// ```
    package func subscribe(
        _ signals: [Int32], queue: DispatchQueue, handler: @escaping @Sendable (Int32) -> Void
    ) -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        startLocked()
        nextToken += 1
        subscribers[nextToken] = Subscriber(signals: signals, queue: queue, handler: handler)
        var action = sigaction()
        #if canImport(Glibc) || canImport(Musl)
        action.__sigaction_handler.sa_handler = routedSignalHandler
        #else
        action.__sigaction_u.__sa_handler = routedSignalHandler
        #endif
        // Restarted, not failed with EINTR: the interrupted thread is any thread of the process.
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        for sig in signals {
            var old = sigaction()
            let hadOriginal = originals[sig] != nil
            if sigaction(sig, &action, &old) == 0, !hadOriginal { originals[sig] = old }
        }
        return nextToken
    }

    /// Stops delivering to the subscriber of `token` (nothing more reaches its handler once this
    /// returns, even what was already queued). With `restoring`, each signal no other subscriber
    /// takes gets back the action it had before the router first took it.
    ///
    /// ```swift
    /// SignalRouter.shared.unsubscribe(token, restoring: true)
    /// ```
    package func unsubscribe(_ token: UInt64, restoring: Bool) {
        lock.lock()
        defer { lock.unlock() }
        guard let gone = subscribers.removeValue(forKey: token), restoring else { return }
        let stillTaken = Set(subscribers.values.flatMap(\.signals))
        for sig in Set(gone.signals) where !stillTaken.contains(sig) {
            guard var original = originals.removeValue(forKey: sig) else { continue }
            _ = sigaction(sig, &original, nil)
        }
    }

    /// The action `signal` had before the router first took it; nil when the router does not
    /// handle it.
    ///
    /// ```swift
    /// if let old = SignalRouter.shared.originalAction(for: SIGHUP) { … }   // the app's own handler?
    /// ```
    package func originalAction(for signal: Int32) -> sigaction? {
        lock.lock()
        defer { lock.unlock() }
        return originals[signal]
    }

    /// Makes the pipe and its read source once, or else starts polling. Under the lock.
    private func startLocked() {
        if readFD >= 0 || polls { return }
        var fds: [Int32] = [-1, -1]
        guard usesPipe, pipe(&fds) == 0 else {
            startPollingLocked()
            return
        }
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
    }

    /// No pipe: the handler sets bits in ``pendingBits`` and a thread of the router takes them
    /// every 5 ms (a thread needs no file descriptor; a Dispatch timer may). Under the lock.
    private func startPollingLocked() {
        polls = true
        Self.polling.add(1, ordering: .sequentiallyConsistent)
        let thread = Thread { [self] in
            while true {
                usleep(5_000)
                let bits = Self.pendingBits.exchange(0, ordering: .acquiringAndReleasing)
                if bits != 0 { deliver((1..<64).filter { bits & (UInt64(1) << UInt64($0)) != 0 }.map(Int32.init)) }
            }
        }
        thread.name = "CoreStack.SignalRouter"
        thread.start()
    }

    /// Reads every signal number waiting in the pipe and hands them, in order, to the subscribers
    /// that take them (a signal repeated back to back goes once). On `pipeQueue`.
    private func drain() {
        lock.lock()
        let fd = readFD
        lock.unlock()
        var arrived: [Int32] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n > 0 {
                for byte in buffer.prefix(n) where arrived.last != Int32(byte) { arrived.append(Int32(byte)) }
            } else if n < 0, errno == EINTR {
                continue
            } else {
                break
            }
        }
        deliver(arrived)
    }

    /// Hands signals, in order, to the subscribers that take them, each on its queue.
    private func deliver(_ arrived: [Int32]) {
        guard !arrived.isEmpty else { return }
        lock.lock()
        let targets = subscribers.sorted { $0.key < $1.key }
        lock.unlock()
        for (token, subscriber) in targets {
            let mine = arrived.filter { subscriber.signals.contains($0) }
            guard !mine.isEmpty else { continue }
            subscriber.queue.async { [self] in
                guard isSubscribed(token) else { return }
                for sig in mine { subscriber.handler(sig) }
            }
        }
    }

    private func isSubscribed(_ token: UInt64) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return subscribers[token] != nil
    }
}

/// The handler of every routed signal: async-signal-safe calls only (lock-free atomics, `write`).
private let routedSignalHandler: @convention(c) (Int32) -> Void = { signalNumber in
    let savedErrno = errno
    if SignalRouter.polling.load(ordering: .sequentiallyConsistent) > 0, signalNumber > 0, signalNumber < 64 {
        SignalRouter.pendingBits.bitwiseOr(UInt64(1) << UInt64(signalNumber), ordering: .acquiringAndReleasing)
    }
    let fd = SignalRouter.writeFD.load(ordering: .acquiring)
    if fd >= 0 {
        // A full pipe drops the byte: signals are already waiting to be read then.
        var byte = UInt8(truncatingIfNeeded: signalNumber)
        _ = write(fd, &byte, 1)
    }
    errno = savedErrno
}
