import CoreStack
import Foundation
import StackScope
import Testing

@Suite("browser: navigation, drilling in and back", .serialized)
struct BrowserNavigationTests {
    @Test("the first screen shows the entity tree with counts, the first entity's objects and the detail")
    func firstScreen() throws {
        let h = try BrowserHarness.demo()
        let screen = h.screen
        #expect(screen.contains("Entities"))
        #expect(screen.contains("Person (abstract)"))
        // Sub-entities are nested under their parents.
        let book = try #require(h.line(containing: "▾ Book"))
        let novel = try #require(h.line(containing: "GraphicNovel"))
        #expect(novel.firstIndex(of: "G").map { novel.distance(from: novel.startIndex, to: $0) } ?? 0
            > book.firstIndex(of: "B").map { book.distance(from: book.startIndex, to: $0) } ?? 0)
        // Counts are the store's.
        let counts = h.state.entities.counts
        #expect((counts["Book"] ?? 0) > 0)
        #expect(book.contains(String(counts["Book"] ?? -1)))
        // The objects pane shows the first entity with columns and a position.
        #expect(h.state.table.source == .entity("Book"))
        #expect(screen.contains("title"))
        #expect(screen.contains("1 of \(h.state.table.rowCount)"))
        // The detail pane shows the selected object.
        #expect(h.state.detail.snapshot?.entityName != nil)
        #expect(screen.contains("x-coredata://"))
    }

    @Test("j, G, g and PgDn move the selection and the detail follows")
    func moving() throws {
        let h = try BrowserHarness.demo()
        let first = try #require(h.state.detail.snapshot?.objectID)
        h.press("j")
        #expect(h.state.table.scroll.selection == 1)
        let second = try #require(h.state.detail.snapshot?.objectID)
        #expect(second != first)
        h.press("G")
        let n = h.state.table.rowCount
        #expect(h.state.table.scroll.selection == n - 1)
        #expect(h.screen.contains("\(n) of \(n)"))
        h.press("g")
        #expect(h.state.table.scroll.selection == 0)
        #expect(h.state.detail.snapshot?.objectID == first)
        h.press("PgDn")
        #expect(h.state.table.scroll.selection > 5)
        h.type("3")
        h.press("k")
        #expect(h.state.table.scroll.selection == h.state.table.scroll.offset + 0 || h.state.table.scroll.selection >= 0)
    }

    @Test("a count before a motion repeats it: 5j moves five rows")
    func counts() throws {
        let h = try BrowserHarness.demo()
        h.type("5")
        #expect(h.screen.contains("5  ctx"))
        h.press("j")
        #expect(h.state.table.scroll.selection == 5)
    }

    @Test("Enter on an entity opens it; Enter on a to-many relationship opens its objects; Esc goes back")
    func drillingIn() throws {
        let h = try BrowserHarness.demo()
        // Open Author from the tree.
        h.press("S-Tab")  // saves? Tab order: entities, objects, detail, saves; S-Tab from objects → entities
        #expect(h.state.focus == .entities)
        let authorRow = try #require(h.state.entities.visible.firstIndex { $0.name == "Author" })
        h.press("g")
        for _ in 0..<authorRow { h.press("j") }
        h.press("Enter")
        #expect(h.state.table.source == .entity("Author"))
        #expect(h.state.focus == .table)
        // Into the detail, onto the books relationship.
        h.press("Enter")
        #expect(h.state.focus == .detail)
        let snapshot = try #require(h.state.detail.snapshot)
        let booksIndex = try #require(snapshot.properties.firstIndex { $0.name == "books" })
        guard case let .toMany(_, count, _) = snapshot.properties[booksIndex].kind else {
            Issue.record("books is not to-many")
            return
        }
        h.press("g")
        for _ in 0..<booksIndex { h.press("j") }
        h.press("Enter")
        guard case let .relationship(owner, key, destination, _)? = h.state.table.source else {
            Issue.record("no relationship table: \(String(describing: h.state.table.source))")
            return
        }
        #expect(owner == snapshot.objectID)
        #expect(key == "books")
        #expect(destination == "Book")
        #expect(h.state.table.objectCount == count)
        #expect(h.screen.contains("books"))
        #expect(h.screen.contains("›"))  // the breadcrumb
        // Esc goes back to the authors, with the same author selected.
        h.press("Esc")
        #expect(h.state.table.source == .entity("Author"))
        #expect(h.state.table.selectedID == snapshot.objectID)
    }

    @Test("Enter on a to-one relationship opens that object")
    func toOne() throws {
        let h = try BrowserHarness.demo()
        h.press("Enter")
        let snapshot = try #require(h.state.detail.snapshot)
        let publisher = try #require(snapshot.properties.firstIndex { $0.name == "publisher" })
        guard case let .toOne(_, target?) = snapshot.properties[publisher].kind else {
            Issue.record("the first book has no publisher")
            return
        }
        h.press("g")
        for _ in 0..<publisher { h.press("j") }
        h.press("Enter")
        #expect(h.state.table.objectCount == 1)
        #expect(h.state.detail.snapshot?.objectID == target)
        #expect(h.state.detail.snapshot?.entityName == "Publisher")
        h.press("Esc")
        #expect(h.state.table.source == .entity("Book"))
    }

    @Test("Tab cycles the panes and h/l collapse and expand the tree")
    func panesAndTree() throws {
        let h = try BrowserHarness.demo()
        #expect(h.state.focus == .table)
        h.press("Tab")
        #expect(h.state.focus == .detail)
        h.press("Tab")
        #expect(h.state.focus == .saves)
        h.press("Tab")
        #expect(h.state.focus == .entities)
        let before = h.state.entities.visible.count
        let bookRow = try #require(h.state.entities.visible.firstIndex { $0.name == "Book" })
        h.press("g")
        for _ in 0..<bookRow { h.press("j") }
        h.press("h")
        #expect(h.state.entities.visible.count == before - 1)
        #expect(h.screen.contains("▸ Book"))
        #expect(!h.screen.contains("GraphicNovel"))
        h.press("l")
        #expect(h.state.entities.visible.count == before)
    }
}

