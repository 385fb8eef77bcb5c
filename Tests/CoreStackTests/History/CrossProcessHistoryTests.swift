import Foundation
import Testing
@testable import CoreStack

/// A running `corestack-history-probe` child process.
final class HistoryProbe: ProbeProcess, @unchecked Sendable {
    init(_ arguments: [String]) throws {
        try super.init(named: "corestack-history-probe", arguments: arguments)
    }

    /// Runs the probe to its end; true when it exited with status 0.
    static func run(_ arguments: [String]) async throws -> (ok: Bool, text: String) {
        let probe = try HistoryProbe(arguments)
        let ended = await probe.waitUntilExit()
        try await Task.sleep(nanoseconds: 50_000_000)
        return (ended && probe.process.terminationStatus == 0, probe.text)
    }
}

@Suite("Persistent history across processes (corestack-history-probe)", .serialized)
struct CrossProcessHistoryTests {
    @Test("process A saves; B (this process) is notified and its auto-merging FRC shows the notes, authored by A's process")
    func otherProcessSaveReachesFRC() async throws {
        let url = try HistoryStack.newURL()
        let b = try HistoryStack(url: url, model: try NoteModel.make(), notifications: true, name: "b")
        b.context.automaticallyMergesChangesFromParent = true
        let log = FRCLog()
        let controller = FetchedResultsController(
            fetchRequest: FetchRequest<ManagedObject>(entityName: "Note", sortDescriptors: [SortDescriptor("text")]), context: b.context)
        controller.delegate = log
        try b.context.performAndWait { try controller.performFetch() }
        let events = Recorder<RemoteStoreChange>()
        let observation = b.coordinator.addRemoteChangeObserver { events.append($0) }
        let run = try await HistoryProbe.run([url.path, "insert", "2", "remote", "probe-author"])
        #expect(run.ok, "\(run.text)")
        #expect(await eventually(10) { log.last == ["remote-0", "remote-1"] })
        let t = try #require(events.values.first?.transactions.first)
        #expect(t.author == "probe-author")
        #expect(t.contextName == "probe")
        #expect(t.bundleID == "corestack-history-probe")
        #expect(t.processID != String(ProcessInfo.processInfo.processIdentifier))
        #expect(t.changes.count == 2)
        _ = observation
    }

    @Test("this process saves; the probe's auto-merging FRC shows it")
    func thisProcessSaveReachesOtherFRC() async throws {
        let url = try HistoryStack.newURL()
        let a = try HistoryStack(url: url, model: try NoteModel.make(), name: "a")
        try a.insertNotes(["first"])
        let watcher = try HistoryProbe([url.path, "watch"])
        defer { watcher.process.terminate() }
        #expect(await watcher.waitFor("ready"), "\(watcher.text)")
        try a.insertNotes(["second"])
        #expect(await watcher.waitFor("frc 2 first,second"), "\(watcher.text)")
    }

    @Test("optimistic locking across processes: the probe changed the note since this context read it", arguments: [
        "error", "overwrite", "object", "store", "rollback",
    ])
    func conflictAcrossProcesses(policy: String) async throws {
        let url = try HistoryStack.newURL()
        let a = try HistoryStack(url: url, model: try NoteModel.make(), name: "a")
        try a.insertNotes(["start"])
        let note = try a.context.performAndWait {
            let n = try #require(try a.context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).first)
            _ = try n.value(forKey: "text")
            return n
        }
        let run = try await HistoryProbe.run([url.path, "set", "start", "theirs", "error"])
        #expect(run.ok, "\(run.text)")
        a.context.mergePolicy =
            switch policy {
            case "overwrite": .overwrite
            case "object": .mergeByPropertyObjectTrump
            case "store": .mergeByPropertyStoreTrump
            case "rollback": .rollback
            default: .error
            }
        let outcome: Result<Void, any Error> = a.context.performAndWait {
            Result {
                try note.setValue("ours", forKey: "text")
                try a.context.save()
            }
        }
        let stored = try RawSQLite.run("SELECT ZTEXT, Z_OPT FROM ZNOTE", in: url).first
        switch policy {
        case "error":
            guard case let .failure(error) = outcome, case CoreStackError.mergeConflict = error else {
                Issue.record("expected a merge conflict, got \(outcome)")
                return
            }
            #expect(stored?["ZTEXT"] as? String == "theirs")
        case "overwrite", "object":
            #expect((try? outcome.get()) != nil)
            #expect(stored?["ZTEXT"] as? String == "ours")
            #expect(stored?["Z_OPT"] as? Int == 3)
        default:
            #expect((try? outcome.get()) != nil)
            #expect(stored?["ZTEXT"] as? String == "theirs")
            a.context.performAndWait { #expect((try? note.value(forKey: "text") as? String) == "theirs") }
        }
    }

    @Test("kill -9 of a writer mid-save: this process carries on and the store passes integrity_check")
    func killedWriter() throws {
        let url = try HistoryStack.newURL()
        let a = try HistoryStack(url: url, model: try NoteModel.make(), name: "a")
        try a.insertNotes(["before"])
        let probe = try HistoryProbe([url.path, "bigsave", "200000"])
        // Blocking waits, no `await`: the probe's save takes seconds, but an awaiting test can
        // resume later still when the full suite keeps the cooperative pool busy, and then found
        // the save done ("make it bigger").
        #expect(probe.waitForBlocking("saving"), "\(probe.text)")
        usleep(100_000)
        // A reader here is not blocked by the writer there (WAL): it reads before the probe's save ends.
        #expect(try a.noteTexts() == ["before"])
        #expect(!probe.text.contains("saved"))
        #expect(kill(probe.process.processIdentifier, SIGKILL) == 0)
        #expect(probe.waitUntilExitBlocking())
        #expect(!probe.text.contains("saved"), "the save finished before the kill; make it bigger")
        try a.insertNotes(["after"])
        #expect(try a.noteTexts() == ["after", "before"])
        #expect(try RawSQLite.run("PRAGMA integrity_check", in: url).first?["integrity_check"] as? String == "ok")
        #expect(try a.history().map(\.author).count == 2)
    }

    @Test("two processes and this one writing at once: no 'database is locked', no save lost, history counts every one")
    func concurrentWriters() async throws {
        let url = try HistoryStack.newURL()
        let a = try HistoryStack(url: url, model: try NoteModel.make(), name: "a")
        try a.insertNotes(["seed"])
        let p1 = try HistoryProbe([url.path, "loop", "100", "0"])
        let p2 = try HistoryProbe([url.path, "loop", "100", "0"])
        for i in 0..<50 { try a.insertNotes(["local-\(i)"]) }
        #expect(await p1.waitUntilExit())
        #expect(await p2.waitUntilExit())
        #expect(p1.process.terminationStatus == 0, "\(p1.text)")
        #expect(p2.process.terminationStatus == 0, "\(p2.text)")
        #expect(!(p1.text + p2.text).contains("locked"))
        #expect(try RawSQLite.scalar("SELECT COUNT(*) FROM ZNOTE", in: url) == 251)
        #expect(try a.history().count == 251)
        #expect(try RawSQLite.run("PRAGMA integrity_check", in: url).first?["integrity_check"] as? String == "ok")
    }
}
