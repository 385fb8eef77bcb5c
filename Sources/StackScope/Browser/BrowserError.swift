/// What can go wrong inside the browser once it runs (shown in the status bar).
///
/// ```swift
/// BrowserError.cannotWrite(path: "/x.csv", reason: "Permission denied").description
/// ```
public enum BrowserError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An export or copy needs a table and none is open.
    case noTable
    /// A file could not be written.
    case cannotWrite(path: String, reason: String)
    /// The browser needs a terminal on standard input and output.
    case notATerminal

    public var description: String {
        switch self {
        case .noTable: "no table is open"
        case let .cannotWrite(path, reason): "cannot write \(path): \(reason)"
        case .notATerminal: "the browser needs a terminal (standard input and output are not a tty); use info or dump instead"
        }
    }
}
