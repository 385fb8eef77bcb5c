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
/// The signals are handled by dispatch sources on a queue of their own (with the signals set to
/// `SIG_IGN` so they do not kill the process first); each save waits at most a few seconds for
/// the main queue, so a program whose main thread is blocked still ends.
///
/// ```swift
/// TerminationSaver.shared.register(manager)   // done by PersistentStoreManager's init
/// ```
public final class TerminationSaver: @unchecked Sendable {
    /// The process-wide saver.
    public static let shared = TerminationSaver()

    /// The signals handled.
    public static let terminationSignals: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    private let lock = NSLock()
    private var managers: [WeakManager] = []
    private var sources: [any DispatchSourceSignal] = []
    private var installed = false
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
        var made: [any DispatchSourceSignal] = []
        // A source registers with the kernel asynchronously, and an ignored signal that arrives
        // before that is lost: wait until every source is registered before returning.
        let registered = DispatchGroup()
        for sig in Self.terminationSignals + [SIGTSTP] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
            source.setEventHandler { [weak self] in self?.handle(sig) }
            registered.enter()
            source.setRegistrationHandler { registered.leave() }
            source.resume()
            made.append(source)
        }
        _ = registered.wait(timeout: .now() + 5)
        lock.withLock { sources = made }
        atexit { TerminationSaver.shared.saveAll(timeout: 2) }
    }

    private func handle(_ sig: Int32) {
        saveAll()
        if sig == SIGTSTP {
            // SIGTSTP is ignored so the dispatch source sees it; stop the way its default action would.
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
