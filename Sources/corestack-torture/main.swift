// corestack-torture: many processes on one store, the way SQLite tests itself.
//
// Each round makes a new store nobody has open, then starts at the same instant three writers
// (coordinator stacks and an app's PersistentStoreManager, saving one Item at a time and
// acknowledging each save in a log once save() returned), two long-lived readers, short-lived
// openers (a read-only store, a PersistentStoreManager, `stackscope info` and `dump`), and
// `stackscope` browsers in tmux, started two at a time; during the round more openers and
// browsers start in bursts, and writers, readers, openers and browsers are killed with SIGKILL at
// random moments (a killed writer is replaced), with a CPU burner running to widen races. At the
// end every surviving writer and reader checks that it sees every acknowledged commit through
// the stack it kept open, and a fresh `sqlite3` checks that the file holds every acknowledged
// commit and passes `integrity_check`. All the while, every process's open files are watched
// for a deleted `-wal` or `-shm` (/proc/PID/fd). The schedule comes from the seed.
//
//   corestack-torture run [--seed N] [--seconds S] [--round-seconds S] [--stackscope PATH] [--folder DIR] [--keep]
//
// Exit status 0 when nothing failed, 1 with each failure printed, 64 for a usage error.
// The other verbs are the roles the run starts this executable in (Worker.swift).
import Foundation


let arguments = Array(CommandLine.arguments.dropFirst())

func usage() -> Never {
    FileHandle.standardError.write(Data("""
        usage: corestack-torture run [--seed N] [--seconds S] [--round-seconds S] [--stackscope PATH] [--folder DIR] [--keep]

        """.utf8))
    exit(64)
}

func roleMain(_ body: () throws -> Void) -> Never {
    do {
        try body()
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("corestack-torture \(arguments.first ?? ""): \(error)\n".utf8))
        exit(2)
    }
}

guard let verb = arguments.first else { usage() }
switch verb {
case "run":
    var options = Orchestrator.Options(
        folder: FileManager.default.temporaryDirectory.appendingPathComponent("corestack-torture-\(getpid())", isDirectory: true))
    var rest = arguments.dropFirst()
    while let flag = rest.popFirst() {
        if flag == "--keep" { options.keep = true; continue }
        guard let value = rest.popFirst() else { usage() }
        switch flag {
        case "--seed": guard let n = UInt64(value) else { usage() }; options.seed = n
        case "--seconds": guard let n = Double(value), n > 0 else { usage() }; options.seconds = n
        case "--round-seconds": guard let n = Double(value), n > 0 else { usage() }; options.roundSeconds = n
        case "--stackscope": options.stackscope = URL(fileURLWithPath: value).standardizedFileURL.path
        case "--folder": options.folder = URL(fileURLWithPath: value, isDirectory: true)
        default: usage()
        }
    }
    exit(Orchestrator(options: options).run())
case "writer", "reader":
    Worker.parent = getppid()
    guard arguments.count == 5, let kind = Worker.Kind(rawValue: arguments[2]), let seed = UInt64(arguments[4]) else { usage() }
    let url = URL(fileURLWithPath: arguments[3])
    roleMain {
        if verb == "writer" {
            try Worker.writer(name: arguments[1], kind: kind, store: url, seed: seed)
        } else {
            try Worker.reader(name: arguments[1], kind: kind, store: url, seed: seed)
        }
    }
case "opener":
    guard arguments.count == 3, let kind = Worker.Kind(rawValue: arguments[1]) else { usage() }
    roleMain { try Worker.opener(kind: kind, store: URL(fileURLWithPath: arguments[2])) }
case "half-open":
    // A process caught half way through opening a WAL-mode store, as SQLite opens one: it holds a
    // SHARED lock on the store file (SQLite takes it before it looks at the -wal) and has the -shm
    // open, not yet locked. Prints "ready", waits for standard input to close, then prints
    // "kept" when its -shm is still the file at that path, or "deleted" when someone removed it.
    guard arguments.count == 2 else { usage() }
    exit(HalfOpen.run(store: arguments[1]))
case "burn":
    // Keeps one core busy for the given seconds (or until killed), to widen races.
    guard arguments.count == 2, let seconds = Double(arguments[1]) else { usage() }
    let end = Date().addingTimeInterval(seconds)
    let parent = getppid()
    var x: UInt64 = 1
    while Date() < end && getppid() == parent {
        for _ in 0..<1_000_000 { x = x &* 6364136223846793005 &+ 1 }
    }
    exit(x == 0 ? 1 : 0)
default:
    usage()
}
