import CoreStack
import Foundation

extension BenchRunner {
    /// Workload 6p: workload 6 through `#Predicate` in CoreStack's column; the other contenders run
    /// workload 6's query again, so that the ratio to raw SQLite is of the same run.
    func workload6SwiftPredicate(_ prepared: [URL]) throws -> WorkloadResult {
        let rows = config.items / 100
        var result = try measure("6p", "Workload 6 with #Predicate { $0.quantity < 10 } and SortDescriptor(\\.name) (CoreStack; others: workload 6 again)", rows: rows) { i, c, _ in
            let s = try c.open(prepared[i])
            if let session = s as? CoreStackSession {
                return try timed { try session.swiftPredicateFetch(threshold: 10) }
            }
            return try timed { try s.predicateFetch(threshold: 10) }
        }
        result.notes.append("CoreStack builds the request, translating the #Predicate and the key path, on every fetch.")
        result.notes.append(String(format: "Building that request alone (translation included): %.2f µs (median of %d runs of 1,000).", try Self.requestBuildMicroseconds(runs: config.runs), config.runs))
        return result
    }

    /// The median time of building workload 6p's request (translating its predicate and key path), in µs.
    static func requestBuildMicroseconds(runs: Int = 5) throws -> Double {
        var samples: [Double] = []
        for _ in 0..<max(runs, 1) {
            let (t, n) = try timed {
                var built = 0
                for i in 0..<1_000 {
                    let threshold = Int64(i)
                    let request = try FetchRequest<BenchItem>(
                        entityName: "Item", predicate: #Predicate { $0.quantity < threshold },
                        sortDescriptors: [try SortDescriptor(\BenchItem.name)])
                    if request.predicate != nil { built += 1 }
                }
                return built
            }
            if n == 1_000 { samples.append(t / 1_000 * 1_000_000) }
        }
        return BenchFormat.median(samples)
    }
}
