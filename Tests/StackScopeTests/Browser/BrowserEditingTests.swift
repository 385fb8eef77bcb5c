import CoreStack
import Foundation
import StackScope
import Testing

/// Editing in scratch contexts, as a person does it: keys in, the screen and the store file read back.
@Suite("browser: editing in scratch contexts", .serialized)
struct BrowserEditingTests {
    /// The browser on a demo library in a real SQLite file, writable.
    static func fileHarness(open entity: String = "Book", size: Int = 120) throws -> (BrowserHarness, URL) {
        let (url, _) = try TestSupport.demoStore(size: size)
        let session = try BrowserSession.open(storePath: url.path, modelPath: nil, readOnly: false)
        return (try BrowserHarness(session: session, open: entity), url)
    }

    /// A value straight from the file, through a second coordinator of its own.
    static func onDisk(_ url: URL, _ id: ManagedObjectID, _ key: String) throws -> AttributeValue {
        let model = try DemoLibrary.model()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(SQLiteStore(url: url, model: model, readOnly: true))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        return try context.performAndWait {
            let uri = id.uriRepresentation()
            guard let other = coordinator.managedObjectID(forURIRepresentation: uri) else { throw BrowserError.noTable }
            return try context.existingObject(with: other).attributeValue(forKey: key)
        }
    }

    static func sqlite(_ url: URL, _ sql: String) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        p.arguments = [url.path, sql]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        p.waitUntilExit()
        return String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Edits the selected cell (after moving with `keys`): clears it, types `text`, Enter.
    func edit(_ h: BrowserHarness, _ text: String, after keys: String = "") {
        if !keys.isEmpty { h.press(keys) }
        h.press("e C-u")
        h.type(text)
        h.press("Enter")
    }

    func command(_ h: BrowserHarness, _ line: String) {
        h.press(":")
        h.type(line)
        h.press("Enter")
    }

    @Test("e edits a cell in a scratch child; the save preview shows old → new; y writes it to disk through main and root")
    func editAndSave() throws {
        let (h, url) = try Self.fileHarness()
        let id = try #require(h.state.table.selectedID)
        let before = try Self.onDisk(url, id, "title")
        h.press("e")
        #expect(h.state.currentContext == "scratch-1")
        guard case let .editor(e)? = h.state.topModal else {
            Issue.record("no editor open")
            return
        }
        #expect(e.field.key == "title")
        #expect(h.screen.contains("String · required"))
        h.press("C-u")
        h.type("Edited Title")
        h.press("Enter")
        #expect(h.state.topModal == nil)
        #expect(h.state.pendingChanges.updated == 1)
        #expect(h.screen.contains("ctx scratch-1 (child)"))
        #expect(h.screen.contains("in scratch-1"))
        // The row is marked changed; the main context has not changed.
        #expect(h.lines.contains { $0.contains("│~ Edited Title") })
        // Once the save mark fades, the row keeps a * for its unsaved change.
        h.onMain { h.program.dispatch(.tick(Date().addingTimeInterval(5))) }
        #expect(h.lines.contains { $0.contains("│* Edited Title") })
        #expect(try Self.onDisk(url, id, "title") == before)
        h.press("W")
        guard case let .confirm(c)? = h.state.topModal else {
            Issue.record("no save preview")
            return
        }
        #expect(c.title == "Save scratch-1?")
        #expect(c.lines.contains { $0.contains("title: \(ValueFormatter.cell(before)) → Edited Title") })
        h.press("y")
        #expect(h.waitUntil { $0.pendingChanges.total == 0 })
        #expect(try Self.onDisk(url, id, "title") == .string("Edited Title"))
        let pk = id.uriRepresentation().lastPathComponent.dropFirst()
        #expect(try Self.sqlite(url, "SELECT ZTITLE FROM ZBOOK WHERE Z_PK = \(pk)") == "Edited Title")
        // Each level's did-save is in the saves pane: the scratch context, main, root.
        #expect(h.waitUntil { s in ["scratch-1", "main", "root"].allSatisfy { n in s.saves.entries.contains { $0.contextName == n } } })
    }

