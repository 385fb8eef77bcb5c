import CoreStack
import Foundation
import StackScope
import Testing

@Suite("browser: saves from other contexts, resize, wide characters", .serialized)
struct BrowserLiveTests {
    @Test("a save in a worker context shows in the counts, the table (marked) and the saves pane")
    func workerSave() throws {
        let h = try BrowserHarness.demo(open: "Genre")
        let genres = h.state.entities.counts["Genre"] ?? 0
        let rows = h.state.table.objectCount
        let worker = h.session.newChildContext(name: "worker")
        try worker.performAndWait {
            let g = try worker.insertObject(forEntityName: "Genre")
            try g.setValue("Zzz Test Genre", forKey: "name")
            try worker.save()
        }
        let stack = try #require(h.session.stack)
        #expect(stack.waitForPendingSaves(timeout: .now() + 10))
        #expect(h.waitFor("worker"))
        #expect(h.state.entities.counts["Genre"] == genres + 1)
        #expect(h.state.table.objectCount == rows + 1)
        #expect(h.state.table.marks.values.contains { $0.0 == .inserted })
        let log = h.state.saves.entries.map(\.contextName)
        #expect(log.contains("worker"))
        #expect(log.contains("main"))
        #expect(log.contains("root"))
        #expect(h.screen.contains("+1 inserted"))
        // The mark fades after a while.
        h.onMain { h.program.dispatch(.tick(Date().addingTimeInterval(5))) }
        #expect(h.state.table.marks.isEmpty)
    }

    @Test("Enter on a saves line expands its object IDs; c filters by context")
    func savesPane() throws {
        let h = try BrowserHarness.demo(open: "Genre")
        let worker = h.session.newChildContext(name: "worker")
        try worker.performAndWait {
            let g = try worker.insertObject(forEntityName: "Genre")
            try g.setValue("Another", forKey: "name")
            try worker.save()
        }
        _ = h.session.stack?.waitForPendingSaves(timeout: .now() + 10)
        #expect(h.waitFor("root"))
        h.press("Tab Tab")
        #expect(h.state.focus == .saves)
        h.press("g Enter")
        #expect(h.screen.contains("+ x-coredata://"))
        h.press("c")
        #expect(h.state.saves.contextFilter != nil)
        #expect(h.state.saves.visibleIndices.count == 1)
        h.press("c")
        #expect(h.state.saves.contextFilter == nil)
    }

    @Test("Enter on the newest line of a full saves pane shows its expansion in the pane; a newer line after it stays in view")
    func expandLastLine() throws {
        let h = try BrowserHarness.demo(open: "Genre")
        let rows = h.onMain { ScreenLayout(size: h.program.state.size, state: h.program.state).savesRows }
        func log(_ name: String, note: String? = nil, ids: [String] = []) {
            let entry = SaveLogEntry(date: Date(), contextName: name, inserted: ids, updated: [], deleted: [], note: note)
            h.onMain { h.program.dispatch(.saveLogged(entry)) }
            h.waitUntilIdle()
        }
        for i in 0..<(rows + 2) { log("ctx\(i)") }
        let words = (0..<60).map { "word\($0)" }.joined(separator: " ")
        log("store", note: "corrupt: " + words + " the-end-of-the-note")
        h.press("Tab Tab")
        #expect(h.state.focus == .saves)
        h.press("G Enter")
        #expect(h.screen.contains("the-end-of-the-note"))
        #expect(h.line(containing: "store")?.contains("▾") == true)
        // A newer save, followed: its line shows below the expanded one, which scrolls up.
        log("newest", ids: ["x-coredata://X/Genre/p1"])
        #expect(h.state.saves.scroll.selection == rows + 3)
        #expect(h.screen.contains("newest"))
        h.press("Enter")
        #expect(h.screen.contains("+ x-coredata://X/Genre/p1"))
    }

