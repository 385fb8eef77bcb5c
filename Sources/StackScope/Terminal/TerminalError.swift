/// Why the terminal could not be taken over. Thrown before anything is drawn, so the terminal is
/// untouched and the message can be printed as is.
///
/// ```swift
/// do {
///     let backend = try CursesBackend(mouse: true)
///     // …
/// } catch let error as TerminalError {
///     print("stackscope: error: \(error)")
/// }
/// ```
public enum TerminalError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Standard input or output is not a terminal (piped, redirected, or run without a tty).
    case notATerminal(stdinIsTerminal: Bool, stdoutIsTerminal: Bool)
    /// curses does not know the terminal type (`TERM`).
    case unknownTerminalType(String)

    /// A one-line message saying what is wrong with the terminal.
    public var description: String {
        switch self {
        case let .notATerminal(stdinIsTerminal, stdoutIsTerminal):
            let which =
                switch (stdinIsTerminal, stdoutIsTerminal) {
                case (false, false): "standard input and output are not terminals"
                case (false, true): "standard input is not a terminal"
                default: "standard output is not a terminal"
                }
            return "the browser needs an interactive terminal: \(which) (use `stackscope info` or `dump` in scripts)"
        case let .unknownTerminalType(term):
            return term.isEmpty
                ? "the terminal type is not set: set TERM (for example TERM=xterm-256color)"
                : "curses does not know the terminal type \"\(term)\": try TERM=xterm-256color"
        }
    }
}
