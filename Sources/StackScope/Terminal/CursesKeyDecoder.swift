/// One unit of curses input as `wget_wch` returns it: a character, or a key code
/// (when it returns `KEY_CODE_YES`).
///
/// ```swift
/// CursesKeyDecoder.decode(.character(0x6A))   // .char("j")
/// CursesKeyDecoder.decode(.keyCode(0o403))    // .up (KEY_UP)
/// ```
public enum CursesInput: Sendable, Hashable {
    /// A character (`wget_wch` returned `OK`): a Unicode scalar value, or a control code.
    case character(UInt32)
    /// A function key code (`wget_wch` returned `KEY_CODE_YES`), such as `KEY_UP` (0o403).
    case keyCode(Int32)
}

/// Turns curses input into ``Key``s. Pure functions over ncurses' stable key code and mouse mask
/// values, so they are tested without a terminal; ``CursesBackend/readKeys()`` calls them.
///
/// ```swift
/// CursesKeyDecoder.decode(.character(4))      // .ctrl("d")
/// CursesKeyDecoder.decode(.keyCode(0o541))    // .backTab (KEY_BTAB)
/// CursesKeyDecoder.decodeMouse(buttonState: 0o2, x: 3, y: 4)
///                                             // .mouse(MouseEvent(kind: .press, x: 3, y: 4))
/// ```
public enum CursesKeyDecoder {
    /// ncurses' key codes (curses.h; octal, as there). They are part of ncurses' ABI.
    public enum Code {
        public static let down: Int32 = 0o402
        public static let up: Int32 = 0o403
        public static let left: Int32 = 0o404
        public static let right: Int32 = 0o405
        public static let home: Int32 = 0o406
        public static let backspace: Int32 = 0o407
        /// `KEY_F0`; `KEY_F(n)` is `f0 + n`, for n up to 63.
        public static let f0: Int32 = 0o410
        public static let deleteChar: Int32 = 0o512
        public static let insertChar: Int32 = 0o513
        public static let scrollForward: Int32 = 0o520  // KEY_SF, shifted down arrow
        public static let scrollBackward: Int32 = 0o521  // KEY_SR, shifted up arrow
        public static let nextPage: Int32 = 0o522
        public static let previousPage: Int32 = 0o523
        public static let enter: Int32 = 0o527
        public static let keypadA1: Int32 = 0o534  // keypad upper left (Home)
        public static let keypadA3: Int32 = 0o535  // keypad upper right (PgUp)
        public static let keypadC1: Int32 = 0o537  // keypad lower left (End)
        public static let keypadC3: Int32 = 0o540  // keypad lower right (PgDn)
        public static let backTab: Int32 = 0o541
        public static let begin: Int32 = 0o542
        public static let end: Int32 = 0o550
        public static let shiftEnd: Int32 = 0o602
        public static let shiftHome: Int32 = 0o607
        public static let shiftLeft: Int32 = 0o611
        public static let shiftRight: Int32 = 0o622
        public static let mouse: Int32 = 0o631
        public static let resize: Int32 = 0o632
    }

    /// ncurses' mouse mask bits (NCURSES_MOUSE_VERSION 2: five bits per button).
    public enum MouseMask {
        public static let button1Released: UInt32 = 0o1
        public static let button1Pressed: UInt32 = 0o2
        public static let button1Clicked: UInt32 = 0o4
        public static let button1DoubleClicked: UInt32 = 0o10
        public static let button1TripleClicked: UInt32 = 0o20
        public static let button4Pressed: UInt32 = 0o2 << 15
        public static let button5Pressed: UInt32 = 0o2 << 20
    }

    /// The key for one input, or nil for input the app does not see (`KEY_RESIZE`, `KEY_MOUSE`
    /// whose event is read separately with `getmouse`, unknown codes, NUL).
    public static func decode(_ input: CursesInput) -> Key? {
        switch input {
        case let .character(value): decodeCharacter(value)
        case let .keyCode(code): decodeKeyCode(code)
        }
    }

    static func decodeCharacter(_ value: UInt32) -> Key? {
        switch value {
        case 9: return .tab
        case 10, 13: return .enter
        case 8, 127: return .backspace
        case 27: return .escape
        case 1...26:
            // Ctrl-A … Ctrl-Z (Tab, Enter and Backspace were taken above).
            return .ctrl(Character(Unicode.Scalar(UInt8(0x60) + UInt8(value))))
        case 0: return .ctrl(" ")  // Ctrl-Space / Ctrl-@
        case 28: return .ctrl("\\")
        case 29: return .ctrl("]")
        case 30: return .ctrl("^")
        case 31: return .ctrl("_")
        case 0x80..<0xA0: return nil  // C1 controls: nothing to show or bind
        default:
            guard let scalar = Unicode.Scalar(value) else { return nil }
            return .char(Character(scalar))
        }
    }

    static func decodeKeyCode(_ code: Int32) -> Key? {
        switch code {
        case Code.up, Code.scrollBackward: return .up
        case Code.down, Code.scrollForward: return .down
        case Code.left, Code.shiftLeft: return .left
        case Code.right, Code.shiftRight: return .right
        case Code.home, Code.keypadA1, Code.shiftHome: return .home
        case Code.end, Code.keypadC1, Code.shiftEnd: return .end
        case Code.previousPage, Code.keypadA3: return .pageUp
        case Code.nextPage, Code.keypadC3: return .pageDown
        case Code.backspace: return .backspace
        case Code.deleteChar: return .delete
        case Code.enter: return .enter
        case Code.backTab: return .backTab
        case (Code.f0 + 1)...(Code.f0 + 63): return .function(Int(code - Code.f0))
        default: return nil  // KEY_RESIZE, KEY_MOUSE, KEY_IC, modified keys we do not bind
        }
    }

    /// The key for a mouse event read with `getmouse`: button 1 press (or click) and release,
    /// and the wheel (buttons 4 and 5). Other buttons and motion give nil.
    public static func decodeMouse(buttonState: UInt32, x: Int, y: Int) -> Key? {
        let kind: MouseEvent.Kind
        if buttonState & MouseMask.button4Pressed != 0 {
            kind = .wheelUp
        } else if buttonState & MouseMask.button5Pressed != 0 {
            kind = .wheelDown
        } else if buttonState
            & (MouseMask.button1Pressed | MouseMask.button1Clicked | MouseMask.button1DoubleClicked
                | MouseMask.button1TripleClicked) != 0
        {
            kind = .press
        } else if buttonState & MouseMask.button1Released != 0 {
            kind = .release
        } else {
            return nil
        }
        guard x >= 0, y >= 0 else { return nil }
        return .mouse(MouseEvent(kind: kind, x: x, y: y))
    }
}