    @Test("a value the model or the type refuses stays in the editor with the reason; Esc changes nothing")
    func refusedValue() throws {
        let (h, _) = try Self.fileHarness()
        h.press("l l")  // title, isbn, pages
        #expect(h.state.table.columns[h.state.table.selectedColumn].name == "pages")
        edit(h, "0")
        guard case let .editor(e)? = h.state.topModal else {
            Issue.record("the editor closed on a refused value")
            return
        }
        #expect(e.error?.contains("below the minimum 1") == true)
        #expect(h.screen.contains("✗"))
        h.press("C-u")
        h.type("lots")
        h.press("Enter")
        guard case let .editor(e2)? = h.state.topModal else { return }
        #expect(e2.error?.contains("not a number") == true)
        h.press("C-u")
        h.type("70000")
        h.press("Enter")
        #expect(h.screen.contains("10000"))
        h.press("Esc")
        #expect(h.state.topModal == nil)
        #expect(h.state.pendingChanges.total == 0)
    }

    @Test(":discard shows the changes and drops them")
    func discard() throws {
        let (h, url) = try Self.fileHarness()
        let id = try #require(h.state.table.selectedID)
        let before = try Self.onDisk(url, id, "title")
        edit(h, "Throw Away")
        #expect(h.state.pendingChanges.updated == 1)
        command(h, "discard")
        guard case let .confirm(c)? = h.state.topModal else {
            Issue.record("no discard preview")
            return
        }
        #expect(c.lines.contains { $0.contains("→ Throw Away") })
        h.press("y")
        #expect(h.state.pendingChanges.total == 0)
        #expect(h.state.status.message == "Discarded 1 changed object in scratch-1")
        #expect(!h.screen.contains("Throw Away"))
        #expect(try Self.onDisk(url, id, "title") == before)
    }

    @Test("a inserts with the required values asked for; the save writes it")
    func insert() throws {
        let (h, url) = try Self.fileHarness(open: "Genre")
        let genres = h.state.entities.counts["Genre"] ?? 0
        h.press("a")
        guard case let .editor(e)? = h.state.topModal else {
            Issue.record("no editor for the required name")
            return
        }
        #expect(e.field.key == "name")
        h.press("Esc")  // no name: the save refuses it
        #expect(h.state.pendingChanges.inserted == 1)
        // Esc does not say "nothing changed": the new object stays, without the value.
        let status = h.state.status.message ?? ""
        #expect(!status.contains("nothing changed"), "\(status)")
        #expect(status.contains("new Genre stays") && status.contains("name"), "\(status)")
        h.press("W y")
        #expect(h.state.status.message?.contains("a value is required") == true, "\(h.state.status.message ?? "")")
        #expect(h.state.pendingChanges.inserted == 1)
        h.press("e")
        h.type("Poetry")
        h.press("Enter")
        #expect(h.state.topModal == nil)
        h.press("W y")
        #expect(h.waitUntil { $0.entities.counts["Genre"] == genres + 1 })
        #expect(try Self.sqlite(url, "SELECT COUNT(*) FROM ZGENRE WHERE ZNAME = 'Poetry'") == "1")
    }

    @Test("d lists what cascades; deny refuses with the relationship named")
    func deleteRules() throws {
        let (h, url) = try Self.fileHarness()
        let id = try #require(h.state.table.selectedID)
        h.press("d")
        guard case let .confirm(c)? = h.state.topModal else {
            Issue.record("no delete confirmation")
            return
        }
        #expect(c.lines.contains { $0.hasPrefix("Cascade: also deletes") })
        #expect(c.lines.contains { $0.hasPrefix("Nullify:") })
        h.press("y")
        #expect(h.state.pendingChanges.deleted > 1)
        h.press("W y")
        #expect(h.waitUntil { $0.pendingChanges.total == 0 })
        #expect(h.state.topModal == nil, "\(h.screen)")
        let pk = id.uriRepresentation().lastPathComponent.dropFirst()
        #expect(try Self.sqlite(url, "SELECT COUNT(*) FROM ZBOOK WHERE Z_PK = \(pk)") == "0")
        #expect(try Self.sqlite(url, "SELECT COUNT(*) FROM ZCHAPTER WHERE ZBOOK = \(pk)") == "0")
        // A publisher with books: the deny rule refuses.
        command(h, "entity Publisher")
        #expect(h.state.table.entityName == "Publisher", "\(h.screen)")
        h.press("d")
        guard case let .confirm(deny)? = h.state.topModal else {
            Issue.record("no refusal")
            return
        }
        #expect(deny.title.hasPrefix("Cannot delete"))
        #expect(deny.lines.contains { $0.hasPrefix("Deny:") && $0.contains(".books") })
        h.press("Enter")
        #expect(h.state.pendingChanges.deleted == 0)
    }

