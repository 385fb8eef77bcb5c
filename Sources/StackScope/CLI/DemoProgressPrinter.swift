import Foundation

/// Shows ``DemoProgress`` as `demo create` runs: on a terminal one line that updates in place
/// (objects written of about how many, the rate, the time left), at most ten times a second and
/// cleared at the end; otherwise (piped, redirected) plain lines, one per tenth of the way or every
/// five seconds, whichever comes first.
///
/// ```swift
/// let printer = DemoProgressPrinter(isTerminal: isatty(STDERR_FILENO) == 1) { FileHandle.standardError.write(Data($0.utf8)) }
/// try DemoCommand.create(path: "/tmp/big.sqlite", size: 1_000_000, progress: printer.show)
/// ```
public final class DemoProgressPrinter {
    private let isTerminal: Bool
    private let write: (String) -> Void
    private let now: () -> TimeInterval
    private let start: TimeInterval
    private var lastShown: TimeInterval
    private var lastTenth = 0
    private var lineShown = false

    /// - Parameters:
    ///   - isTerminal: whether `write` goes to a terminal (one updating line) or not (plain lines).
    ///   - now: the clock, in seconds (tests pass their own).
    ///   - write: where the text goes (standard error in the command).
    public init(
        isTerminal: Bool, now: @escaping () -> TimeInterval = { ProcessInfo.processInfo.systemUptime },
        write: @escaping (String) -> Void
    ) {
        self.isTerminal = isTerminal
        self.write = write
        self.now = now
        start = now()
        lastShown = start
    }

    /// Takes one report of ``DemoLibrary/create(at:size:files:progress:)``.
    public func show(_ progress: DemoProgress) {
        let t = now()
        let elapsed = max(t - start, 0.001)
        if isTerminal {
            if progress.isFinished {
                if lineShown { write("\r\u{1B}[K") }
                lineShown = false
                return
            }
            guard t - lastShown >= 0.1 else { return }
            lastShown = t
            lineShown = true
            write("\r\u{1B}[K" + Self.describe(progress, elapsed: elapsed))
            return
        }
        let tenth = Int(progress.fraction * 10)
        guard progress.isFinished || tenth > lastTenth || t - lastShown >= 5 else { return }
        lastTenth = max(lastTenth, tenth)
        lastShown = t
        write(Self.describe(progress, elapsed: elapsed) + "\n")
    }

    /// `412,000 / ~948,000 objects (43%), 61,200/s, 8 s left`; finished: `948,520 objects in 14.2 s, 66,800/s`.
    static func describe(_ progress: DemoProgress, elapsed: TimeInterval) -> String {
        let rate = Double(progress.written) / elapsed
        if progress.isFinished {
            return "\(grouped(progress.written)) objects in \(String(format: "%.1f", elapsed)) s, \(grouped(Int(rate)))/s"
        }
        let percent = Int(progress.fraction * 100)
        var line = "\(grouped(progress.written)) / ~\(grouped(progress.expectedTotal)) objects (\(percent)%), \(grouped(Int(rate)))/s"
        if rate > 0 {
            let left = Double(max(progress.expectedTotal - progress.written, 0)) / rate
            line += ", \(Int(left.rounded(.up))) s left"
        }
        return line
    }

    /// `1234567` → `1,234,567`.
    static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return n < 0 ? "-" + out : out
    }
}
