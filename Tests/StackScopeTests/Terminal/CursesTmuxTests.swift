import Foundation
import Testing

@testable import StackScope

#if canImport(Glibc)
import Glibc
#endif

/// ``CursesBackend``, ``TerminalSignals`` and ``FatalSignalHandler`` in a real terminal: the
/// ``CursesProbe`` program run from a shell in tmux, then the shell checked for a sane terminal
/// (`stty -a` as before, main screen, cursor on, no mouse or keypad modes left).
@Suite(
    "curses backend in tmux",
    .enabled(if: Tmux.isAvailable, "tmux is not installed"),
    .enabled(if: !CursesProbe.isProbeRun, "this is the probe's own run"))
struct CursesTmuxTests {
    private static let shell = "bash --norc --noprofile"

    /// Starts a shell, waits for its prompt, snapshots stty, starts the probe and waits for it.
    private func startProbe(_ tmux: Tmux, environment: String = "") throws -> SttySnapshot {
        try tmux.waitFor(text: Tmux.prompt)
        let before = try SttySnapshot.take(in: tmux)
        try tmux.sendLine("clear")
        try tmux.sendLine(environment + CursesProbe.command)
        try tmux.waitFor(text: "probe ready", timeout: 60)
        return before
    }

    /// After the probe is gone: the shell prompt is back and the terminal is as it was.
    private func expectRestored(_ tmux: Tmux, before: SttySnapshot, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try tmux.waitFor(format: "#{alternate_on}", toBe: "0")
        try tmux.sendLine("echo shell-is-back")
        try tmux.waitFor(text: "\nshell-is-back")
        #expect(try tmux.terminalModes() == .shell, sourceLocation: sourceLocation)
        let after = try SttySnapshot.take(in: tmux)
        #expect(before.differences(from: after) == [], sourceLocation: sourceLocation)
    }

    @Test("draws wide text and styles, decodes keys and mouse, follows resizes, restores on q")
    func keysResizeAndQuit() throws {
        try Tmux.withSession(Self.shell) { tmux in
            let before = try startProbe(tmux)
            var screen = try tmux.waitFor(text: "probe ready 120x36 colors=on")
            #expect(screen.contains(CursesProbe.wideRowShown))
            let lines = try tmux.lines()
            #expect(lines.count >= 36 && lines[35].hasSuffix("END"))
            var modes = try tmux.terminalModes()
            #expect(modes.alternateScreen && !modes.cursorVisible && modes.mouse && modes.keypad)

            // Styles reach the terminal as SGR attributes and colours.
            let styled = try tmux.capture(escapes: true)
            #expect(styled.contains("\u{1B}[1mbold"))
            #expect(styled.contains("\u{1B}[7mreverse"))
            #expect(styled.contains("\u{1B}[31mred"))
            #expect(styled.contains("\u{1B}[4munderline"))

            try tmux.sendKeys("j", "C-d", "Up", "PageDown", "BTab", "F5")
            try tmux.waitFor(text: "keys: j C-d ↑ PgDn S-Tab F5")
            try tmux.sendKeys("Enter", "BSpace", "Tab", "Home", "End", "DC", "Left", "PageUp")
            try tmux.waitFor(text: "F5 Enter Backspace Tab Home End Del ← PgUp")
            try tmux.sendKeys("Escape")
            try tmux.waitFor(text: "← PgUp Esc")
            try tmux.sendText("é漢")
            try tmux.waitFor(text: "PgUp Esc é 漢")

            // Press, then release once the press is seen: sent back to back on a loaded machine,
            // curses can report only the last of the two events it read in one go.
            try tmux.click(x: 4, y: 2, release: false)
            try tmux.waitFor(text: "mouse(press 4,2)")
            try tmux.sendBytes(Array("\u{1B}[<0;5;3m".utf8))
            try tmux.waitFor(text: "mouse(press 4,2) mouse(release 4,2)")

            try tmux.sendKeys("c")
            try tmux.waitFor(format: "#{cursor_flag}", toBe: "1")
            #expect(try tmux.display("#{cursor_x},#{cursor_y}") == "2,4")
            try tmux.sendKeys("c")
            try tmux.waitFor(format: "#{cursor_flag}", toBe: "0")
            try tmux.sendKeys("m")
            try tmux.waitUntil("mouse off") { _ in try !tmux.terminalModes().mouse }

            try tmux.resize(width: 80, height: 24)
            screen = try tmux.waitFor(text: "probe ready 80x24 colors=on resizes=1")
            let small = try tmux.lines()
            #expect(small.count >= 24 && small[23].hasSuffix("END"))
            #expect(small[0].count <= 80)
            try tmux.resize(width: 120, height: 36)
            try tmux.waitFor(text: "probe ready 120x36 colors=on resizes=2")

            try tmux.sendKeys("q")
            try expectRestored(tmux, before: before)
            modes = try tmux.terminalModes()
            #expect(!modes.alternateScreen)
        }
    }