    @Test("e on a to-one relationship picks the object to link from a table; x unlinks")
    func link() throws {
        let (h, _) = try Self.fileHarness()
        h.press("Enter")  // the detail
        let props = try #require(h.state.detail.snapshot?.properties)
        let row = try #require(props.firstIndex { $0.name == "publisher" })
        h.press("g")
        for _ in 0..<row { h.press("j") }
        let before = props[row].value
        h.press("e")
        #expect(h.state.picking?.key == "publisher")
        #expect(h.screen.contains("Pick a Publisher"))
        h.press("G Enter")
        #expect(h.state.picking == nil)
        #expect(h.waitUntil { s in s.detail.snapshot?.properties.first { $0.name == "publisher" }.map { $0.changed && $0.value != before } == true })
        #expect(h.state.focus == .detail)
        #expect(h.state.detail.snapshot?.properties[h.state.detail.scroll.selection].name == "publisher")
        h.press("x")
        #expect(h.waitUntil { s in s.detail.snapshot?.properties.first { $0.name == "publisher" }?.value == "nil" }, "\(h.screen)")
    }

    @Test("e on an ordered to-many (Book.chapters) picks a chapter and appends it: saved, it is the book's last chapter in the file; x in the relationship's table unlinks one")
    func linkOrderedToMany() throws {
        let (h, url) = try Self.fileHarness()
        h.press("Enter")  // the detail
        let snapshot = try #require(h.state.detail.snapshot)
        let pk = String(snapshot.objectID.uriRepresentation().lastPathComponent.dropFirst())  // "p12" → "12"
        let chapters = { try Self.sqlite(url, "SELECT Z_PK FROM ZCHAPTER WHERE ZBOOK = \(pk) ORDER BY Z_FOK_BOOK") }
        let before = try chapters().split(separator: "\n").map(String.init)
        #expect(!before.isEmpty)
        let row = try #require(snapshot.properties.firstIndex { $0.name == "chapters" })
        h.press("g")
        for _ in 0..<row { h.press("j") }
        let shown = snapshot.properties[row].value
        h.press("e")
        #expect(h.state.picking?.key == "chapters")
        #expect(h.screen.contains("Pick a Chapter"))
        h.press("G Enter")
        #expect(h.waitUntil { s in s.detail.snapshot?.properties.first { $0.name == "chapters" }.map { $0.changed && $0.value != shown } == true })
        h.press("W y")
        #expect(h.waitUntil { $0.contexts.allSatisfy { $0.pending.total == 0 } })
        let after = try chapters().split(separator: "\n").map(String.init)
        #expect(after.count == before.count + 1, "one chapter more on disk: \(before) → \(after)")
        #expect(Array(after.dropLast()) == before, "the old chapters keep their order")
        #expect(!(after.last.map(before.contains) ?? true), "the picked chapter comes last")

        // Follow chapters into its table, unlink the selected chapter, save.
        h.press("Enter")
        #expect(h.waitUntil { if case .relationship = $0.table.source { true } else { false } })
        for _ in 0..<4 where h.state.focus != .table { h.press("Tab") }
        #expect(h.state.focus == .table)
        h.press("x")
        h.press("W y")
        #expect(h.waitUntil { $0.contexts.allSatisfy { $0.pending.total == 0 } })
        #expect(try chapters().split(separator: "\n").count == before.count, "one chapter unlinked on disk")
    }

    @Test("two child contexts save the same object one after the other: the screen names what the second replaced")
    func twoChildren() throws {
        let (h, _) = try Self.fileHarness()
        command(h, "ctx new child")
        edit(h, "From One")
        command(h, "ctx new child")
        #expect(h.state.currentContext == "scratch-2")
        edit(h, "From Two")
        command(h, "ctx scratch-1")
        h.press("W y")
        #expect(h.waitUntil { $0.contexts.first { $0.name == "scratch-1" }?.pending.total == 0 })
        command(h, "ctx scratch-2")
        h.press("W y")
        #expect(h.waitUntil { if case .confirm = $0.topModal { true } else { false } })
        guard case let .confirm(c)? = h.state.topModal else { return }
        #expect(c.lines.contains { $0.contains("no merge policy runs here") })
        #expect(c.lines.contains { $0.contains(".title: read") && $0.contains("main had From One, now From Two (scratch-2 won)") })
    }