    @Test("R after a change to values only does not claim nothing changed: the counts did not, the values are read again")
    func refreshValuesOnly() throws {
        let h = try BrowserHarness.demo(open: "Genre")
        let id = try #require(h.state.table.selectedID)
        // A context on the coordinator that the browser does not merge from (as another app's would be).
        let other = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: h.session.coordinator, name: "elsewhere")
        try other.performAndWait {
            try other.existingObject(with: id).setValue("Renamed Elsewhere", forKey: "name")
            try other.save()
        }
        h.press("R")
        #expect(h.waitFor("Renamed Elsewhere"))
        let status = h.state.status.message ?? ""
        #expect(!status.contains("nothing changed"), "\(status)")
        #expect(status.contains("counts unchanged"), "\(status)")
        #expect(!h.state.saves.entries.contains { $0.note?.contains("nothing changed") == true })
    }

    @Test("the log keeps the last 1,000 saves")
    func boundedLog() throws {
        var log = SavesLogState()
        for i in 0..<1_050 {
            log.append(SaveLogEntry(date: Date(), contextName: "c\(i)", inserted: [], updated: [], deleted: []))
        }
        #expect(log.entries.count == 1_000)
        #expect(log.entries.first?.contextName == "c50")
        #expect(log.dropped == 50)
    }

    @Test("resizing re-lays out the panes; below the minimum a notice replaces them; nothing crashes at 20×5")
    func resize() throws {
        let h = try BrowserHarness.demo()
        h.resize(Size(width: 80, height: 24))
        #expect(h.lines.count == 24)
        #expect(h.lines.allSatisfy { DisplayWidth.of($0) == 80 })
        #expect(h.screen.contains("Entities"))
        #expect(!h.screen.contains("x-coredata://"))  // detail hidden on narrow terminals
        h.press("v")
        #expect(h.screen.contains("x-coredata://"))
        h.resize(Size(width: 52, height: 12))
        #expect(h.screen.contains("Terminal too small"))
        #expect(h.screen.contains("52×12, need 60×15"))
        h.resize(Size(width: 20, height: 5))
        #expect(h.lines.count == 5)
        h.press("j k G")
        h.resize(Size(width: 1, height: 1))
        h.resize(Size(width: 120, height: 36))
        #expect(h.screen.contains("Entities"))
        #expect(h.state.table.rowCount > 0)
    }

    @Test("CJK, emoji and combining marks keep the columns aligned")
    func wideCharacters() throws {
        let h = try BrowserHarness.demo()
        h.press(":")
        h.type("filter title CONTAINS \"日本\" OR title CONTAINS \"📚\" OR title CONTAINS \"Naïve\"")
        h.press("Enter")
        #expect(h.state.table.objectCount >= 2)
        // Every drawn line is exactly the terminal's width in cells, and the column after the
        // title starts at the same cell on every row.
        let lines = h.lines
        #expect(lines.allSatisfy { DisplayWidth.of($0) == 120 })
        let table = try #require(ScreenLayout(size: h.state.size, state: h.state).table)
        let starts = lines.compactMap { line -> Int? in
            guard let r = line.range(of: "978-") else { return nil }
            let start = DisplayWidth.of(String(line[..<r.lowerBound]))
            return start < table.maxX ? start : nil  // the table's ISBN column, not the detail's
        }
        #expect(starts.count == h.state.table.objectCount)
        #expect(Set(starts).count == 1)
    }

    @Test("R re-reads the store and logs what another coordinator's save changed")
    func refresh() throws {
        let dir = try TestSupport.temporaryDirectory()
        let url = dir.appendingPathComponent("library.sqlite")
        _ = try DemoLibrary.create(at: url, size: 100)
        let session = try BrowserSession.open(storePath: url.path, modelPath: nil, readOnly: true)
        let h = try BrowserHarness(session: session, open: "Genre")
        #expect(h.state.store.readOnly)
        let before = h.state.entities.counts["Genre"] ?? 0
        // Another process's write, as far as this coordinator can tell: a separate coordinator.
        let model = try DemoLibrary.model()
        let other = PersistentStoreCoordinator(managedObjectModel: model)
        try other.addPersistentStore(SQLiteStore(url: url, model: model))
        let writer = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: other, name: "other process")
        try writer.performAndWait {
            let g = try writer.insertObject(forEntityName: "Genre")
            try g.setValue("From elsewhere", forKey: "name")
            try writer.save()
        }
        h.press("R")
        #expect(h.waitFor("Genre \(before) → \(before + 1) (+1)"))
        #expect(h.state.entities.counts["Genre"] == before + 1)
        #expect(h.state.table.objectCount == before + 1)
        // Only the new row is marked, as inserted.
        #expect(h.state.table.marks.count == 1)
        #expect(h.state.table.marks.values.first?.0 == .inserted)
    }

    @Test("a store file deleted or replaced while open: R says so, the browser keeps working")
    func fileDeletedOrReplaced() throws {
        let dir = try TestSupport.temporaryDirectory()
        let url = dir.appendingPathComponent("library.sqlite")
        _ = try DemoLibrary.create(at: url, size: 60)
        let h = try BrowserHarness(session: try BrowserSession.open(storePath: url.path, modelPath: nil, readOnly: true))
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        h.press("R")
        #expect(h.waitUntil { $0.status.message?.contains("was deleted while open") == true })
        #expect(h.screen.contains("was deleted while open") || h.screen.contains("The store file"))
        h.press("G g Enter")
        #expect(h.state.detail.snapshot != nil)
        _ = try DemoLibrary.create(at: url, size: 30)
        h.press("R")
        #expect(h.waitUntil { $0.status.message?.contains("was replaced by another file while open") == true })
    }
}