@Suite("browser: stores written by Apple's Core Data", .serialized)
struct BrowserAppleStoreTests {
    @Test("a store written by Apple's Core Data opens read-only with its model and browses")
    func wiboscoStore() throws {
        let dir = try TestSupport.temporaryDirectory()
        let url = dir.appendingPathComponent("CoreDataMigration_Example_1.sqlite")
        try FileManager.default.copyItem(
            at: TestSupport.fixture("stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_1.sqlite"), to: url)
        let before = try TestSupport.checksum(url)
        let model = TestSupport.fixture("models/wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld").path
        let session = try BrowserSession.open(storePath: url.path, modelPath: model, readOnly: true)
        let h = try BrowserHarness(session: session)
        #expect(h.screen.contains("[read-only]"))
        #expect(h.state.table.source == .entity("Post"))
        #expect(h.state.table.objectCount == 1001)
        #expect(h.screen.contains("1 of 1,001"))
        h.press("G")
        #expect(h.screen.contains("1,001 of 1,001"))
        h.press("Enter")
        #expect(h.state.detail.snapshot?.uri.hasPrefix("x-coredata://292CEC8D-C7B1-4073-9B55-56A1A663FA59/Post/p") == true)
        h.press("q")
        #expect(try TestSupport.checksum(url) == before)
    }

    @Test("with no model file, an Apple-written store opens with the model stored in it, read-only, and says so")
    func ownModel() throws {
        let dir = try TestSupport.temporaryDirectory()
        let url = dir.appendingPathComponent("CoreDataMigration_Example_1.sqlite")
        try FileManager.default.copyItem(
            at: TestSupport.fixture("stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_1.sqlite"), to: url)
        let before = try TestSupport.checksum(url)
        let session = try BrowserSession.open(storePath: url.path, modelPath: nil, readOnly: false)
        #expect(session.readOnly)
        #expect(session.notes.contains { $0.contains("opened read-only") })
        let h = try BrowserHarness(session: session)
        #expect(h.state.table.objectCount == 1001)
        #expect(h.state.status.message?.contains("opened read-only") == true)
        // Too long for the status bar: cut with an ellipsis, and whole in the saves pane (Enter).
        let statusLine = try #require(h.lines.last { $0.contains("opened read-only") })
        #expect(statusLine.contains("…"), "\(statusLine)")
        let logged = h.state.saves.entries.filter { $0.origin == .event }.compactMap(\.note)
        #expect(session.notes.allSatisfy { logged.contains($0) }, "\(logged)")
        h.press("Tab Tab")
        #expect(h.state.focus == .saves)
        h.press("G Enter")
        #expect(h.screen.contains("(--model FILE edits)"))
        h.press("S-Tab S-Tab")
        #expect(h.state.focus == .table)
        // An edit key says why, in words, once: the model is the store's own, --model edits.
        h.press("e")
        let refusal = try #require(h.state.status.message)
        #expect(refusal.hasPrefix("Read-only: the model is the one stored in the store (Z_MODELCACHE), not a model file"))
        #expect(refusal.contains("--model"))
        #expect(refusal.components(separatedBy: "read-only").count == 1)
        h.press("q")
        #expect(try TestSupport.checksum(url) == before)
    }

    @Test("opening errors are the same typed errors as info's")
    func openErrors() throws {
        #expect(throws: StackScopeError.storeNotFound(path: "/no/such/store.sqlite")) {
            try BrowserSession.open(storePath: "/no/such/store.sqlite", modelPath: nil, readOnly: true)
        }
        let dir = try TestSupport.temporaryDirectory()
        let junk = dir.appendingPathComponent("junk.sqlite")
        try Data("not a database at all, not even close".utf8).write(to: junk)
        #expect(throws: (any Error).self) { try BrowserSession.open(storePath: junk.path, modelPath: nil, readOnly: true) }
    }
}
