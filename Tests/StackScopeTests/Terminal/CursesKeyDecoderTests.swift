import Testing

@testable import StackScope

/// The curses input decoder, over ncurses' own code values (written out here as in curses.h, so a
/// wrong constant in the decoder shows up).
@Suite("curses key decoding")
struct CursesKeyDecoderTests {
    @Test("printable characters, including wide and non-ASCII ones, are .char")
    func printable() {
        #expect(CursesKeyDecoder.decode(.character(0x6A)) == .char("j"))
        #expect(CursesKeyDecoder.decode(.character(0x20)) == .char(" "))
        #expect(CursesKeyDecoder.decode(.character(0x7E)) == .char("~"))
        #expect(CursesKeyDecoder.decode(.character(0xE9)) == .char("é"))
        #expect(CursesKeyDecoder.decode(.character(0x6F22)) == .char("漢"))
        #expect(CursesKeyDecoder.decode(.character(0x1F600)) == .char("😀"))
    }

    @Test("Enter, Tab, Backspace and Escape in their control-code forms")
    func controlKeys() {
        #expect(CursesKeyDecoder.decode(.character(13)) == .enter)
        #expect(CursesKeyDecoder.decode(.character(10)) == .enter)
        #expect(CursesKeyDecoder.decode(.character(9)) == .tab)
        #expect(CursesKeyDecoder.decode(.character(127)) == .backspace)
        #expect(CursesKeyDecoder.decode(.character(8)) == .backspace)
        #expect(CursesKeyDecoder.decode(.character(27)) == .escape)
    }

    @Test("codes 1…26 are Ctrl-letters, except Tab, Enter and Backspace")
    func ctrlLetters() {
        #expect(CursesKeyDecoder.decode(.character(1)) == .ctrl("a"))
        #expect(CursesKeyDecoder.decode(.character(3)) == .ctrl("c"))
        #expect(CursesKeyDecoder.decode(.character(4)) == .ctrl("d"))
        #expect(CursesKeyDecoder.decode(.character(12)) == .ctrl("l"))
        #expect(CursesKeyDecoder.decode(.character(21)) == .ctrl("u"))
        #expect(CursesKeyDecoder.decode(.character(26)) == .ctrl("z"))
        let excluded: Set<UInt32> = [8, 9, 10, 13]
        for code in UInt32(1)...26 where !excluded.contains(code) {
            guard case let .ctrl(c)? = CursesKeyDecoder.decode(.character(code)) else {
                Issue.record("code \(code) is not a Ctrl key")
                continue
            }
            #expect(c.asciiValue == UInt8(0x60 + code))
        }
        #expect(CursesKeyDecoder.decode(.character(0)) == .ctrl(" "))
        #expect(CursesKeyDecoder.decode(.character(31)) == .ctrl("_"))
        #expect(CursesKeyDecoder.decode(.character(0x85)) == nil)
    }

    @Test("key codes: arrows, paging, Home/End, Delete, Enter, Back-Tab, Backspace")
    func keyCodes() {
        let cases: [(Int32, Key)] = [
            (0o402, .down), (0o403, .up), (0o404, .left), (0o405, .right),
            (0o406, .home), (0o550, .end), (0o523, .pageUp), (0o522, .pageDown),
            (0o512, .delete), (0o527, .enter), (0o541, .backTab), (0o407, .backspace),
            // keypad corners and shifted keys fold into the plain ones
            (0o534, .home), (0o540, .pageDown), (0o611, .left), (0o622, .right), (0o520, .down), (0o521, .up),
        ]
        for (code, key) in cases {
            #expect(CursesKeyDecoder.decode(.keyCode(code)) == key, "code \(String(code, radix: 8))")
        }
    }

    @Test("function keys: KEY_F(n) is F0 + n")
    func functionKeys() {
        #expect(CursesKeyDecoder.decode(.keyCode(0o410 + 1)) == .function(1))
        #expect(CursesKeyDecoder.decode(.keyCode(0o410 + 10)) == .function(10))
        #expect(CursesKeyDecoder.decode(.keyCode(0o410 + 12)) == .function(12))
        #expect(CursesKeyDecoder.decode(.keyCode(0o410)) == nil)
    }

    @Test("KEY_RESIZE, KEY_MOUSE (read with getmouse) and unknown codes give no key")
    func ignored() {
        #expect(CursesKeyDecoder.decode(.keyCode(0o632)) == nil)
        #expect(CursesKeyDecoder.decode(.keyCode(0o631)) == nil)
        #expect(CursesKeyDecoder.decode(.keyCode(0o513)) == nil)  // KEY_IC
        #expect(CursesKeyDecoder.decode(.keyCode(0o1000)) == nil)  // a modified-key extension
    }

    @Test("mouse: button 1 press, click and release, the wheel; other buttons ignored")
    func mouse() {
        #expect(CursesKeyDecoder.decodeMouse(buttonState: 0o2, x: 3, y: 4) == .mouse(MouseEvent(kind: .press, x: 3, y: 4)))
        #expect(CursesKeyDecoder.decodeMouse(buttonState: 0o4, x: 0, y: 0) == .mouse(MouseEvent(kind: .press, x: 0, y: 0)))
        #expect(CursesKeyDecoder.decodeMouse(buttonState: 0o1, x: 7, y: 1) == .mouse(MouseEvent(kind: .release, x: 7, y: 1)))
        #expect(CursesKeyDecoder.decodeMouse(buttonState: 0o2 << 15, x: 5, y: 6) == .mouse(MouseEvent(kind: .wheelUp, x: 5, y: 6)))
        #expect(CursesKeyDecoder.decodeMouse(buttonState: 0o2 << 20, x: 5, y: 6) == .mouse(MouseEvent(kind: .wheelDown, x: 5, y: 6)))
        #expect(CursesKeyDecoder.decodeMouse(buttonState: 0o2 << 5, x: 1, y: 1) == nil)  // button 2
        #expect(CursesKeyDecoder.decodeMouse(buttonState: 0o2 << 10, x: 1, y: 1) == nil)  // button 3
        #expect(CursesKeyDecoder.decodeMouse(buttonState: 0o10 << 25, x: 1, y: 1) == nil)  // motion
        #expect(CursesKeyDecoder.decodeMouse(buttonState: 0o2, x: -1, y: 0) == nil)
    }

    @Test("decoded keys print as the keymap parses them")
    func roundTrip() {
        for code: UInt32 in [1, 4, 9, 13, 27, 127, 0x6A, 0x47] {
            guard let key = CursesKeyDecoder.decode(.character(code)) else { continue }
            #expect(Key.parse(key.description) == key, "\(key)")
        }
        for code: Int32 in [0o402, 0o403, 0o522, 0o523, 0o541, 0o410 + 5] {
            guard let key = CursesKeyDecoder.decode(.keyCode(code)) else { continue }
            #expect(Key.parse(key.description) == key, "\(key)")
        }
    }
}
