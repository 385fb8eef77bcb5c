/// How `stackscope value` prints a value (`--as`).
///
/// ```swift
/// ValueOutputMode(rawValue: "hex")  // .hex
/// ```
public enum ValueOutputMode: String, Sendable, CaseIterable {
    /// The summary, then the decoded tree indented (the default).
    case tree
    /// The text the value holds (text, or a string root), as it is.
    case text
    /// A hex dump with offsets and characters.
    case hex
    /// The decoded tree as JSON.
    case json
    /// An image's picture, drawn for the terminal (``ValueCommand/picture(_:style:columns:rows:)``).
    case image
}
