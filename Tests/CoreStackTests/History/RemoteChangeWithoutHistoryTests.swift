import Foundation
import Testing

@testable import CoreStack

/// Commits the history tables say nothing of, and files replaced under an open store: the
/// remote-change monitor reports both (``RemoteStoreChangeKind``), so an observer can read again.
@Suite("Remote changes without history, and a replaced store file", .serialized)
struct RemoteChangeWithoutHistoryTests {
    @Test("a raw sqlite3 UPDATE of a store that keeps history is reported as commitWithoutHistory, the row cache emptied, and a fetch sees the new value")
    func rawUpdateIsReported() async throws {
        let url = try HistoryStack.newURL()
        let model = try NoteModel.make()
        let a = try HistoryStack(url: url, model: model, name: "a")
        try a.insertNotes(["x", "y"])
        let b = try HistoryStack(url: url, model: model, notifications: true, name: "b")
        #expect(try b.noteTexts() == ["x", "y"])
        #expect(b.coordinator.rowCacheCount == 2)
        let events = Recorder<RemoteStoreChange>()
        let observation = b.coordinator.addRemoteChangeObserver { events.append($0) }
        defer { b.coordinator.removeRemoteChangeObserver(observation) }
        try StoreDamage.sqlite3(url, "UPDATE ZNOTE SET ZTEXT = 'changed' WHERE ZTEXT = 'x'")
        #expect(await eventually(10) { events.count >= 1 })
        #expect(events.values.first?.kind == .commitWithoutHistory)
        #expect(events.values.first?.transactions.isEmpty == true)
        #expect(b.coordinator.rowCacheCount == 0)
        b.context.performAndWait { b.context.reset() }
        #expect(try b.noteTexts() == ["changed", "y"])
    }

    @Test("a raw sqlite3 INSERT that also moves Z_MAX (as Core Data writes rows) is reported, not taken for a key reservation")
    func rawInsertWithZMaxIsReported() async throws {
        let url = try HistoryStack.newURL()
        let model = try NoteModel.make()
        let a = try HistoryStack(url: url, model: model, name: "a")
        try a.insertNotes(["x"])
        let b = try HistoryStack(url: url, model: model, notifications: true, name: "b")
        let events = Recorder<RemoteStoreChange>()
        let observation = b.coordinator.addRemoteChangeObserver { events.append($0) }
        defer { b.coordinator.removeRemoteChangeObserver(observation) }
        let ent = try StoreDamage.sqlite3(url, "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Note'")
        try StoreDamage.sqlite3(url, """
            BEGIN; INSERT INTO ZNOTE (Z_PK, Z_ENT, Z_OPT, ZTEXT) VALUES (100, \(ent), 1, 'raw');
            UPDATE Z_PRIMARYKEY SET Z_MAX = 100 WHERE Z_ENT = \(ent); COMMIT;
            """)
        #expect(await eventually(10) { events.count >= 1 })
        #expect(events.values.first?.kind == .commitWithoutHistory)
        #expect(try b.noteTexts() == ["raw", "x"])
    }

    @Test("another coordinator's saves (each reserving keys in a commit of its own) are reported with their transactions only, never as commits without history")
    func reservationsAreNotReported() async throws {
        let url = try HistoryStack.newURL()
        let model = try NoteModel.make()
        let a = try HistoryStack(url: url, model: model, name: "a")
        let b = try HistoryStack(url: url, model: model, notifications: true, name: "b")
        let events = Recorder<RemoteStoreChange>()
        let observation = b.coordinator.addRemoteChangeObserver { events.append($0) }
        defer { b.coordinator.removeRemoteChangeObserver(observation) }
        let note = try #require(model.entity(named: "Note"))
        for i in 0..<5 {
            // A reservation alone, then a save: the monitor sees the reservation's commit first
            // when a poll falls between them.
            _ = try a.store.newPrimaryKeys(for: note, count: 3)
            try a.insertNotes(["n\(i)"], author: "a")
            #expect(await eventually(10) { events.values.contains { $0.transactions.contains { t in t.changes.count == 1 && t.author == "a" } && events.count >= i + 1 } })
        }
        #expect(await eventually(10) { events.values.flatMap(\.transactions).count == 5 })
        #expect(events.values.allSatisfy { $0.kind == .commit })
    }

    @Test("a damaged key table (text in Z_MAX) makes the key fingerprint a storeCorrupted naming the column, not a trap")
    func damagedKeysAreTypedErrors() throws {
        let url = try HistoryStack.newURL()
        let model = try NoteModel.make()
        let a = try HistoryStack(url: url, model: model, name: "a")
        try a.insertNotes(["x"])
        let ent = try StoreDamage.sqlite3(url, "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Note'")
        try StoreDamage.sqlite3(url, "UPDATE Z_PRIMARYKEY SET Z_MAX = 'many' WHERE Z_ENT = \(ent)")
        // Crashed in GRDB's typed subscript (the monitor reads this after every commit).
        #expect { try StoreKeyFingerprint(a.store) } throws: { error in
            guard case let .storeCorrupted(_, reason) = error as? CoreStackError else { return false }
            return reason.contains("Z_PRIMARYKEY.Z_MAX") && reason.contains("\"many\"")
        }
        #expect(throws: CoreStackError.self) { try a.store.remoteChangeSnapshot(transactionsAfter: 0) }
    }

    @Test("a store file replaced by another (a new inode at the path) and then deleted is reported as fileReplaced, once for each")
    func replacedFileIsReported() async throws {
        let url = try HistoryStack.newURL()
        let model = try NoteModel.make()
        let a = try HistoryStack(url: url, model: model, name: "a")
        try a.insertNotes(["x"])
        let b = try HistoryStack(url: url, model: model, tracking: false, notifications: true, name: "b")
        let events = Recorder<RemoteStoreChange>()
        let observation = b.coordinator.addRemoteChangeObserver { events.append($0) }
        defer { b.coordinator.removeRemoteChangeObserver(observation) }
        // Another process's reset: a new file renamed over the path.
        let copy = url.deletingLastPathComponent().appendingPathComponent("copy.sqlite")
        try StoreDamage.sqlite3(url, "VACUUM INTO '\(copy.path)'")
        #expect(rename(copy.path, url.path) == 0)
        #expect(await eventually(10) { events.count >= 1 })
        #expect(events.values.first?.kind == .fileReplaced)
        #expect(events.values.first?.storeURL == url)
        try FileManager.default.removeItem(at: url)
        #expect(await eventually(10) { events.count >= 2 })
        #expect(events.values.map(\.kind) == [.fileReplaced, .fileReplaced])
    }
}
