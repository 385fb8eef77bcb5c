import CCurses

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Resets the terminal when the process crashes, then lets the crash go on as before.
///
/// For SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT and SIGFPE it installs a handler (on an alternate
/// signal stack) that calls no curses and allocates nothing: it `write`s a reset string prepared
/// at installation (attributes off, cursor visible, keypad and mouse reporting off, leave the
/// alternate screen, all from terminfo), restores the terminal modes with `tcsetattr`, re-installs
/// the handler that was there before (the Swift runtime's backtracer) and calls it, so the
/// backtrace still prints, on a usable terminal.
///
/// ```swift
/// var modes = termios()
/// tcgetattr(STDIN_FILENO, &modes)
/// FatalSignalHandler.install(termios: modes)   // CursesBackend does this itself by default
/// ```
public enum FatalSignalHandler {
    /// The signals a crash raises (SIGQUIT is left to its default: a user's request, not a crash).
    public static let crashSignals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE]

    /// Mouse reporting off in all the modes curses may have turned on (X10, button, any-event, SGR).
    public static let mouseOff = "\u{1B}[?1000l\u{1B}[?1002l\u{1B}[?1003l\u{1B}[?1006l"

    /// Installs the handler (again, with new values, if already installed).
    ///
    /// - Parameters:
    ///   - modes: the terminal modes to restore (those saved before curses started); nil leaves
    ///     the modes alone.
    ///   - resetSequence: the bytes to write; by default ``resetSequenceFromTerminfo()``.
    ///   - signals: the signals to handle; by default ``crashSignals``.
    ///   - outputFD: where the reset string is written: the terminal (stdout) by default.
    public static func install(
        termios modes: termios?, resetSequence: [UInt8]? = nil, signals: [Int32] = crashSignals,
        outputFD: Int32 = STDOUT_FILENO
    ) {
        uninstall()
        let bytes = resetSequence ?? resetSequenceFromTerminfo()
        let state = UnsafeMutablePointer<FatalSignalState>.allocate(capacity: 1)
        let reset = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, bytes.count))
        reset.initialize(from: bytes, count: bytes.count)
        let previous = UnsafeMutablePointer<sigaction>.allocate(capacity: Int(FatalSignalState.slots))
        previous.initialize(repeating: sigaction(), count: Int(FatalSignalState.slots))
        state.initialize(
            to: FatalSignalState(
                reset: reset, resetCount: bytes.count, modes: modes ?? termios(),
                hasModes: modes != nil, outputFD: outputFD, previous: previous, signals: []))
        ensureAlternateStack()

        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = fatalSignalHandler
        action.sa_flags = SA_SIGINFO | SA_ONSTACK
        sigemptyset(&action.sa_mask)
        for sig in signals where sig > 0 && sig < FatalSignalState.slots {
            if sigaction(sig, &action, previous + Int(sig)) == 0 {
                state.pointee.signals.append(sig)
            }
        }
        FatalSignalState.current = state
    }

    /// Puts back the handlers that were installed before ``install(termios:resetSequence:signals:outputFD:)``
    /// (done by ``CursesBackend/restore()``, once the terminal is restored anyway).
    public static func uninstall() {
        guard let state = FatalSignalState.current else { return }
        for sig in state.pointee.signals {
            _ = sigaction(sig, state.pointee.previous + Int(sig), nil)
        }
        // The state is left allocated: a signal on another thread may still be reading it.
        state.pointee.signals = []
        FatalSignalState.current = nil
    }

    /// Whether the handler is installed.
    public static var isInstalled: Bool { FatalSignalState.current != nil }

    /// The reset string for the terminal in `TERM`, from terminfo: `sgr0` (attributes off),
    /// `cnorm` (cursor visible), `rmkx` (keypad transmit off), mouse reporting off and `rmcup`
    /// (leave the alternate screen), with plain xterm sequences for capabilities it lacks.
    public static func resetSequenceFromTerminfo() -> [UInt8] {
        if !ccurses_has_terminal() {
            var error: Int32 = 0
            _ = setupterm(nil, STDOUT_FILENO, &error)
        }
        func capability(_ name: String, fallback: String) -> [UInt8] {
            guard ccurses_has_terminal() else { return Array(fallback.utf8) }
            let value = name.withCString { tigetstr($0) }
            guard let value, Int(bitPattern: value) != -1 else { return Array(fallback.utf8) }
            return stripPadding(Array(String(cString: value).utf8))
        }
        var out: [UInt8] = []
        out += capability("sgr0", fallback: "\u{1B}[0m")
        out += capability("cnorm", fallback: "\u{1B}[?25h")
        out += capability("rmkx", fallback: "")
        out += Array(mouseOff.utf8)
        out += capability("rmcup", fallback: "\u{1B}[?1049l")
        return out
    }

    /// Removes terminfo padding (`$<5>`, `$<2*/>`), which is for `tputs`, not for the terminal.
    static func stripPadding(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "$"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "<"),
                let close = bytes[(i + 2)...].firstIndex(of: UInt8(ascii: ">"))
            {
                i = close + 1
                continue
            }
            out.append(bytes[i])
            i += 1
        }
        return out
    }

    /// The handler runs on an alternate stack, so a stack overflow can still reset the terminal.
    private static func ensureAlternateStack() {
        var current = stack_t()
        guard sigaltstack(nil, &current) == 0 else { return }
        if current.ss_flags & Int32(SS_DISABLE) == 0, current.ss_sp != nil { return }
        let size = 64 * 1024
        guard let memory = malloc(size) else { return }
        var stack = stack_t(ss_sp: memory, ss_flags: 0, ss_size: size)
        if sigaltstack(&stack, nil) != 0 { free(memory) }
    }
}

/// What the fatal handler needs, prepared in advance: nothing is allocated in the handler.
struct FatalSignalState {
    static let slots: Int32 = 65
    nonisolated(unsafe) static var current: UnsafeMutablePointer<FatalSignalState>?

    var reset: UnsafeMutablePointer<UInt8>
    var resetCount: Int
    var modes: termios
    var hasModes: Bool
    var outputFD: Int32
    var previous: UnsafeMutablePointer<sigaction>
    var signals: [Int32]
}

/// The fatal handler: async-signal-safe calls only (write, tcsetattr, sigaction, raise).
private let fatalSignalHandler: @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void = {
    sig, info, context in
    guard let state = FatalSignalState.current, sig > 0, sig < FatalSignalState.slots else {
        _ = signal(sig, SIG_DFL)
        _ = raise(sig)
        return
    }
    var written = 0
    while written < state.pointee.resetCount {
        let n = write(state.pointee.outputFD, state.pointee.reset + written, state.pointee.resetCount - written)
        if n <= 0 { break }
        written += n
    }
    if state.pointee.hasModes {
        _ = tcsetattr(STDIN_FILENO, TCSANOW, &state.pointee.modes)
    }
    let previous = state.pointee.previous + Int(sig)
    _ = sigaction(sig, previous, nil)
    let flags = previous.pointee.sa_flags
    if flags & SA_SIGINFO != 0, let handler = previous.pointee.__sigaction_handler.sa_sigaction {
        handler(sig, info, context)
        return
    }
    let plain = previous.pointee.__sigaction_handler.sa_handler
    let raw = unsafeBitCast(plain, to: Int.self)
    if raw == 0 || raw == 1 {
        // SIG_DFL (or SIG_IGN, which the kernel overrides for a fault): raised again, it ends
        // the process with the signal's default action once this handler returns.
        if raw == 1 { _ = signal(sig, SIG_DFL) }
        _ = raise(sig)
        return
    }
    plain?(sig)
}