    @Test("NO_COLOR: attributes only")
    func noColor() throws {
        try Tmux.withSession(Self.shell) { tmux in
            let before = try startProbe(tmux, environment: "NO_COLOR=1 ")
            try tmux.waitFor(text: "colors=off")
            let styled = try tmux.capture(escapes: true)
            #expect(styled.contains("\u{1B}[7mreverse"))
            #expect(!styled.contains("\u{1B}[31m"))
            try tmux.sendKeys("q")
            try expectRestored(tmux, before: before)
        }
    }

    @Test("Ctrl-Z gives the terminal back to the shell and fg repaints")
    func suspendAndResume() throws {
        try Tmux.withSession(Self.shell) { tmux in
            let before = try startProbe(tmux)
            try tmux.sendKeys("C-z")
            try tmux.waitFor(text: "Stopped")
            try tmux.waitFor(format: "#{alternate_on}", toBe: "0")
            #expect(try tmux.terminalModes() == .shell)
            try tmux.sendLine("fg")
            try tmux.waitFor(text: "resumes=1")
            try tmux.waitFor(format: "#{alternate_on}", toBe: "1")
            let screen = try tmux.capture()
            #expect(screen.contains(CursesProbe.wideRowShown))
            #expect(!screen.contains("Stopped"))
            // Still reading keys after the resume.
            try tmux.sendKeys("x")
            try tmux.waitFor(text: "keys: C-z x")
            try tmux.sendKeys("q")
            try expectRestored(tmux, before: before)
        }
    }

    @Test("SIGTERM, SIGHUP and SIGINT restore the terminal", arguments: [SIGTERM, SIGHUP, SIGINT])
    func terminatingSignals(_ signal: Int32) throws {
        try Tmux.withSession(Self.shell) { tmux in
            let before = try startProbe(tmux)
            let pid = try probePID(tmux)
            #expect(kill(pid, signal) == 0)
            try tmux.waitFor(text: "probe: ended by")
            try expectRestored(tmux, before: before)
        }
    }

    @Test("a crash resets the terminal and the Swift backtrace still prints")
    func crash() throws {
        try Tmux.withSession(Self.shell) { tmux in
            let before = try startProbe(tmux, environment: "SWIFT_BACKTRACE=interactive=no ")
            try tmux.sendKeys("a")
            try tmux.waitFor(text: "Aborted", timeout: 120)
            // The Swift backtracer printed (on the main screen, scrolled off it by now).
            let history = try tmux.run(["capture-pane", "-p", "-S", "-", "-t", tmux.target])
            #expect(history.contains("Program crashed: Aborted"))
            try expectRestored(tmux, before: before)
        }
    }

    /// The probe's process id: the deepest descendant of the pane's first process.
    private func probePID(_ tmux: Tmux) throws -> pid_t {
        guard var pid = pid_t(try tmux.display("#{pane_pid}")) else {
            throw TmuxError.timedOut(waitingFor: "the pane's pid", screen: try tmux.capture())
        }
        while let children = try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8),
            let first = children.split(separator: " ").first, let child = pid_t(first)
        {
            pid = child
        }
        return pid
    }
}

/// The harness itself, on a plain shell.
@Suite("tmux harness", .enabled(if: Tmux.isAvailable, "tmux is not installed"))
struct TmuxHarnessTests {
    @Test("runs a shell at 120x36 with TERM and LANG set, types, captures, resizes")
    func smoke() throws {
        try Tmux.withSession("bash --norc --noprofile") { tmux in
            try tmux.waitFor(text: Tmux.prompt)
            try tmux.sendLine("echo \"$TERM $LANG $(tput cols)x$(tput lines)\"")
            try tmux.waitFor(text: "xterm-256color C.UTF-8 120x36")
            try tmux.sendLine("printf '\\033[31mred\\033[0m 漢字\\n'")
            let plain = try tmux.waitFor(text: "red 漢字")
            #expect(!plain.contains("\u{1B}"))
            let coloured = try tmux.capture(escapes: true)
            #expect(coloured.contains("\u{1B}[31mred"))
            try tmux.resize(width: 80, height: 24)
            try tmux.sendLine("clear; echo \"now $(tput cols)x$(tput lines)\"")
            try tmux.waitFor(text: "now 80x24")
        }
    }

    @Test("stty snapshots are equal across a harmless command and see a changed mode")
    func sttySnapshots() throws {
        try Tmux.withSession("bash --norc --noprofile") { tmux in
            try tmux.waitFor(text: Tmux.prompt)
            let first = try SttySnapshot.take(in: tmux)
            #expect(first.settings.contains("icanon") || first.settings.contains("-icanon"))
            try tmux.sendLine("true")
            let second = try SttySnapshot.take(in: tmux)
            #expect(first.differences(from: second) == [])
            try tmux.sendLine("stty -echo")
            let changed = try SttySnapshot.take(in: tmux)
            #expect(first.differences(from: changed) == ["- echo", "+ -echo"])
            try tmux.sendLine("stty echo")
        }
    }
}
