import CoreStack
import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A signal the browser handles, delivered as an event instead of its default action.
///
/// ```swift
/// TerminalSignal(signalNumber: SIGWINCH)   // .resized
/// TerminalSignal.suspend.signalNumber      // SIGTSTP
/// ```
public enum TerminalSignal: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// SIGWINCH: the terminal changed size (call ``CursesBackend/handleResize()``, render).
    case resized
    /// SIGTSTP: stop requested (call ``CursesBackend/suspend()``, then render).
    case suspend
    /// SIGCONT: continued after a stop, by `fg` or anyone (invalidate, render).
    case resumed
    /// SIGINT: interrupt (raw mode turns Ctrl-C into a key, so this comes from `kill -INT`).
    case interrupt
    /// SIGTERM: asked to end (save what must be saved, restore the terminal, exit).
    case terminate
    /// SIGHUP: the terminal went away (restore and exit; nothing can be drawn any more).
    case hangup

    /// The POSIX signal number.
    public var signalNumber: Int32 {
        switch self {
        case .resized: SIGWINCH
        case .suspend: SIGTSTP
        case .resumed: SIGCONT
        case .interrupt: SIGINT
        case .terminate: SIGTERM
        case .hangup: SIGHUP
        }
    }

    /// The case for a signal number, nil for other signals.
    public init?(signalNumber: Int32) {
        guard let match = Self.allCases.first(where: { $0.signalNumber == signalNumber }) else { return nil }
        self = match
    }

    /// The signal's name (`SIGWINCH`, `SIGTSTP`, …).
    public var description: String {
        switch self {
        case .resized: "SIGWINCH"
        case .suspend: "SIGTSTP"
        case .resumed: "SIGCONT"
        case .interrupt: "SIGINT"
        case .terminate: "SIGTERM"
        case .hangup: "SIGHUP"
        }
    }
}

/// The browser's signals, delivered as events: each signal's default action is replaced by a
/// handler (installed before `init` returns, so a signal sent right after is not lost) and every
/// delivery calls `handler` on `queue`. Create it before ``CursesBackend``, so curses sees the
/// signals taken and installs none of its handlers; keep it alive as long as the app runs.
///
/// Several instances may live at once: each signal goes to every one that takes it. The handler
/// writes to a pipe that a Dispatch read source drains (CoreStack's `SignalRouter`, which says why
/// not Dispatch signal sources); so do not make Dispatch signal sources for the same signals in
/// the same process: libdispatch would replace the handler with its own, or this one would take
/// the signals from them. CoreStack's `TerminationSaver` goes through the same router, so both
/// get SIGINT, SIGTERM, SIGHUP and SIGTSTP when a `PersistentStoreManager` saves on termination
/// (the browser's does not: `savesOnTermination: false`, since the saver ends the process after
/// saving, before the browser could restore the terminal).
///
/// ```swift
/// let signals = TerminalSignals.onMain { signal in
///     switch signal {
///     case .resized: backend.handleResize(); redraw()
///     case .suspend: backend.suspend(); redraw()
///     case .resumed: backend.invalidate(); redraw()
///     case .interrupt, .terminate, .hangup: backend.restore(); exit(0)
///     }
/// }
/// ```
public final class TerminalSignals: @unchecked Sendable {
    /// The router that delivers (the process's own, or for tests one without a pipe).
    private let router: SignalRouter
    /// The router's subscription.
    private let token: UInt64
    /// The signals handled.
    public let signals: [TerminalSignal]

    /// Starts delivering `signals` to `handler` on `queue`. Every signal sent once this returns
    /// reaches `handler` (several sent between two runs of `handler` may arrive as one call: one
    /// call is what every case needs, a resize reads the size then).
    public convenience init(
        _ signals: [TerminalSignal] = TerminalSignal.allCases, queue: DispatchQueue = .main,
        handler: @escaping @Sendable (TerminalSignal) -> Void
    ) {
        self.init(signals, queue: queue, router: .shared, handler: handler)
    }

    /// Delivers through `router`. The handler is installed before this returns, and no signal
    /// is ever set to SIG_IGN (the kernel discards an ignored signal): when the router has no
    /// pipe (no file descriptor left) it polls, so a signal sent between the handler's install
    /// and the delivery's start is kept, not lost as it was with Dispatch signal sources.
    init(
        _ signals: [TerminalSignal], queue: DispatchQueue, router: SignalRouter,
        handler: @escaping @Sendable (TerminalSignal) -> Void
    ) {
        self.signals = signals
        self.router = router
        token = router.subscribe(signals.map(\.signalNumber), queue: queue) { number in
            if let kind = TerminalSignal(signalNumber: number) { handler(kind) }
        }
    }

    /// Delivers on the main queue to a main-actor handler (the browser's event loop).
    public static func onMain(
        _ signals: [TerminalSignal] = TerminalSignal.allCases,
        handler: @escaping @MainActor (TerminalSignal) -> Void
    ) -> TerminalSignals {
        TerminalSignals(signals, queue: .main) { signal in
            MainActor.assumeIsolated { handler(signal) }
        }
    }

    /// Stops delivering (no call of the handler starts after this returns) and gives the signals
    /// no other subscriber takes the actions they had before (their defaults, unless the process
    /// set its own; at exit, after the terminal is restored).
    public func cancel() {
        router.unsubscribe(token, restoring: true)
    }

    deinit {
        router.unsubscribe(token, restoring: false)
    }
}

/// A Dispatch read source on stdin (fd 0), resumed: `handler` runs on `queue` whenever input is
/// waiting, with the number of bytes available (0 when stdin reached its end or the terminal hung
/// up: stop reading then, or the source fires again at once). Keep the returned source; cancel
/// it to stop (cancelling also releases the handler, which holds the source).
///
/// ```swift
/// let input = stdinReadSource { available in
///     MainActor.assumeIsolated {
///         if available == 0 { app.dispatch(.hangup); return }
///         for key in backend.readKeys() { app.dispatch(.key(key)) }
///     }
/// }
/// ```
public func stdinReadSource(
    queue: DispatchQueue = .main, handler: @escaping @Sendable (_ bytesAvailable: UInt) -> Void
) -> DispatchSourceRead {
    let source = DispatchSource.makeReadSource(fileDescriptor: STDIN_FILENO, queue: queue)
    source.setEventHandler {
        handler(source.data)
    }
    source.resume()
    return source
}
