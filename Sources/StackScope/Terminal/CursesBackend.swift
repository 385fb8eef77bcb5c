import CCurses
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The terminal backend: paints ``Frame``s with ncursesw and reads keys. One per process, used on
/// one queue (the main queue in the browser). Create it after ``TerminalSignals`` (so the signals
/// are the app's, not curses'), and call ``restore()`` on every way out.
///
/// ```swift
/// let signals = TerminalSignals { signal in /* … */ }
/// let backend = try CursesBackend(mouse: true)
/// defer { backend.restore() }
/// backend.draw(Frame(buffer: buffer, cursor: nil, mouse: true))
/// for key in backend.readKeys() { /* … */ }
/// ```
public final class CursesBackend: TerminalBackend {
    /// The terminal's size now (updated by ``handleResize()``).
    public private(set) var size: Size
    /// True when styles are drawn in colour (the terminal has colours and `NO_COLOR` is unset or
    /// empty); otherwise only bold, dim, reverse and underline are drawn.
    public let colorsEnabled: Bool
    /// False after ``restore()``: the backend then draws and reads nothing.
    public private(set) var isActive: Bool

    private let mouseAllowed: Bool
    private let screen: OpaquePointer
    private var savedTermios: termios
    private var previous: ScreenBuffer?
    private var cursorShown = false
    private var mouseOn: Bool?
    private var colorPairs = CursesColorPairs()
    private var pictureLayer: TerminalPictureLayer

    /// Takes over the terminal: requires ttys on stdin and stdout, sets the locale, saves the
    /// terminal modes and starts curses (raw, no echo, keypad, no newline translation, a 25 ms
    /// Escape delay, cursor hidden, non-blocking input).
    ///
    /// - Parameters:
    ///   - mouse: whether mouse reporting may be turned on at all (`--no-mouse` passes false);
    ///     each frame's `mouse` flag then turns it on and off.
    ///   - installsFatalSignalHandler: installs ``FatalSignalHandler`` so a crash resets the
    ///     terminal before the Swift runtime prints its backtrace.
    ///   - pictures: how frames' pictures are drawn (default: as the environment says,
    ///     ``PictureStyle/detect(environment:graphics:)``).
    /// - Throws: ``TerminalError`` when stdin or stdout is not a terminal or `TERM` is unknown.
    public init(mouse: Bool, installsFatalSignalHandler: Bool = true, pictures: PictureStyle? = nil) throws(TerminalError) {
        let inTTY = isatty(STDIN_FILENO) == 1
        let outTTY = isatty(STDOUT_FILENO) == 1
        guard inTTY, outTTY else {
            throw .notATerminal(stdinIsTerminal: inTTY, stdoutIsTerminal: outTTY)
        }
        CursesBackend.setUTF8Locale()
        var modes = termios()
        _ = tcgetattr(STDIN_FILENO, &modes)
        savedTermios = modes

        guard let screen = ccurses_newterm() else {
            throw .unknownTerminalType(CursesBackend.environment("TERM") ?? "")
        }
        self.screen = screen
        self.mouseAllowed = mouse
        self.isActive = true
        self.pictureLayer = TerminalPictureLayer(
            style: pictures ?? PictureStyle.detect(environment: ProcessInfo.processInfo.environment))

        let win = ccurses_stdscr()
        raw()
        noecho()
        nonl()
        _ = keypad(win, true)
        _ = nodelay(win, true)
        _ = set_escdelay(25)
        _ = curs_set(0)
        _ = leaveok(win, true)
        _ = mouseinterval(0)
        CursesBackend.defineAlternativeKeys()

        let noColor = CursesBackend.environment("NO_COLOR").map { !$0.isEmpty } ?? false
        var colors = false
        if has_colors(), !noColor, start_color() == ccurses_ok(), ccurses_colors() >= 8 {
            colors = true
            colorPairs.defaultColors = use_default_colors() == ccurses_ok()
            colorPairs.capacity = Int(ccurses_color_pairs())
        }
        colorsEnabled = colors
        // LINES or COLUMNS left in the environment would pin the size: the kernel's is the truth.
        var rows: Int32 = 0
        var cols: Int32 = 0
        if ccurses_window_size(STDOUT_FILENO, &rows, &cols) == 0, rows != ccurses_lines() || cols != ccurses_cols() {
            _ = resizeterm(rows, cols)
        }
        size = Size(width: Int(ccurses_maxx(win)), height: Int(ccurses_maxy(win)))
        pictureLayer.cell = CursesBackend.cellPixels(size) ?? PictureRenderer.defaultCell

        if installsFatalSignalHandler {
            FatalSignalHandler.install(termios: modes)
        }
    }

