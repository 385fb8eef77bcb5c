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
        let printer = DemoProgressPrinter(isTerminal: true, delay: 0, now: { clock.now }) { out += $0 }
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
        let printer = DemoProgressPrinter(isTerminal: false, delay: 0, now: { clock.now }) { out += $0 }
        for written in stride(from: 10_000, through: 990_000, by: 10_000) {
            clock.now += 0.01
            printer.show(DemoProgress(written: written, expectedTotal: 1_000_000))
        }
        var lines = out.split(separator: "\n")
        #expect(lines.count == 10, "\(lines)")  // the first report, then 10 %, 20 %, … 90 %
        #expect(lines.first?.hasPrefix("10,000 / ~1,000,000 objects (1%)") == true)
        #expect(lines.dropFirst().first?.hasPrefix("100,000 / ~1,000,000 objects (10%)") == true)
        #expect(!out.contains("\r") && !out.contains("\u{1B}"))
        clock.now += 6
        printer.show(DemoProgress(written: 991_000, expectedTotal: 1_000_000))
        clock.now += 0.5
        printer.show(DemoProgress(written: 1_000_000, expectedTotal: 1_000_000, isFinished: true))
        lines = out.split(separator: "\n")
        #expect(lines.count == 12)
        #expect(lines.last?.hasPrefix("1,000,000 objects in ") == true)
    }

    @Test("a run that ends within the delay shows nothing, on a terminal or piped", arguments: [true, false])
    func quietWhenQuick(isTerminal: Bool) {
        let clock = Clock()
        var out = ""
        let printer = DemoProgressPrinter(isTerminal: isTerminal, delay: 1, now: { clock.now }) { out += $0 }
        for written in stride(from: 50, through: 300, by: 50) {
            clock.now += 0.1
            printer.show(DemoProgress(written: written, expectedTotal: 300))
        }
        printer.show(DemoProgress(written: 300, expectedTotal: 300, isFinished: true))
        #expect(out.isEmpty)
        // Past the delay the next report shows at once.
        let later = DemoProgressPrinter(isTerminal: isTerminal, delay: 1, now: { clock.now }) { out += $0 }
        clock.now += 1.5
        later.show(DemoProgress(written: 10, expectedTotal: 300))
        #expect(out.contains("10 / ~300 objects (3%)"))
    }
}