    @Test("--read-only: every edit key says why it is refused; nothing is written")
    func readOnly() throws {
        let (url, _) = try TestSupport.demoStore(size: 60)
        let sum = try TestSupport.checksum(url)
        let h = try BrowserHarness(session: try BrowserSession.open(storePath: url.path, modelPath: nil, readOnly: true), open: "Book")
        for key in ["e", "a", "d", "x", "W"] {
            h.press(key)
            #expect(h.state.topModal == nil)
            #expect(h.state.status.message?.hasPrefix("Read-only:") == true, "\(key)")
        }
        #expect(h.state.currentContext == "main")
        #expect(try TestSupport.checksum(url) == sum)
    }

    @Test(":reset asks with the object count, then every pane starts again on an empty store")
    func reset() throws {
        let (h, _) = try Self.fileHarness()
        command(h, "reset")
        guard case let .confirm(c)? = h.state.topModal else {
            Issue.record("no reset confirmation")
            return
        }
        #expect(c.lines.contains { $0.contains("objects in all") })
        h.press("y")
        #expect(h.waitUntil { $0.entities.counts["Book"] == 0 && $0.busy == nil })
        #expect(h.state.saves.entries.contains { $0.origin == .event && $0.note?.contains("resetStore") == true })
    }

    @Test("the saves pane's line for a reset carries the time of the reset, not of the last timer tick")
    func resetLineTime() throws {
        let model = try DemoLibrary.model()
        let session = try BrowserSession.stack(over: InMemoryStore(model: model))
        let clock = TestClock(Date(timeIntervalSinceReferenceDate: 1_000_000))
        let h = try BrowserHarness(session: session, open: "Book", clock: { clock.now })
        // Idle: no timer runs, so nothing but the program's own clock reading sees this time.
        clock.now = Date(timeIntervalSinceReferenceDate: 1_000_600)
        command(h, "reset")
        h.press("y")
        #expect(h.waitUntil { s in s.saves.entries.contains { $0.origin == .event } && s.busy == nil })
        let entry = try #require(h.state.saves.entries.last { $0.origin == .event })
        #expect(entry.date == clock.now)
    }

    @Test(":reseed on a store that holds objects asks first (it adds a second library beside them); n leaves it as it was")
    func reseedAsksWhenNotEmpty() throws {
        let folder = try TestSupport.temporaryDirectory()
        let session = try BrowserSession.demo(storeURL: folder.appendingPathComponent("LocalData.sqlite"), size: 60)
        let h = try BrowserHarness(session: session, open: "Book")
        let books = try #require(h.state.entities.counts["Book"])
        #expect(books > 0)
        command(h, "reseed")
        guard case let .confirm(c)? = h.state.topModal else {
            Issue.record("no question before adding a second library: \(String(describing: h.state.topModal))")
            return
        }
        #expect(c.lines.joined(separator: " ").contains("already holds"))
        #expect(h.state.busy == nil)
        h.press("n")
        h.waitUntilIdle()
        #expect(h.state.topModal == nil)
        #expect(h.state.busy == nil)
        #expect(h.state.entities.counts["Book"] == books)
        // y adds it.
        command(h, "reseed")
        h.press("y")
        #expect(h.waitUntil(timeout: 30) { ($0.entities.counts["Book"] ?? 0) > books && $0.busy == nil })
    }

    @Test("a delete saved by a sibling context cascades to objects the main context never read: their entity's count follows")
    func siblingCascadeCounts() throws {
        let h = try BrowserHarness.demo(open: "Book")
        let chapters = try #require(h.state.entities.counts["Chapter"])
        let books = try #require(h.state.entities.counts["Book"])
        command(h, "ctx new sibling")
        #expect(h.state.currentContext == "scratch-1")
        let book = try #require(h.state.table.selectedID)
        let owned: Int = try h.onMain {
            let main = h.session.mainContext
            return try main.performAndWait { try main.existingObject(with: book).objectIDs(forRelationshipNamed: "chapters").count }
        }
        #expect(owned > 0)
        h.press("d")
        h.press("y")
        h.press("W")
        h.press("y")
        #expect(h.waitUntil { $0.entities.counts["Book"] == books - 1 })
        #expect(h.state.entities.counts["Chapter"] == chapters - owned)
    }

