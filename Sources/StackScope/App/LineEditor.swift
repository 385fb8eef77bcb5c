/// A one-line text field: the `:` command line, the filter and search prompts. Keeps the text as
/// characters and the cursor as a character index.
///
/// ```swift
/// var line = LineEditor(text: "pag")
/// _ = line.handle(.char("e"))
/// line.text   // "page"
/// ```
public struct LineEditor: Sendable, Hashable {
    /// The text as a string.
    public var text: String { String(chars) }
    /// The text as characters (the cursor indexes them).
    public private(set) var chars: [Character]
    /// The cursor position: the index of the character it is before (`chars.count` at the end).
    public var cursor: Int

    /// Creates an editor holding `text`, with the cursor at its end.
    public init(text: String = "") {
        chars = Array(text)
        cursor = chars.count
    }

    /// Replaces the text and moves the cursor to its end.
    public mutating func set(_ text: String) {
        chars = Array(text)
        cursor = chars.count
    }

    /// Applies an editing key; false when the key is not an editing key.
    public mutating func handle(_ key: Key) -> Bool {
        switch key {
        case let .char(c):
            chars.insert(c, at: cursor)
            cursor += 1
        case .backspace, .ctrl("h"):
            guard cursor > 0 else { return true }
            chars.remove(at: cursor - 1)
            cursor -= 1
        case .delete, .ctrl("d"):
            if cursor < chars.count { chars.remove(at: cursor) }
        case .left, .ctrl("b"): cursor = max(0, cursor - 1)
        case .right, .ctrl("f"): cursor = min(chars.count, cursor + 1)
        case .home, .ctrl("a"): cursor = 0
        case .end, .ctrl("e"): cursor = chars.count
        case .ctrl("u"):
            chars.removeSubrange(0..<cursor)
            cursor = 0
        case .ctrl("k"): chars.removeSubrange(cursor..<chars.count)
        case .ctrl("w"):
            var i = cursor
            while i > 0 && chars[i - 1] == " " { i -= 1 }
            while i > 0 && chars[i - 1] != " " { i -= 1 }
            chars.removeSubrange(i..<cursor)
            cursor = i
        default: return false
        }
        return true
    }

    /// The cells before the cursor (where the terminal cursor goes).
    public var cursorColumn: Int { DisplayWidth.of(String(chars[0..<cursor])) }

    /// What fits in `width` cells with the cursor in view: the text with line breaks shown as ⏎,
    /// scrolled so the cursor's column is visible, and the cursor's column in it.
    public func visible(width: Int) -> (text: String, cursor: Int) {
        let shown = chars.map { $0 == "\n" ? "⏎" : $0 }
        var start = 0
        var before = DisplayWidth.of(String(shown[0..<cursor]))
        while before > max(0, width - 1), start < cursor {
            before -= DisplayWidth.of(String(shown[start]))
            start += 1
        }
        return (String(shown[start...]), before)
    }
}
