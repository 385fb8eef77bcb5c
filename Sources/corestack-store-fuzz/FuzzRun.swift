import CoreStack
import Foundation

/// The parent side: makes damaged copies of the fixture stores with a fixed seed and runs each
/// through the framework (and `stackscope info`/`dump`) in a child process with a time limit.
struct FuzzRun {
    var seed: UInt64 = 1
    var maxCases = Int.max
    var seconds: TimeInterval = 120
    var timeout: TimeInterval = 20
    var fixtures: URL
    var stackscope: String?
    /// Run only this case (and keep its files).
    var onlyCase: Int?
    var executable: String

    /// One case that ended badly.
    struct Finding {
        var number: Int
        var kind: String
        var fixture: String
        var mutation: String
        var detail: String
    }

    /// The case's own generator: case `n` is the same whatever ran before it.
    func generator(for n: Int) -> SplitMix64 {
        var g = SplitMix64(state: seed ^ (UInt64(n) &* 0xD1B5_4A32_D192_ED03))
        _ = g.next()
        return g
    }

    func run() -> Int32 {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("corestack-store-fuzz-\(getpid())", isDirectory: true)
        try? FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        var entitiesByModel: [String: [String]] = [:]
        for f in FixtureStore.all where entitiesByModel[f.model] == nil {
            let bundle = try? XcodeModelReader.readBundle(at: fixtures.appendingPathComponent(f.model))
            entitiesByModel[f.model] = bundle?.versions.flatMap { $0.entities.map(\.name) } ?? []
        }
        var findings: [Finding] = []
        var byMutation: [String: Int] = [:]
        var outcomes: [String: Int] = [:]
        let start = Date()
        var n = onlyCase ?? 0
        var ran = 0
        while ran < maxCases, onlyCase != nil || Date().timeIntervalSince(start) < seconds {
            var rng = generator(for: n)
            let fixture = rng.pick(FixtureStore.all)
            let mutation = rng.pick(StoreMutation.allCases)
            let folder = work.appendingPathComponent("case-\(n)", isDirectory: true)
            let scratch = work.appendingPathComponent("scratch-\(n)", isDirectory: true)
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            var described = mutation.rawValue
            var caseFindings: [Finding] = []
            do {
                let url = try fixture.copy(from: fixtures, into: folder)
                do {
                    described = try mutation.apply(to: url, scratch: scratch, fixture: fixture, fixtures: fixtures, rng: &rng)
                } catch {
                    described += " (partly: \(error))"
                }
                try? FileManager.default.removeItem(at: scratch)
                let model = fixtures.appendingPathComponent(fixture.model).path
                func note(_ kind: String, _ detail: String) {
                    caseFindings.append(Finding(number: n, kind: kind, fixture: fixture.fileName, mutation: described, detail: detail))
                }

                // The command line first, on the file as damaged (it must leave it as it found it).
                if let stackscope {
                    let entity = rng.pick(entitiesByModel[fixture.model] ?? ["X"])
                    let before = Snapshot(url)
                    for (label, args) in [
                        ("stackscope info", ["info", url.path, "--model", model]),
                        ("stackscope dump", ["dump", url.path, "--model", model, "--entity", entity, "--limit", "20"]),
                    ] {
                        let log = work.appendingPathComponent("case-\(n).\(label.replacingOccurrences(of: " ", with: "-")).log")
                        switch Subprocess.run(stackscope, args, output: log, timeout: timeout) {
                        case .exited(0), .exited(1): try? FileManager.default.removeItem(at: log)
                        case let .exited(code): note("\(label) exit \(code)", Self.tail(log))
                        case let .signalled(sig): note("crash", "\(label): signal \(sig): " + Self.tail(log))
                        case .timedOut: note("hang", "\(label): over \(Int(timeout)) s")
                        case let .failedToStart(why): note("harness", "\(label): \(why)")
                        }
                    }
                    if let change = before.change(to: Snapshot(url)) { note("file changed", "by stackscope info/dump: \(change)") }
                }

                // The framework, in a child process.
                let log = work.appendingPathComponent("case-\(n).probe.log")
                switch Subprocess.run(executable, ["--probe", url.path, model], output: log, timeout: timeout) {
                case .exited(CaseProbe.Status.ok.rawValue): try? FileManager.default.removeItem(at: log)
                case .exited(CaseProbe.Status.fileChanged.rawValue): note("file changed", Self.tail(log))
                case .exited(CaseProbe.Status.untypedError.rawValue): note("untyped error", Self.tail(log))
                case let .exited(code): note("probe exit \(code)", Self.tail(log))
                case let .signalled(sig): note("crash", "signal \(sig): " + Self.tail(log))
                case .timedOut: note("hang", "over \(Int(timeout)) s")
                case let .failedToStart(why): note("harness", why)
                }
            } catch {
                caseFindings.append(Finding(number: n, kind: "harness", fixture: fixture.fileName, mutation: described, detail: "\(error)"))
            }
            byMutation[mutation.rawValue, default: 0] += 1
            for f in caseFindings { outcomes[f.kind, default: 0] += 1 }
            if caseFindings.isEmpty && onlyCase == nil { try? FileManager.default.removeItem(at: folder) }
            for f in caseFindings {
                Output.say("case \(f.number) [\(f.fixture), \(f.mutation)]: \(f.kind): \(f.detail)")
            }
            findings += caseFindings
            ran += 1
            n += 1
            if onlyCase != nil { break }
            if ran % 100 == 0 {
                Output.say("… \(ran) cases, \(findings.count) findings, \(Int(Date().timeIntervalSince(start))) s")
            }
        }
        let elapsed = Date().timeIntervalSince(start)
        let crashes = findings.filter { $0.kind == "crash" }.count
        let hangs = findings.filter { $0.kind == "hang" }.count
        Output.say("corestack-store-fuzz: seed \(seed), \(ran) cases in \(Int(elapsed)) s"
            + (stackscope == nil ? " (framework only)" : " (framework and stackscope info/dump)"))
        Output.say("  mutations: " + byMutation.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        Output.say("  crashes \(crashes), hangs \(hangs), other findings \(findings.count - crashes - hangs)"
            + (outcomes.isEmpty ? "" : " (" + outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"))
        if findings.isEmpty && onlyCase == nil {
            try? FileManager.default.removeItem(at: work)
        } else {
            Output.say("  files of the cases with findings: \(work.path) (rerun one with --case N --seed \(seed))")
        }
        return findings.isEmpty ? 0 : 1
    }

    /// The last lines of a log.
    static func tail(_ url: URL) -> String {
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n").suffix(3).joined(separator: " | ")
        return lines.count > 400 ? String(lines.suffix(400)) : lines
    }
}