    @Test("a save from a context on its own coordinator is recorded in the store's history, like every other save, so other processes see it")
    func coordinatorContextKeepsHistory() throws {
        let folder = try TestSupport.temporaryDirectory()
        let url = folder.appendingPathComponent("LocalData.sqlite")
        let session = try BrowserSession.demo(storeURL: url, size: 30)
        let h = try BrowserHarness(session: session, open: "Book")
        let before = Int(try Self.sqlite(url, "SELECT COUNT(*) FROM ATRANSACTION")) ?? -1
        #expect(before >= 1)
        command(h, "ctx new coordinator")
        #expect(h.state.currentContextInfo?.kind == .coordinator)
        edit(h, "Saved Through Its Own Coordinator")
        h.press("W")
        h.press("y")
        #expect(h.waitUntil { $0.pendingChanges.total == 0 && $0.status.message?.hasPrefix("Saved") == true })
        #expect(try Self.sqlite(url, "SELECT COUNT(*) FROM ZBOOK WHERE ZTITLE = 'Saved Through Its Own Coordinator'") == "1")
        #expect(Int(try Self.sqlite(url, "SELECT COUNT(*) FROM ATRANSACTION")) == before + 1)
    }

    @Test(":corrupt damages the demo store; the manager quarantines it and starts fresh, and the screen says where")
    func corrupt() throws {
        let folder = try TestSupport.temporaryDirectory()
        let url = folder.appendingPathComponent("LocalData.sqlite")
        let session = try BrowserSession.demo(storeURL: url, size: 60)
        let h = try BrowserHarness(session: session, open: "Book")
        #expect((h.state.entities.counts["Book"] ?? 0) > 0)
        command(h, "corrupt")
        h.press("y")
        #expect(h.waitUntil(timeout: 30) { $0.entities.counts["Book"] == 0 && $0.busy == nil })
        let note = try #require(h.state.saves.entries.last { $0.origin == .event }?.note)
        #expect(note.contains("dataStoreWasResetOrCreatedOnLoad = true"))
        #expect(note.contains("quarantined it at"))
        let quarantined = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("quarantined") && $0.hasSuffix(".sqlite") }
        #expect(quarantined.count == 1)
        let bytes = try Data(contentsOf: folder.appendingPathComponent(quarantined[0])).prefix(16)
        #expect(bytes == Data(repeating: 0x5A, count: 16))
        #expect(h.state.status.message?.contains("quarantined") == true)
        command(h, "reseed")
        #expect(h.waitUntil(timeout: 30) { ($0.entities.counts["Book"] ?? 0) > 0 })
        // :reset on the demo store restarts the shared manager on a new, empty file.
        command(h, "reset")
        h.press("y")
        #expect(h.waitUntil(timeout: 30) { $0.entities.counts["Book"] == 0 && $0.busy == nil })
        #expect(h.state.saves.entries.last { $0.origin == .event }?.note?.contains("PersistentStoreManager started again") == true)
    }
}

extension BrowserEditingTests {
    @Test("two sibling contexts edit the same book: under error the second save is refused and shown; k keeps its changes and a new policy saves them")
    func siblingsConflict() throws {
        let (h, url) = try Self.fileHarness()
        let id = try #require(h.state.table.selectedID)
        command(h, "ctx new sibling")
        #expect(h.state.currentContext == "scratch-1")
        #expect(h.screen.contains("scratch-1 (sibling)"))
        edit(h, "Sibling One")
        command(h, "ctx new sibling")
        edit(h, "Sibling Two")
        command(h, "ctx scratch-1")
        h.press("W y")
        #expect(h.waitUntil { _ in (try? Self.onDisk(url, id, "title")) == .string("Sibling One") })
        // The main context merged the sibling's did-save.
        command(h, "ctx main")
        #expect(h.waitFor("Sibling One"))
        command(h, "ctx scratch-2")
        command(h, "mergepolicy error")
        #expect(h.screen.contains("· error ·"))
        h.press("W y")
        #expect(h.waitUntil { if case .confirm = $0.topModal { true } else { false } })
        guard case let .confirm(report)? = h.state.topModal else { return }
        #expect(report.title == "Merge conflict saving scratch-2")
        #expect(report.lines.contains { $0.contains("nothing was saved") })
        #expect(report.lines.contains { $0 == "Book “Sibling Two”:" })  // the object by name, as the context sees it
        #expect(report.lines.contains { $0.contains("title: cached") && $0.contains("store \"Sibling One\"") && $0.contains("context \"Sibling Two\"") })
        #expect(try Self.onDisk(url, id, "title") == .string("Sibling One"))
        #expect(h.state.pendingChanges.updated == 1)
        h.press("k")  // refresh keeping scratch-2's change: it is now based on the store's version
        #expect(h.state.topModal == nil)
        h.press("W y")
        #expect(h.waitUntil { _ in (try? Self.onDisk(url, id, "title")) == .string("Sibling Two") })
    }

