import Foundation
import TestSupportKit
import Testing

@testable import CoreStackBenchKit

/// Runs every workload at a tiny size: proves the benchmark works and that every contender reads
/// the same data. No timings are checked.
@Test func benchmarkRunsAtTinySize() throws {
    var config = BenchConfig.quick
    config.items = 300
    config.updates = 30
    config.lookups = 30
    config.books = 20
    config.imports = 60
    config.batchSize = 40
    let dir = try TemporaryRoot.folder("bench")
    let runner = try BenchRunner(config: config, directory: dir)
    let report = try runner.run()
    #expect(report.results.map(\.id) == ["1", "2", "3", "4", "5", "6", "6p", "7a", "7b", "8"])
    for r in report.results {
        #expect(!r.notes.contains { $0.contains("MISMATCH") }, "\(r.id): \(r.notes)")
        #expect(r.entries.count >= 4)
        for e in r.entries { #expect(e.medianSeconds > 0, "\(r.id) \(e.contender)") }
    }
    let text = BenchFormat.report(report)
    #expect(text.contains("raw SQLite"))
    let json = try BenchFormat.json(report)
    let back = try JSONDecoder.iso.decode(BenchReport.self, from: json)
    #expect(back.results.count == report.results.count)
}

/// `--sizes`: runs with the peak memory of each run tracked, formatted side by side.
@Test func sizesReportTracksPeakMemoryAndSetsSizesSideBySide() throws {
    var reports: [BenchReport] = []
    for n in [200, 400] {
        var config = BenchConfig.scaled(n: n, runs: 1)
        config.workloads = [1, 2, 8]
        let runner = try BenchRunner(config: config, directory: try TemporaryRoot.folder("bench-sizes"))
        runner.tracksPeakMemory = true
        reports.append(try runner.run())
    }
    // Where the high-water mark can be reset (Linux), every run has its peak.
    if FileManager.default.isWritableFile(atPath: "/proc/self/clear_refs") {
        for r in reports[0].results {
            for e in r.entries { #expect(e.peakGrowthKiB != nil, "\(r.id) \(e.contender)") }
        }
    }
    let text = BenchFormat.sizes(reports)
    #expect(text.contains("| stack | N = 200 | N = 400 |"))
    #expect(text.contains("### 2. Fetch all N items as objects, read every attribute"))
    #expect(text.contains("MiB"))
    #expect(text.components(separatedBy: "\n").filter { $0.hasPrefix("| CoreStack |") }.count == 3)
}

extension JSONDecoder {
    static var iso: JSONDecoder {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .iso8601
        return d
    }
}

/// `--only phases` and `--only frcinsert` at a tiny size: every phase and every controller row is
/// measured (no timings are checked), and the controller takes in every inserted object (the
/// measurement throws otherwise).
@Test func phasesAndControllerInsertsRunAtTinySize() throws {
    let phases = try FetchPhases.measure(count: 200, runs: 1, directory: try TemporaryRoot.folder("bench-phases"))
    #expect(phases.storeFetch > 0 && phases.contextFetch > 0 && phases.sessionClose > 0)
    let rows = try ControllerInsertCost.measure(count: 200, inserts: [1, 20], runs: 1, directory: try TemporaryRoot.folder("bench-frc"))
    #expect(rows.map(\.inserted) == [1, 20, 1, 20])
    #expect(rows.map(\.batched) == [false, false, true, true])
    #expect(rows.allSatisfy { $0.milliseconds > 0 && $0.items == 200 })
}