@Suite("browser: other coordinators' and processes' commits", .serialized)
struct BrowserRemoteChangeTests {
    @Test("a commit from another coordinator on the demo store shows in the saves pane (marked ⇄, with its transaction) and in counts and table")
    func remoteCommit() throws {
        let folder = try TestSupport.temporaryDirectory()
        let url = folder.appendingPathComponent("LocalData.sqlite")
        let h = try BrowserHarness(session: try BrowserSession.demo(storeURL: url, size: 60), open: "Genre")
        let genres = h.state.entities.counts["Genre"] ?? 0
        let rows = h.state.table.objectCount
        // Another coordinator on the same file, as another process would be.
        let model = try DemoLibrary.model()
        let other = PersistentStoreCoordinator(managedObjectModel: model)
        try other.addPersistentStore(SQLiteStore(url: url, model: model, options: PersistentStoreOptions(persistentHistoryTracking: true)))
        let writer = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: other, name: "importer")
        writer.transactionAuthor = "batch-job"
        try writer.performAndWait {
            let g = try writer.insertObject(forEntityName: "Genre")
            try g.setValue("Remote Genre", forKey: "name")
            try writer.save()
        }
        #expect(h.waitUntil { $0.entities.counts["Genre"] == genres + 1 })
        #expect(h.waitUntil { $0.table.objectCount == rows + 1 })
        let entry = try #require(h.state.saves.entries.last { $0.origin == .remote })
        #expect(entry.contextName.contains("batch-job"))
        #expect(entry.inserted.count == 1)
        #expect(entry.note?.contains("transaction") == true)
        #expect(h.screen.contains("▸⇄"))
        #expect(h.waitFor("Remote Genre"))
        // :history lists the store's transactions, the other coordinator's with its author.
        h.press(":")
        h.type("history")
        h.press("Enter")
        guard case let .confirm(c)? = h.state.topModal else {
            Issue.record("no history shown")
            return
        }
        #expect(c.title.hasPrefix("Persistent history of LocalData.sqlite"))
        #expect(c.lines.contains { $0.contains("+1 ~0 −0") && $0.contains("author batch-job") && $0.contains("context importer") })
    }
}