    @Test("under objecttrump a sibling's conflicting save wins property by property")
    func siblingsObjectTrump() throws {
        let (h, url) = try Self.fileHarness()
        let id = try #require(h.state.table.selectedID)
        command(h, "ctx new sibling")
        edit(h, "Left")
        command(h, "ctx new sibling")
        h.press("l l e C-u")  // pages
        h.type("321")
        h.press("Enter")
        h.press("h h e C-u")  // title
        h.type("Right")
        h.press("Enter")
        command(h, "ctx scratch-1")
        h.press("W y")
        #expect(h.waitUntil { _ in (try? Self.onDisk(url, id, "title")) == .string("Left") })
        command(h, "ctx scratch-2")
        command(h, "mergepolicy objecttrump")
        h.press("W y")
        #expect(h.waitUntil { _ in (try? Self.onDisk(url, id, "title")) == .string("Right") })
        #expect(try Self.onDisk(url, id, "pages") == .integer(321))
    }
}

extension BrowserEditingTests {
    @Test("u and Ctrl-R step back and forth through several edits of a scratch context")
    func undoRedo() throws {
        let (h, url) = try Self.fileHarness()
        let id = try #require(h.state.table.selectedID)
        let original = try Self.onDisk(url, id, "title")
        edit(h, "First")
        edit(h, "Second")
        edit(h, "222", after: "l l")
        #expect(h.state.currentContextInfo?.canUndo == true)
        h.press("u")
        #expect(h.state.status.message?.hasPrefix("Undid Edit pages") == true)
        #expect(h.screen.contains("Second"))
        #expect(!h.lines.contains { $0.contains("Second") && $0.contains(" 222 ") })
        h.press("u")
        #expect(h.waitFor("First"))
        h.press("u")
        #expect(h.state.pendingChanges.total == 0)
        #expect(h.state.currentContextInfo?.canUndo == false)
        h.press("u")
        #expect(h.state.status.message?.contains("nothing to undo") == true)
        h.press("C-r C-r")
        #expect(h.waitFor("Second"))
        #expect(h.state.currentContextInfo?.canRedo == true)
        h.press("W y")
        #expect(h.waitUntil { _ in (try? Self.onDisk(url, id, "title")) == .string("Second") })
        #expect(try Self.onDisk(url, id, "pages") != .integer(222))
        #expect(original != .string("Second"))
    }

    @Test("the merge report after a policy resolved a sibling conflict names, per property, cached, store, context and winner")
    func mergeReport() throws {
        let (h, _) = try Self.fileHarness()
        command(h, "ctx new sibling")
        edit(h, "Left")
        command(h, "ctx new sibling")
        edit(h, "Right")
        command(h, "ctx scratch-1")
        h.press("W y")
        command(h, "ctx scratch-2")
        command(h, "mergepolicy storetrump")
        h.press("W y")
        #expect(h.waitUntil { if case .confirm = $0.topModal { true } else { false } })
        guard case let .confirm(report)? = h.state.topModal else { return }
        #expect(report.lines.contains { $0.contains("under storeTrump") })
        #expect(report.lines.contains { $0.contains("title: cached") && $0.contains("store Left · context Right → Left (store)") })
        #expect(h.state.saves.entries.contains { $0.note?.hasPrefix("merge: 1 conflict resolved") == true })
    }
}

