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
        /// `KEY_DOWN`, the down arrow.
        public static let down: Int32 = 0o402
        /// `KEY_UP`, the up arrow.
        public static let up: Int32 = 0o403
        /// `KEY_LEFT`, the left arrow.
        public static let left: Int32 = 0o404
        /// `KEY_RIGHT`, the right arrow.
        public static let right: Int32 = 0o405
        /// `KEY_HOME`, the Home key.
        public static let home: Int32 = 0o406
        /// `KEY_BACKSPACE`, the backspace key.
        public static let backspace: Int32 = 0o407
        /// `KEY_F0`; `KEY_F(n)` is `f0 + n`, for n up to 63.
        public static let f0: Int32 = 0o410
        /// `KEY_DC`, the Delete key.
        public static let deleteChar: Int32 = 0o512
        /// `KEY_IC`, the Insert key.
        public static let insertChar: Int32 = 0o513
        /// `KEY_SF`, scroll forward.
        public static let scrollForward: Int32 = 0o520  // KEY_SF, shifted down arrow
        /// `KEY_SR`, scroll backward.
        public static let scrollBackward: Int32 = 0o521  // KEY_SR, shifted up arrow
        /// `KEY_NPAGE`, Page Down.
        public static let nextPage: Int32 = 0o522
        /// `KEY_PPAGE`, Page Up.
        public static let previousPage: Int32 = 0o523
        /// `KEY_ENTER`, the keypad Enter key.
        public static let enter: Int32 = 0o527
        /// `KEY_A1`.
        public static let keypadA1: Int32 = 0o534  // keypad upper left (Home)
        /// `KEY_A3`.
        public static let keypadA3: Int32 = 0o535  // keypad upper right (PgUp)
        /// `KEY_C1`.
        public static let keypadC1: Int32 = 0o537  // keypad lower left (End)
        /// `KEY_C3`.
        public static let keypadC3: Int32 = 0o540  // keypad lower right (PgDn)
        /// `KEY_BTAB`, Shift-Tab.
        public static let backTab: Int32 = 0o541
        /// `KEY_BEG`, the Begin key.
        public static let begin: Int32 = 0o542
        /// `KEY_END`, the End key.
        public static let end: Int32 = 0o550
        /// `KEY_SEND`, shifted End.
        public static let shiftEnd: Int32 = 0o602
        /// `KEY_SHOME`, shifted Home.
        public static let shiftHome: Int32 = 0o607
        /// `KEY_SLEFT`, shifted left arrow.
        public static let shiftLeft: Int32 = 0o611
        /// `KEY_SRIGHT`, shifted right arrow.
        public static let shiftRight: Int32 = 0o622
        /// `KEY_MOUSE`: a mouse event is ready for `getmouse`.
        public static let mouse: Int32 = 0o631
        /// `KEY_RESIZE`: the terminal was resized.
        public static let resize: Int32 = 0o632
    }

    /// ncurses' mouse mask bits (NCURSES_MOUSE_VERSION 2: five bits per button).
    public enum MouseMask {
        /// `BUTTON1_RELEASED`.
        public static let button1Released: UInt32 = 0o1
        /// `BUTTON1_PRESSED`.
        public static let button1Pressed: UInt32 = 0o2
        /// `BUTTON1_CLICKED`.
        public static let button1Clicked: UInt32 = 0o4
        /// `BUTTON1_DOUBLE_CLICKED`.
        public static let button1DoubleClicked: UInt32 = 0o10
        /// `BUTTON1_TRIPLE_CLICKED`.
        public static let button1TripleClicked: UInt32 = 0o20
        /// `BUTTON4_PRESSED`, the wheel scrolled up.
        public static let button4Pressed: UInt32 = 0o2 << 15
        /// `BUTTON5_PRESSED`, the wheel scrolled down.
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
