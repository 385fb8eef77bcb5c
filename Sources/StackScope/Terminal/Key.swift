/// A key press (or mouse event, or other terminal input) as the app sees it, decoded by the backend.
///
/// ```swift
/// Key.char("j")          // j
/// Key.ctrl("d")          // Ctrl-D
/// Key.parse("C-d")       // .ctrl("d")
/// ```
public enum Key: Sendable, Hashable, CustomStringConvertible {
    /// A character typed (a printable key, with Shift applied).
    case char(Character)
    /// A control character: `ctrl("d")` is C-d.
    case ctrl(Character)
    /// Enter, Esc, Tab, Shift-Tab, Backspace and Delete.
    case enter, escape, tab, backTab, backspace, delete
    /// The arrow keys, Home, End, Page Up and Page Down.
    case up, down, left, right, home, end, pageUp, pageDown
    /// A function key: `function(1)` is F1.
    case function(Int)
    /// A mouse press, release or wheel turn, where the terminal reports one.
    case mouse(MouseEvent)

    /// The key as the help and footer show it (`j`, `C-d`, `Enter`, `PgDn`); `parse(_:)` reads it back.
    public var description: String {
        switch self {
        case let .char(c): c == " " ? "Space" : String(c)
        case let .ctrl(c): "C-\(c)"
        case .enter: "Enter"
        case .escape: "Esc"
        case .tab: "Tab"
        case .backTab: "S-Tab"
        case .backspace: "Backspace"
        case .delete: "Del"
        case .up: "↑"
        case .down: "↓"
        case .left: "←"
        case .right: "→"
        case .home: "Home"
        case .end: "End"
        case .pageUp: "PgUp"
        case .pageDown: "PgDn"
        case let .function(n): "F\(n)"
        case let .mouse(m): "mouse(\(m.kind) \(m.x),\(m.y))"
        }
    }

    /// Parses a key's description back (`"j"`, `"C-d"`, `"Enter"`, `"PgDn"`, `"Space"`), for keymaps
    /// and test scripts.
    public static func parse(_ s: String) -> Key? {
        switch s {
        case "Enter": return .enter
        case "Esc": return .escape
        case "Tab": return .tab
        case "S-Tab": return .backTab
        case "Backspace": return .backspace
        case "Del": return .delete
        case "Up", "↑": return .up
        case "Down", "↓": return .down
        case "Left", "←": return .left
        case "Right", "→": return .right
        case "Home": return .home
        case "End": return .end
        case "PgUp": return .pageUp
        case "PgDn": return .pageDown
        case "Space": return .char(" ")
        default: break
        }
        if s.hasPrefix("C-"), s.count == 3, let c = s.last { return .ctrl(c) }
        if s.hasPrefix("F"), let n = Int(s.dropFirst()), n > 0 { return .function(n) }
        if s.count == 1, let c = s.first { return .char(c) }
        return nil
    }
}

/// A mouse event in screen cells.
public struct MouseEvent: Sendable, Hashable {
    /// What happened: button 1 pressed or released, or the wheel turned.
    public enum Kind: Sendable, Hashable { case press, release, wheelUp, wheelDown }
    /// What happened.
    public var kind: Kind
    /// The column of the event.
    public var x: Int
    /// The row of the event.
    public var y: Int
    /// Creates a mouse event.
    public init(kind: Kind, x: Int, y: Int) {
        self.kind = kind
        self.x = x
        self.y = y
    }
}
