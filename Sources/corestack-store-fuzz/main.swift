// Fuzzes damaged store files: copies of the real stores in Tests/Fixtures/stores, damaged with a
// fixed seed (bytes, pages, values of the wrong type, schema rows, -wal files), each opened,
// counted, fetched, faulted and saved through CoreStack in a child process with a time limit
// (and read by `stackscope info` / `dump` when --stackscope is given). Reports crashes (a child
// killed by a signal), hangs (over the time limit), changes a read-only use made to the files,
// and errors that are not CoreStackErrors. Exit status 1 when there is any.
//
// Usage: corestack-store-fuzz [--seed N] [--seconds S] [--cases N] [--timeout S]
//                             [--fixtures DIR] [--stackscope PATH] [--case N]
//   e.g. swift run corestack-store-fuzz --seed 1 --seconds 120 --stackscope .build/debug/stackscope
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())

if arguments.first == "--probe" {
    guard arguments.count == 3 else {
        Output.say("usage: corestack-store-fuzz --probe STORE MODEL")
        exit(CaseProbe.Status.usage.rawValue)
    }
    exit(CaseProbe.run(store: URL(fileURLWithPath: arguments[1]), model: URL(fileURLWithPath: arguments[2])).rawValue)
}

func usage(_ message: String) -> Never {
    FileHandle.standardError.write(Data("corestack-store-fuzz: \(message)\nusage: corestack-store-fuzz [--seed N] [--seconds S] [--cases N] [--timeout S] [--fixtures DIR] [--stackscope PATH] [--case N]\n".utf8))
    exit(64)
}

let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
var run = FuzzRun(fixtures: URL(fileURLWithPath: "Tests/Fixtures", isDirectory: true), executable: executable)
var i = 0
while i < arguments.count {
    let flag = arguments[i]
    guard i + 1 < arguments.count else { usage("\(flag) needs a value") }
    let value = arguments[i + 1]
    switch flag {
    case "--seed": run.seed = UInt64(value) ?? { usage("--seed takes a number") }()
    case "--seconds": run.seconds = TimeInterval(value) ?? { usage("--seconds takes a number") }()
    case "--cases": run.maxCases = Int(value) ?? { usage("--cases takes a number") }()
    case "--timeout": run.timeout = TimeInterval(value) ?? { usage("--timeout takes a number") }()
    case "--fixtures": run.fixtures = URL(fileURLWithPath: value, isDirectory: true)
    case "--stackscope": run.stackscope = value
    case "--case": run.onlyCase = Int(value) ?? { usage("--case takes a number") }()
    default: usage("unknown option \(flag)")
    }
    i += 2
}
guard FileManager.default.fileExists(atPath: run.fixtures.appendingPathComponent("stores").path) else {
    usage("no stores under \(run.fixtures.path) (run from the repository, or pass --fixtures)")
}
exit(run.run())
