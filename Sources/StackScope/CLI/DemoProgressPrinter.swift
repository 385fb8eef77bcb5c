import Foundation

/// Shows ``DemoProgress`` as `demo create` runs: on a terminal one line that updates in place
/// (objects written of about how many, the rate, the time left), at most ten times a second and
/// cleared at the end; otherwise (piped, redirected) plain lines, one per tenth of the way or every
/// five seconds, whichever comes first. Nothing is shown before `delay` has passed, so a quick
/// run (the default size) prints nothing extra.
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
    private let delay: TimeInterval
    /// Whether anything was written (a terminal line to clear, plain lines to finish).
    private var shownAny = false

    /// - Parameters:
    ///   - isTerminal: whether `write` goes to a terminal (one updating line) or not (plain lines).
    ///   - delay: seconds of silence first; a run that ends sooner shows nothing.
    ///   - now: the clock, in seconds (tests pass their own).
    ///   - write: where the text goes (standard error in the command).
    public init(
        isTerminal: Bool, delay: TimeInterval = 1,
        now: @escaping () -> TimeInterval = { ProcessInfo.processInfo.systemUptime },
        write: @escaping (String) -> Void
    ) {
        self.isTerminal = isTerminal
        self.delay = delay
        self.write = write
        self.now = now
        start = now()
        lastShown = start
    }

    /// Takes one report of ``DemoLibrary/create(at:size:files:progress:)``.
    public func show(_ progress: DemoProgress) {
        let t = now()
        let elapsed = max(t - start, 0.001)
        if progress.isFinished {
            if shownAny { write(isTerminal ? "\r\u{1B}[K" : Self.describe(progress, elapsed: elapsed) + "\n") }
            shownAny = false
            return
        }
        guard elapsed >= delay else { return }
        if isTerminal {
            guard t - lastShown >= 0.1 || !shownAny else { return }
            lastShown = t
            shownAny = true
            write("\r\u{1B}[K" + Self.describe(progress, elapsed: elapsed))
            return
        }
        let tenth = Int(progress.fraction * 10)
        guard tenth > lastTenth || t - lastShown >= 5 || !shownAny else { return }
        lastTenth = max(lastTenth, tenth)
        lastShown = t
        shownAny = true
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
