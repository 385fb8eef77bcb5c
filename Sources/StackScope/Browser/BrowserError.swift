/// What can go wrong inside the browser once it runs (shown in the status bar or the editor).
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
    /// A feature that needs the store to be a file (a second coordinator, the corruption demo).
    case needsStoreFile(String)
    /// Text typed into an editor is not a value of the attribute's type.
    case invalidValue(key: String, type: String, text: String, reason: String)
    /// The property cannot be edited in the browser (and why).
    case notEditable(key: String, reason: String)
    /// No context by that name.
    case unknownContext(name: String, known: [String])
    /// Nothing to do for a command in this state.
    case nothingTo(String)

    /// A one-line message saying what went wrong, as the status line shows it.
    public var description: String {
        switch self {
        case .noTable: "no table is open"
        case let .cannotWrite(path, reason): "cannot write \(path): \(reason)"
        case .notATerminal: "the browser needs a terminal (standard input and output are not a tty); use info or dump instead"
        case let .needsStoreFile(what): "\(what) needs a store file (this store is in memory)"
        case let .invalidValue(key, type, text, reason): "“\(text)” is not a valid \(type) for \(key): \(reason)"
        case let .notEditable(key, reason): "\(key) cannot be edited here: \(reason)"
        case let .unknownContext(name, known): "no context “\(name)” (open: \(known.joined(separator: ", ")))"
        case let .nothingTo(what): "nothing to \(what)"
        }
    }
}
