import Foundation

/// The tree or JSON lines of a decoded value, made only as far as they are shown: `make(budget)`
/// decodes at most `budget` nodes and says where its first line standing for values left out is;
/// the lines before it are final, and when a caller asks for lines past it the budget doubles
/// (up to ``maximum``) and the lines are made again. A keyed archive of 250,000 strings opens on
/// its first 1,000 nodes; `G` or a search makes them all (up to the node bound of
/// ``ValueInspectionLimits``).
///
/// ```swift
/// let lines = GrowingLines(initialBudget: 1_000, maximum: 100_000) { budget in
///     var limits = ValueInspectionLimits()
///     limits.maximumNodes = budget
///     return InspectedValueText.treeLines(ValueInspector.inspect(data, limits: limits))
/// }
/// lines.lines(from: 0, count: 40)  // the first screen, from 1,000 nodes
/// ```
final class GrowingLines: @unchecked Sendable {
    typealias Maker = @Sendable (_ budget: Int) -> (lines: [String], firstTruncated: Int?)

    private let lock = NSLock()
    private let make: Maker
    /// The node bound of the last lines made.
    private var budget: Int
    /// The largest budget: the lines made with it are final, truncation lines included.
    let maximum: Int
    private var made: [String] = []
    /// How many of ``made`` are final (all of them once the budget reached ``maximum`` or nothing was left out).
    private var final = 0
    private var started = false
    /// Whether the last lines made are all final.
    private var finalAll = false

    init(initialBudget: Int, maximum: Int, make: @escaping Maker) {
        self.make = make
        self.maximum = maximum
        budget = min(initialBudget, maximum)
    }

    /// Whether every line is made.
    var isComplete: Bool {
        lock.withLock {
            grow(toward: 0)
            return finalAll
        }
    }

    /// The lines made so far that are final (at least `needed` of them when there are that many).
    func count(ensuring needed: Int) -> Int {
        lock.withLock {
            grow(toward: needed)
            return final
        }
    }

    /// `count` lines from `start` (fewer at the end).
    func lines(from start: Int, count: Int) -> [String] {
        guard start >= 0, count > 0 else { return [] }
        return lock.withLock {
            let (end, overflow) = start.addingReportingOverflow(count)
            grow(toward: overflow ? Int.max : end)
            guard start < final else { return [] }
            return Array(made[start..<min(final, end)])
        }
    }

    /// Every line (the largest budget at most).
    func all() -> [String] {
        lock.withLock {
            grow(toward: Int.max)
            return Array(made.prefix(final))
        }
    }

    /// Makes lines until `needed` are final or all are.
    private func grow(toward needed: Int) {
        if !started {
            started = true
            remake()
        }
        while final < needed, !finalAll, budget < maximum {
            budget = budget > maximum / 2 ? maximum : budget * 2
            remake()
        }
    }

    private func remake() {
        let (lines, truncated) = make(budget)
        made = lines
        if let truncated, budget < maximum {
            final = min(truncated, lines.count)
        } else {
            final = lines.count
            finalAll = true
        }
    }
}
