import Foundation
import StackScope
import Testing

/// The progress of `demo create`: one updating line on a terminal, plain lines when piped.
@Suite struct DemoProgressPrinterTests {
    /// A clock the test moves by hand.
    final class Clock: @unchecked Sendable {
        var now: TimeInterval = 100
    }

    @Test("on a terminal: one line rewritten in place (written / total, rate, time left), at most ten times a second, cleared at the end")
    func terminal() {
        let clock = Clock()
        var out = ""
        let printer = DemoProgressPrinter(isTerminal: true, now: { clock.now }) { out += $0 }
        clock.now += 1
        printer.show(DemoProgress(written: 100_000, expectedTotal: 1_000_000))
        #expect(out == "\r\u{1B}[K100,000 / ~1,000,000 objects (10%), 100,000/s, 9 s left")
        clock.now += 0.05
        printer.show(DemoProgress(written: 110_000, expectedTotal: 1_000_000))
        #expect(!out.contains("110,000"), "a tenth of a second has not passed")
        clock.now += 0.95
        printer.show(DemoProgress(written: 500_000, expectedTotal: 1_000_000))
        #expect(out.hasSuffix("\r\u{1B}[K500,000 / ~1,000,000 objects (50%), 250,000/s, 2 s left"))
        #expect(!out.contains("\n"))
        printer.show(DemoProgress(written: 998_000, expectedTotal: 998_000, isFinished: true))
        #expect(out.hasSuffix("2 s left\r\u{1B}[K"), "the line is cleared so the summary prints as before")
    }

    @Test("piped: plain lines at each tenth of the way (or every five seconds), and a last line with the total")
    func piped() {
        let clock = Clock()
        var out = ""
        let printer = DemoProgressPrinter(isTerminal: false, now: { clock.now }) { out += $0 }
        for written in stride(from: 10_000, through: 990_000, by: 10_000) {
            clock.now += 0.01
            printer.show(DemoProgress(written: written, expectedTotal: 1_000_000))
        }
        var lines = out.split(separator: "\n")
        #expect(lines.count == 9, "\(lines)")  // 10 %, 20 %, … 90 %
        #expect(lines.first?.hasPrefix("100,000 / ~1,000,000 objects (10%)") == true)
        #expect(!out.contains("\r") && !out.contains("\u{1B}"))
        clock.now += 6
        printer.show(DemoProgress(written: 991_000, expectedTotal: 1_000_000))
        clock.now += 0.5
        printer.show(DemoProgress(written: 1_000_000, expectedTotal: 1_000_000, isFinished: true))
        lines = out.split(separator: "\n")
        #expect(lines.count == 11)
        #expect(lines.last?.hasPrefix("1,000,000 objects in ") == true)
    }
}
