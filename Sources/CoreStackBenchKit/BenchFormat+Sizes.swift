import Foundation

extension BenchFormat {
    /// What each workload does, in terms of N (its titles carry the numbers of one size).
    static let sizeTitles: [String: String] = [
        "1": "Insert N items (six attributes) and save",
        "2": "Fetch all N items as objects, read every attribute",
        "3": "Fetch all N items in batches of 500, read every attribute",
        "4": "Update N/10 random items (load, change two attributes, save)",
        "5": "Look up N/10 random items by ID in a fresh context (fault fire)",
        "6": "Fetch quantity < 10 sorted by name (N/100 of N), read every attribute",
        "7a": "Insert N/10 books, each with 3 of N/40 authors and 10 ordered chapters, and save (per object: per book)",
        "7b": "Fetch the N/10 books with their authors prefetched (per object: per book)",
        "8": "Stack shoot-out: import N/5 items",
    ]

    /// The cost of one object (row) of a run: ns below 1 µs, else µs.
    static func perObject(_ seconds: Double, rows: Int) -> String {
        guard rows > 0 else { return "–" }
        let ns = seconds * 1e9 / Double(rows)
        return ns < 1000 ? String(format: "%.0f ns", ns) : String(format: "%.2f µs", ns / 1000)
    }

    /// Markdown tables of several runs of the same workloads at different sizes, side by side:
    /// one table per workload, one row per contender, per size the median time, the ratio to raw
    /// SQLite, the time per object and the peak memory the run added
    /// (``BenchEntry/peakGrowthKiB``), plus for workload 8 the longest main-queue stall per 1,000
    /// objects.
    ///
    /// ```swift
    /// let reports = try [10_000, 100_000].map { n in try BenchRunner(config: .scaled(n: n), directory: dir).run() }
    /// print(BenchFormat.sizes(reports))
    /// ```
    public static func sizes(_ reports: [BenchReport]) -> String {
        guard let first = reports.first else { return "" }
        let m = first.machine
        var out = [
            "Machine: \(m.cpuModel), \(m.processors) CPUs, \(m.memoryGiB) GiB, Linux \(m.kernel), SQLite \(m.sqliteVersion)",
            "Sizes N = " + reports.map { grouped(Double($0.config.items)) }.joined(separator: ", ")
                + "; \(first.config.runs) runs per figure (median). Each cell: median time · × raw SQLite · time per object · peak memory the run added (largest over the runs)",
            "",
        ]
        for result in first.results {
            let id = result.id
            out.append("### \(id). \(sizeTitles[id] ?? result.title)")
            out.append("")
            let header = ["stack"] + reports.map { "N = \(grouped(Double($0.config.items)))" }
            out.append("| " + header.joined(separator: " | ") + " |")
            out.append("|---|" + reports.map { _ in "---:" }.joined(separator: "|") + "|")
            for entry in result.entries {
                var cells = [entry.contender]
                for report in reports {
                    guard let r = report.results.first(where: { $0.id == id }),
                        let e = r.entries.first(where: { $0.contender == entry.contender })
                    else {
                        cells.append("–")
                        continue
                    }
                    var parts = [
                        time(e.medianSeconds), e.ratioToRaw.map { String(format: "%.2f×", $0) } ?? "–",
                        perObject(e.medianSeconds, rows: r.rows),
                        e.peakGrowthKiB.map { String(format: "%.1f MiB", Double($0) / 1024) } ?? "–",
                    ]
                    if let stall = e.longestMainQueueStallSeconds { parts.append("stall \(perThousand(stall, rows: r.rows))/1k") }
                    cells.append(parts.joined(separator: " · "))
                }
                out.append("| " + cells.joined(separator: " | ") + " |")
            }
            var seen = Set<String>()
            for report in reports {
                for note in report.results.first(where: { $0.id == id })?.notes ?? [] where note.contains("MISMATCH") && seen.insert(note).inserted {
                    out.append("")
                    out.append("> N = \(report.config.items): \(note)")
                }
            }
            out.append("")
        }
        return out.joined(separator: "\n")
    }
}