    deinit {
        restore()
    }

    // MARK: drawing

    /// Paints `frame`: only the cells that differ from the last frame are handed to curses (all of
    /// them after ``invalidate()``), then one `doupdate`. The cursor and the mouse mode change only
    /// when the frame's differ from the last. The frame's pictures are written over the cells
    /// after that (``TerminalPictureLayer``), and the whole screen is repainted when one goes away.
    public func draw(_ frame: Frame) {
        guard isActive else { return }
        let win = ccurses_stdscr()
        let buffer = frame.buffer
        let rows = min(buffer.height, size.height)
        let cols = min(buffer.width, size.width)
        let (clear, prefix) = pictureLayer.prepare(frame.pictures)
        if clear { invalidate() }
        writeRaw(prefix)
        let last = previous.flatMap { $0.size == buffer.size ? $0 : nil }
        if last == nil { _ = werase(win) }
        var drewUnderPicture = false

        var cchar = cchar_t()
        for y in 0..<rows {
            for x in 0..<cols {
                let cell = buffer[x, y]
                if cell.isContinuation { continue }
                if let last, last[x, y] == cell { continue }
                if !frame.pictures.isEmpty, !drewUnderPicture, frame.pictures.contains(where: { $0.area.contains(x: x, y: y) }) {
                    drewUnderPicture = true
                }
                if cell.width == 2, x + 1 >= cols {
                    // The terminal is narrower than the buffer: half a glyph cannot be drawn.
                    put(Cell(text: " ", width: 1, style: cell.style), x: x, y: y, into: &cchar, win: win)
                } else {
                    put(cell, x: x, y: y, into: &cchar, win: win)
                }
            }
        }
        previous = buffer

        if let cursor = frame.cursor, cursor.x >= 0, cursor.y >= 0, cursor.x < size.width, cursor.y < size.height {
            if !cursorShown {
                _ = leaveok(win, false)
                _ = curs_set(1)
                cursorShown = true
            }
            _ = wmove(win, Int32(cursor.y), Int32(cursor.x))
        } else if cursorShown {
            _ = curs_set(0)
            _ = leaveok(win, true)
            cursorShown = false
        }

        let wantMouse = mouseAllowed && frame.mouse
        if mouseOn != wantMouse {
            setMouse(wantMouse)
        }

        _ = wnoutrefresh(win)
        _ = doupdate()
        writeRaw(pictureLayer.paint(frame.pictures, cellsRepainted: last == nil || drewUnderPicture))
    }