extension BrowserEditingTests {
    @Test("after a save the row and the detail no longer mark the saved value as unsaved")
    func marksClearAfterSave() throws {
        let (h, _) = try Self.fileHarness()
        edit(h, "Saved Title")
        h.onMain { h.program.dispatch(.tick(Date().addingTimeInterval(5))) }
        #expect(h.lines.contains { $0.contains("│* Saved Title") })
        #expect(h.state.detail.snapshot?.properties.first { $0.name == "title" }?.changed == true)
        h.press("W y")
        #expect(h.waitUntil { $0.pendingChanges.total == 0 })
        h.onMain { h.program.dispatch(.tick(Date().addingTimeInterval(10))) }
        #expect(h.lines.contains { $0.contains("│  Saved Title") }, "\(h.screen)")
        #expect(h.state.detail.snapshot?.properties.first { $0.name == "title" }?.changed == false)
    }
}

extension BrowserEditingTests {
    @Test("keys read in one go (typed ahead, pasted) reach the editor and the preview that the keys before them opened")
    func typeAheadThroughSave() throws {
        let (h, url) = try Self.fileHarness()
        let id = try #require(h.state.table.selectedID)
        // As the runner hands them over when the terminal delivers them together: one dispatch.
        let keys: [Key] = [.char("e"), try #require(Key.parse("C-u"))] + "Typed Ahead".map { .char($0) }
            + [try #require(Key.parse("Enter")), .char("W"), .char("y")]
        h.onMain { h.program.dispatch(keys.map { .key($0) }) }
        h.waitUntilIdle()
        #expect(h.waitUntil { _ in (try? Self.onDisk(url, id, "title")) == .string("Typed Ahead") }, "\(h.screen)")
        #expect(h.state.topModal == nil)
        #expect(h.state.pendingChanges.total == 0)
    }

    @Test("q read together with the edit before it still asks before dropping the scratch context's changes")
    func quitTypedAhead() throws {
        let (h, _) = try Self.fileHarness()
        let keys: [Key] = [.char("e"), try #require(Key.parse("C-u"))] + "Not Saved".map { .char($0) }
            + [try #require(Key.parse("Enter")), .char("q")]
        h.onMain { h.program.dispatch(keys.map { .key($0) }) }
        h.waitUntilIdle()
        #expect(!h.state.quitRequested)
        guard case let .confirm(c)? = h.state.topModal else {
            Issue.record("no quit question: \(h.screen)")
            return
        }
        #expect(c.title == "Quit and lose unsaved changes?")
        #expect(c.lines.contains { $0.contains("scratch-1: 0 inserted, 1 updated, 0 deleted") })
    }
}

extension BrowserEditingTests {
    @Test("Enter on the :corrupt line of the saves pane shows its whole note: where the damaged file went and the manager's flag")
    func corruptNoteExpanded() throws {
        let folder = try TestSupport.temporaryDirectory()
        let session = try BrowserSession.demo(storeURL: folder.appendingPathComponent("LocalData.sqlite"), size: 60)
        let h = try BrowserHarness(session: session, open: "Book")
        command(h, "corrupt")
        h.press("y")
        #expect(h.waitUntil(timeout: 30) { $0.entities.counts["Book"] == 0 && $0.busy == nil })
        // One line is too narrow for the note: its end is cut off.
        #expect(!h.screen.contains("dataStoreWasResetOrCreatedOnLoad"))
        h.press("Tab Tab")
        #expect(h.state.focus == .saves)
        h.press("G Enter z")  // zoomed: the test's long temporary paths need more than five lines
        #expect(h.screen.contains("quarantined it at"), "\(h.screen)")
        #expect(h.screen.contains("dataStoreWasResetOrCreatedOnLoad = true"))
    }
}

extension BrowserEditingTests {
    @Test("R re-reads an object another process changed: in a scratch child (through main) and in the detail pane")
    func refreshSeesOtherProcessUpdate() throws {
        let (h, url) = try Self.fileHarness()
        let id = try #require(h.state.table.selectedID)
        let pk = id.uriRepresentation().lastPathComponent.dropFirst()
        func update(_ title: String) throws {
            _ = try Self.sqlite(url, "UPDATE ZBOOK SET ZTITLE = '\(title)', Z_OPT = Z_OPT + 1 WHERE Z_PK = \(pk)")
        }
        // In a scratch child: the re-read reaches it through the main context.
        command(h, "ctx new child")
        #expect(h.state.currentContext == "scratch-1")
        try update("Changed Elsewhere")
        h.press("R")
        #expect(h.waitUntil { _ in h.lines.contains { $0.contains("│  Changed Elsewhere") } }, "\(h.screen)")
        #expect(h.state.detail.snapshot?.title == "Changed Elsewhere")
        // In the main context: the detail pane follows too.
        command(h, "ctx main")
        try update("Changed Again")
        h.press("R")
        #expect(h.waitUntil { _ in h.lines.contains { $0.contains("│  Changed Again") } }, "\(h.screen)")
        #expect(h.state.detail.snapshot?.title == "Changed Again")
    }
}

extension BrowserEditingTests {
    @Test("the saves pane lists a save's did-save before the merge note about it")
    func mergeNoteAfterDidSave() throws {
        let (h, _) = try Self.fileHarness()
        command(h, "ctx new sibling")
        edit(h, "Left")
        command(h, "ctx new sibling")
        edit(h, "Right")
        command(h, "ctx scratch-1")
        h.press("W y")
        command(h, "ctx scratch-2")
        command(h, "mergepolicy objecttrump")
        h.press("W y")
        #expect(h.waitUntil { $0.saves.entries.contains { $0.note?.hasPrefix("merge: 1 conflict resolved") == true } })
        h.waitUntilIdle()
        let entries = h.state.saves.entries.filter { $0.contextName == "scratch-2" }
        #expect(entries.map { $0.note == nil ? "did-save" : "note" } == ["did-save", "note"])
    }
}

extension BrowserEditingTests {
    @Test("keys read in one go after e reach the editor e opened (typing ahead of the screen)")
    func typeAhead() throws {
        let (h, _) = try Self.fileHarness()
        h.press("l l")
        h.onMain { h.program.dispatch([.key(.char("e")), .key(.ctrl("u")), .key(.char("0")), .key(.enter)]) }
        h.waitUntilIdle()
        guard case let .editor(e)? = h.state.topModal else {
            Issue.record("the editor is not open")
            return
        }
        #expect(e.line.text == "0")
        #expect(e.error?.contains("below the minimum 1") == true)
    }
}

extension BrowserEditingTests {
    /// Sibling 1 changes title and pages and saves; sibling 2 changes the title and saves under
    /// `policy`: the winners per property, on screen and on disk.
    @Test("a sibling conflict under each policy: the winning value per property", arguments: [
        ("objecttrump", "Right", "111"), ("storetrump", "Left", "111"), ("overwrite", "Right", "original"), ("rollback", "Left", "111"),
    ])
    func siblingPolicies(_ policy: String, _ title: String, _ pages: String) throws {
        let (h, url) = try Self.fileHarness()
        let id = try #require(h.state.table.selectedID)
        let originalPages = try Self.onDisk(url, id, "pages")
        command(h, "ctx new sibling")
        edit(h, "Left")
        h.press("l l e C-u")
        h.type("111")
        h.press("Enter h h")
        command(h, "ctx new sibling")
        edit(h, "Right")
        command(h, "ctx scratch-1")
        h.press("W y")
        #expect(h.waitUntil { _ in (try? Self.onDisk(url, id, "title")) == .string("Left") })
        command(h, "ctx scratch-2")
        command(h, "mergepolicy \(policy)")
        h.press("W y")
        #expect(h.waitUntil { if case .confirm = $0.topModal { true } else { false } })
        let report = h.screen
        #expect(report.contains("title: cached"))
        #expect(report.contains("store Left · context Right → \(title)"))
        #expect(try Self.onDisk(url, id, "title") == .string(title))
        #expect(try Self.onDisk(url, id, "pages") == (pages == "original" ? originalPages : .integer(111)))
    }
}

extension BrowserEditingTests {
    @Test("a string takes line breaks (C-o, shown ⏎) and long text scrolls with the cursor; the value saved has them")
    func multiLineText() throws {
        let (h, url) = try Self.fileHarness()
        let id = try #require(h.state.table.selectedID)
        h.press("e C-u")
        h.type("Line one")
        h.press("C-o")
        h.type("Line two")
        #expect(h.screen.contains("value: Line one⏎Line two"))
        let long = String(repeating: "abcdefghij", count: 12) + "END"
        h.press("C-o")
        h.type(long)
        // The end of the text, where the cursor is, is in view.
        #expect(h.lines.contains { $0.contains("value: ") && $0.contains("hijEND") })
        h.press("Enter")
        #expect(h.state.topModal == nil)
        h.press("W y")
        #expect(h.waitUntil { _ in (try? Self.onDisk(url, id, "title")) == .string("Line one\nLine two\n" + long) })
    }
}
