import Dispatch
import Foundation
import Testing

@testable import StackScope

#if canImport(Glibc)
import Glibc
#endif

/// A small curses program inside the test binary: the curses end-to-end tests
/// (``CursesTmuxTests``) re-run this binary in tmux with `STACKSCOPE_CURSES_PROBE=1` and a filter
/// that selects only this test, so ``CursesBackend``, ``TerminalSignals`` and
/// ``FatalSignalHandler`` are checked in a real terminal, independently of the browser's app.
/// In a normal test run it is skipped.
///
/// On screen: its size and counters, the last keys decoded, a row of wide and combining text,
/// styled words, and `END` in the bottom-right corner. Keys: `q` quits, `c` toggles the cursor,
/// `m` toggles mouse reporting, Ctrl-Z suspends, `a` aborts (a crash).
@Suite("curses probe (run by the tmux tests)")
struct CursesProbe {
    static let environmentKey = "STACKSCOPE_CURSES_PROBE"
    static let isProbeRun = ProcessInfo.processInfo.environment[environmentKey] == "1"

    /// The shell command that runs the probe in a terminal.
    static var command: String {
        let argv0 = ProcessInfo.processInfo.arguments.first ?? "CoreStackPackageTests.xctest"
        let binary = URL(fileURLWithPath: argv0).standardizedFileURL.path
        return "\(environmentKey)=1 '\(binary)' --testing-library swift-testing --filter CursesProbe"
    }

    /// Wide and combining text as the probe writes it, and as a terminal should show it
    /// (the ZWJ sequence cut to its first emoji, as ``DisplayWidth`` does).
    static let wideRow = "wide: 漢字|e\u{301}|😀|👩\u{200D}💻|ok"
    static let wideRowShown = "wide: 漢字|e\u{301}|😀|👩|ok"

    @Test(.enabled(if: CursesProbe.isProbeRun, "runs only inside the tmux tests"))
    func probe() throws {
        try ProbeProgram().run()
    }
}

/// Signals as they arrive, taken by the probe's loop.
private final class SignalInbox: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [TerminalSignal] = []
    func push(_ s: TerminalSignal) { lock.withLock { items.append(s) } }
    func take() -> [TerminalSignal] {
        lock.withLock {
            defer { items = [] }
            return items
        }
    }
}

private struct ProbeProgram {
    func run() throws {
        let inbox = SignalInbox()
        let signals = TerminalSignals(queue: DispatchQueue(label: "curses-probe.signals")) { inbox.push($0) }
        let backend = try CursesBackend(mouse: true)
        defer {
            backend.restore()
            signals.cancel()
        }
        var keys: [String] = []
        var resizes = 0
        var resumes = 0
        var cursor = false
        var mouse = true
        var dirty = true

        loop: while true {
            for signal in inbox.take() {
                switch signal {
                case .resized:
                    backend.handleResize()
                    resizes += 1
                case .suspend:
                    backend.suspend()
                case .resumed:
                    backend.invalidate()
                    resumes += 1
                case .interrupt, .terminate, .hangup:
                    backend.restore()
                    print("probe: ended by \(signal)")
                    exit(0)
                }
                dirty = true
            }
            for key in backend.readKeys() {
                switch key {
                case .char("q"): break loop
                case .char("a"): abort()
                case .char("c"): cursor.toggle()
                case .char("m"): mouse.toggle()
                case .ctrl("z"): backend.suspend()
                default: break
                }
                keys.append(key.description)
                if keys.count > 14 { keys.removeFirst(keys.count - 14) }
                dirty = true
            }
            if dirty {
                let size = backend.size
                var buffer = ScreenBuffer(size: size)
                let colors = backend.colorsEnabled ? "on" : "off"
                buffer.put(
                    "probe ready \(size.width)x\(size.height) colors=\(colors) resizes=\(resizes) resumes=\(resumes)",
                    x: 0, y: 0)
                buffer.put("keys: " + keys.joined(separator: " "), x: 0, y: 1)
                buffer.put(CursesProbe.wideRow, x: 0, y: 2)
                var x = buffer.put("bold", x: 0, y: 3, style: .bold) + 1
                x += buffer.put("reverse", x: x, y: 3, style: .reverse) + 1
                x += buffer.put("red", x: x, y: 3, style: Style(fg: .red)) + 1
                x += buffer.put("dim", x: x, y: 3, style: .dim) + 1
                buffer.put("underline", x: x, y: 3, style: Style(underline: true))
                buffer.put("END", x: size.width - 3, y: size.height - 1)
                backend.draw(Frame(buffer: buffer, cursor: cursor ? (x: 2, y: 4) : nil, mouse: mouse))
                dirty = false
            }
            usleep(5_000)
        }
    }
}
