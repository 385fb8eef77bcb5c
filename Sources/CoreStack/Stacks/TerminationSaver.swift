import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Saves every registered ``PersistentStoreManager`` when the process is told to end (SIGTERM,
/// SIGINT, SIGHUP: save, then die of the same signal, so the parent sees the conventional
/// status), when it is suspended (SIGTSTP: save, then stop with SIGSTOP; saving again is possible
/// after SIGCONT), and at normal exit (`atexit`).
///
/// The signals reach it through `SignalRouter` (a `sigaction` handler and a pipe, installed
/// before `register` returns, and shared with the browser's terminal signals), on a queue of its
/// own; each save waits at most a few seconds for the main queue, so a program whose main thread
/// is blocked still ends. (It used Dispatch signal sources, with the signals set to `SIG_IGN`;
/// libdispatch installs its handler for a signal only once per process, so after the last
/// manager was deregistered, a manager registered later never saw a signal, and the ignored
/// SIGTERM no longer ended the process.)
///
/// It composes with the dispositions the process had when the first manager registered: after
/// saving, a signal the application handled runs the application's handler (and the process goes
/// on), a signal it ignored is ignored, and a signal left at its default ends or stops the process
/// as above. When the last manager is deregistered (or goes away), those dispositions are restored.
///
/// ```swift
/// TerminationSaver.shared.register(manager)     // done by PersistentStoreManager's init
/// TerminationSaver.shared.deregister(manager)   // the process's own signal handling is back
/// ```
///
/// `@unchecked Sendable`: the managers, the router's token and the saved dispositions are read
/// and written only under `lock`.
public final class TerminationSaver: @unchecked Sendable {
    /// The process-wide saver.
    public static let shared = TerminationSaver()

    /// The signals handled.
    public static let terminationSignals: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    private let lock = NSLock()
    private var managers: [WeakManager] = []
    /// The subscription to ``SignalRouter`` (nil when not installed, or when no pipe could be
    /// made: then only the exit hook saves).
    private var token: UInt64?
    private var installed = false
    private var exitHookInstalled = false
    /// The dispositions the signals had before the router took them (the application's own).
    private var previous: [Int32: sigaction] = [:]
    private let queue = DispatchQueue(label: "CoreStack.TerminationSaver")

    private struct WeakManager {
        weak var manager: PersistentStoreManager?
    }

    /// Adds a manager to save at termination, suspension and exit (installing the handlers once).
    ///
    /// ```swift
    /// TerminationSaver.shared.register(manager)
    /// ```
    public func register(_ manager: PersistentStoreManager) {
        let install: Bool = lock.withLock {
            managers.removeAll { $0.manager == nil }
            managers.append(WeakManager(manager: manager))
            defer { installed = true }
            return !installed
        }
        if install { installHandlers() }
    }

    /// Removes a manager; when no live manager is left, the signal handlers go and the
    /// dispositions the process had before the first registration are restored.
    ///
    /// ```swift
    /// TerminationSaver.shared.deregister(manager)
    /// ```
    public func deregister(_ manager: PersistentStoreManager) {
        let uninstall: Bool = lock.withLock {
            managers.removeAll { $0.manager == nil || $0.manager === manager }
            return installed && managers.isEmpty
        }
        if uninstall { uninstallHandlers() }
    }

    /// Drops managers that went away, and uninstalls the handlers if none is left (called from a
    /// manager's `deinit`, where the weak reference to it is already nil).
    func pruneReleasedManagers() {
        let uninstall: Bool = lock.withLock {
            managers.removeAll { $0.manager == nil }
            return installed && managers.isEmpty
        }
        if uninstall { uninstallHandlers() }
    }

    /// Whether the handlers are installed (a manager is registered).
    ///
    /// ```swift
    /// TerminationSaver.shared.deregister(manager)
    /// TerminationSaver.shared.isInstalled   // false when it was the last one
    /// ```
    public var isInstalled: Bool { lock.withLock { installed } }

    /// Saves every live registered manager (waiting at most `timeout` seconds each for the main queue).
    ///
    /// ```swift
    /// TerminationSaver.shared.saveAll()
    /// ```
    public func saveAll(timeout: TimeInterval = 5) {
        let live = lock.withLock { managers.compactMap(\.manager) }
        for manager in live { manager.saveFromAnyThread(timeout: timeout) }
    }

    private func installHandlers() {
        let signals = Self.terminationSignals + [SIGTSTP]
        // Installed before this returns: a signal sent from now on is delivered.
        let subscription = SignalRouter.shared.subscribe(signals, queue: queue) { [weak self] sig in self?.handle(sig) }
        var saved: [Int32: sigaction] = [:]
        for sig in signals {
            if let old = SignalRouter.shared.originalAction(for: sig) { saved[sig] = old }
        }
        let hookExit: Bool = lock.withLock {
            token = subscription
            previous = saved
            defer { exitHookInstalled = true }
            return !exitHookInstalled
        }
        // Once per process (atexit cannot be undone); with no manager registered it saves nothing.
        if hookExit { atexit { TerminationSaver.shared.saveAll(timeout: 2) } }
    }

    private func uninstallHandlers() {
        let subscription: UInt64? = lock.withLock {
            defer {
                token = nil
                previous = [:]
                installed = false
            }
            return token
        }
        // The router puts back what the signals had before it took them (unless the browser's
        // terminal signals still take them).
        if let subscription { SignalRouter.shared.unsubscribe(subscription, restoring: true) }
    }

    /// What the process did with `sig` before the handlers were installed.
    private enum Previous {
        case byDefault, ignored
        case handler(@convention(c) (Int32) -> Void)
        case infoHandler(@convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void)
    }

    private func previousDisposition(_ sig: Int32) -> Previous {
        guard let old = lock.withLock({ previous[sig] }) else { return .byDefault }
        #if canImport(Glibc)
        if old.sa_flags & Int32(SA_SIGINFO) != 0, let f = old.__sigaction_handler.sa_sigaction { return .infoHandler(f) }
        let h = old.__sigaction_handler.sa_handler
        #else
        if old.sa_flags & Int32(SA_SIGINFO) != 0, let f = old.__sigaction_u.__sa_sigaction { return .infoHandler(f) }
        let h = old.__sigaction_u.__sa_handler
        #endif
        guard let h else { return .byDefault }
        let raw = unsafeBitCast(h, to: Int.self)
        if raw == unsafeBitCast(SIG_IGN, to: Int.self) { return .ignored }
        if raw == unsafeBitCast(SIG_DFL, to: Int.self) { return .byDefault }
        return .handler(h)
    }

    private func handle(_ sig: Int32) {
        saveAll()
        switch previousDisposition(sig) {
        case .ignored:
            return
        case let .handler(h):
            h(sig)
            return
        case let .infoHandler(f):
            var info = siginfo_t()
            info.si_signo = sig
            f(sig, &info, nil)
            return
        case .byDefault:
            break
        }
        if sig == SIGTSTP {
            // The router's handler took SIGTSTP's default action; stop the way it would.
            kill(getpid(), SIGSTOP)
            return
        }
        // Die of the signal itself, as an unhandled signal would, so the parent sees the usual status.
        signal(sig, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, sig)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        raise(sig)
        // Not reached unless the signal could not be delivered: exit with the shell's convention.
        _exit(128 + sig)
    }
}