    /// Writes bytes straight to the terminal, past curses (on the same `stdout` it writes to),
    /// and flushes them.
    private func writeRaw(_ text: String) {
        guard !text.isEmpty else { return }
        var text = text
        text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { ccurses_write_raw($0.baseAddress, $0.count) }
        }
    }

    /// A cell's size in pixels, when the terminal reports its size in pixels (TIOCGWINSZ).
    private static func cellPixels(_ size: Size) -> Size? {
        var width: Int32 = 0
        var height: Int32 = 0
        guard ccurses_window_pixels(STDOUT_FILENO, &width, &height) == 0, size.width > 0, size.height > 0 else { return nil }
        let cell = Size(width: Int(width) / size.width, height: Int(height) / size.height)
        return cell.width > 0 && cell.height > 0 ? cell : nil
    }

    private func put(_ cell: Cell, x: Int, y: Int, into cchar: inout cchar_t, win: UnsafeMutablePointer<WINDOW>?) {
        var chars: (wchar_t, wchar_t, wchar_t, wchar_t, wchar_t, wchar_t) = (0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &chars) { raw in
            let slots = raw.bindMemory(to: wchar_t.self)
            for scalar in cell.text.unicodeScalars {
                guard count < 5 else { break }
                if count == 0, scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value < 0xA0) {
                    slots[0] = wchar_t(UInt8(ascii: "?"))
                    count = 1
                    break
                }
                slots[count] = wchar_t(bitPattern: scalar.value)
                count += 1
            }
            if count == 0 {
                slots[0] = wchar_t(UInt8(ascii: " "))
                count = 1
            }
            slots[count] = 0
        }
        let (attrs, pair) = attributes(for: cell.style)
        withUnsafePointer(to: &chars) { p in
            p.withMemoryRebound(to: wchar_t.self, capacity: 6) { text in
                _ = ccurses_setcchar(&cchar, text, attrs, pair)
            }
        }
        // The bottom-right cell returns ERR (the cursor cannot advance) but is drawn.
        _ = mvwadd_wch(win, Int32(y), Int32(x), &cchar)
    }

    private func attributes(for style: Style) -> (attr_t, Int16) {
        var attrs = ccurses_a_normal()
        if style.bold { attrs |= ccurses_a_bold() }
        if style.dim { attrs |= ccurses_a_dim() }
        if style.reverse { attrs |= ccurses_a_reverse() }
        if style.underline { attrs |= ccurses_a_underline() }
        guard colorsEnabled else { return (attrs, 0) }
        return (attrs, colorPairs.pair(fg: style.fg, bg: style.bg))
    }

    private func setMouse(_ on: Bool) {
        if on {
            let mask =
                ccurses_button1_pressed() | ccurses_button1_released() | ccurses_button4_pressed()
                | ccurses_button5_pressed()
            _ = mousemask(mask, nil)
        } else {
            _ = mousemask(0, nil)
        }
        mouseOn = on
    }

    /// Forgets what is on the screen: the next ``draw(_:)`` repaints every cell and curses clears
    /// the real screen first (after a resize, a resume, Ctrl-L).
    public func invalidate() {
        previous = nil
        guard isActive else { return }
        _ = clearok(ccurses_curscr(), true)
    }

    // MARK: input

    /// Every key waiting on stdin, decoded; empty when none. Never blocks (apart from curses'
    /// 25 ms wait after a lone Escape). Call it when stdin is readable (``stdinReadSource(queue:handler:)``).
    ///
    /// ```swift
    /// for key in backend.readKeys() { app.dispatch(.key(key)) }
    /// ```
    public func readKeys() -> [Key] {
        guard isActive else { return [] }
        let win = ccurses_stdscr()
        let codeYes = ccurses_key_code_yes()
        let err = ccurses_err()
        var keys: [Key] = []
        var ch: wint_t = 0
        while true {
            let status = wget_wch(win, &ch)
            if status == err { break }
            if status == codeYes {
                let code = Int32(bitPattern: ch)
                if code == CursesKeyDecoder.Code.mouse {
                    var event = MEVENT()
                    if getmouse(&event) == ccurses_ok(),
                        let key = CursesKeyDecoder.decodeMouse(
                            buttonState: UInt32(event.bstate), x: Int(event.x), y: Int(event.y))
                    {
                        keys.append(key)
                    }
                } else if let key = CursesKeyDecoder.decode(.keyCode(code)) {
                    keys.append(key)
                }
            } else if let key = CursesKeyDecoder.decode(.character(UInt32(ch))) {
                keys.append(key)
            }
        }
        return keys
    }

    // MARK: terminal events

    /// After SIGWINCH: reads the size from the kernel, resizes curses' screen, updates ``size`` and
    /// invalidates, so the next frame (rendered at the new size) repaints everything.
    public func handleResize() {
        guard isActive else { return }
        var rows: Int32 = 0
        var cols: Int32 = 0
        if ccurses_window_size(STDOUT_FILENO, &rows, &cols) == 0
            || ccurses_window_size(STDIN_FILENO, &rows, &cols) == 0
        {
            _ = resizeterm(rows, cols)
        }
        let win = ccurses_stdscr()
        size = Size(width: Int(ccurses_maxx(win)), height: Int(ccurses_maxy(win)))
        pictureLayer.cell = CursesBackend.cellPixels(size) ?? pictureLayer.cell
        invalidate()
    }

    /// Ctrl-Z or SIGTSTP: gives the terminal back to the shell and stops the process group; when
    /// `fg` continues it, retakes the terminal, picks up a size change made meanwhile and
    /// invalidates. Blocks while stopped. Draw a frame right after it returns.
    public func suspend() {
        guard isActive else { return }
        if mouseOn == true { _ = mousemask(0, nil) }
        writeRaw(pictureLayer.remove())
        _ = curs_set(1)
        _ = endwin()
        _ = fflush(nil)
        CursesBackend.stopProcessGroup()
        // Continued: back to curses mode (prog mode, alternate screen, keypad).
        _ = doupdate()
        _ = curs_set(cursorShown ? 1 : 0)
        mouseOn = nil
        handleResize()
    }

    /// Gives the terminal back: mouse off, cursor on, curses ended, the terminal modes saved at
    /// start restored. Idempotent and safe on every way out (quit, error, SIGTERM, SIGHUP, SIGINT);
    /// call it before printing anything.
    public func restore() {
        guard isActive else { return }
        isActive = false
        if mouseOn == true { _ = mousemask(0, nil) }
        writeRaw(pictureLayer.remove())
        _ = curs_set(1)
        _ = endwin()
        _ = fflush(nil)
        var modes = savedTermios
        _ = tcsetattr(STDIN_FILENO, TCSADRAIN, &modes)
        FatalSignalHandler.uninstall()
    }

    // MARK: helpers

    /// Stops this process's group and returns once it is continued. `kill(0, SIGSTOP)` is
    /// process-directed: another thread may take it, so the caller could run on (and redraw)
    /// before the stop; when this process leads its group (a shell job) a SIGSTOP sent to the
    /// calling thread itself stops everything before `raise` returns.
    private static func stopProcessGroup() {
        if getpgrp() == getpid() {
            _ = raise(SIGSTOP)
        } else {
            _ = kill(0, SIGSTOP)
            usleep(100_000)  // give another thread time to take the stop before anything is drawn
        }
    }

    /// Home and End as terminals send them when the terminfo entry expects other sequences (tmux
    /// and screen with TERM=xterm-256color send `ESC [1~` and `ESC [4~`, rxvt `ESC [7~` and
    /// `ESC [8~`): taught to curses where the entry does not define them, so they are keys
    /// instead of an Escape and three characters.
    private static func defineAlternativeKeys() {
        let home = CursesKeyDecoder.Code.home
        let end = CursesKeyDecoder.Code.end
        let alternatives: [(String, Int32)] = [
            ("\u{1B}[1~", home), ("\u{1B}[4~", end), ("\u{1B}[7~", home), ("\u{1B}[8~", end),
            ("\u{1B}[H", home), ("\u{1B}[F", end), ("\u{1B}OH", home), ("\u{1B}OF", end),
        ]
        for (sequence, code) in alternatives where key_defined(sequence) == 0 {
            _ = define_key(sequence, code)
        }
    }

    private static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }

    /// The user's locale; when its character set is not UTF-8, UTF-8 for character handling,
    /// since curses needs a UTF-8 locale to draw anything outside ASCII.
    private static func setUTF8Locale() {
        _ = setlocale(LC_ALL, "")
        if let codeset = nl_langinfo(nl_item(CODESET)) {
            let name = String(cString: codeset).uppercased().filter { $0 != "-" }
            if name == "UTF8" { return }
        }
        if setlocale(LC_CTYPE, "C.UTF-8") == nil {
            _ = setlocale(LC_CTYPE, "en_US.UTF-8")
        }
    }
}

/// Colour pairs allocated as styles need them: pair 0 is the default colours, others are made
/// on first use, up to the terminal's limit (then the default pair is used).
struct CursesColorPairs {
    var defaultColors = false
    var capacity = 0
    private var pairs: [Int: Int16] = [:]
    private var next: Int16 = 1

    mutating func pair(fg: TerminalColor, bg: TerminalColor) -> Int16 {
        if fg == .default, bg == .default { return 0 }
        let key = (fg.rawValue + 1) * 16 + (bg.rawValue + 1)
        if let p = pairs[key] { return p }
        guard Int(next) < capacity, next < Int16.max else { return 0 }
        let f = Int16(fg == .default ? (defaultColors ? -1 : TerminalColor.white.rawValue) : fg.rawValue)
        let b = Int16(bg == .default ? (defaultColors ? -1 : TerminalColor.black.rawValue) : bg.rawValue)
        guard init_pair(next, f, b) == ccurses_ok() else { return 0 }
        pairs[key] = next
        next += 1
        return pairs[key] ?? 0
    }
}
