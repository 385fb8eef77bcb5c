import CoreStack
import Foundation
import StackScope
import Testing

@Suite("an ordered to-many relationship opened as a table shows the relationship's order")
struct BrowserOrderedRelationshipTests {
    /// The object IDs of the table's rows, in display order.
    static func rowIDs(_ h: BrowserHarness) -> [ManagedObjectID] {
        h.state.table.window.rows.compactMap { row in
            if case let .object(id, _) = row { return id }
            return nil
        }
    }

    @Test("with no sort the chapters appear in the book's order, not the store's; a chosen sort still applies")
    func chaptersInRelationshipOrder() throws {
        let h = try BrowserHarness.demo(open: "Book")
        #expect(h.state.table.source == .entity("Book"))
        // A book on screen with three chapters or more whose order is not their primary keys'
        // (the demo inserts each book's chapters shuffled).
        let books = Self.rowIDs(h)
        let picked: (row: Int, chapters: [ManagedObjectID])? = try h.onMain {
            let context = h.session.mainContext
            return try context.performAndWait {
                for (row, id) in books.enumerated() {
                    let chapters = try context.existingObject(with: id).objectIDs(forRelationshipNamed: "chapters")
                    let byKey = chapters.sorted { ($0.primaryKey ?? 0) < ($1.primaryKey ?? 0) }
                    if chapters.count >= 3, chapters != byKey { return (row, chapters) }
                }
                return nil
            }
        }
        let (row, chapters) = try #require(picked, "no book on screen has chapters out of key order")
        h.press("g")
        for _ in 0..<row { h.press("j") }
        h.press("Enter")
        #expect(h.state.focus == .detail)
        let snapshot = try #require(h.state.detail.snapshot)
        #expect(snapshot.objectID == books[row])
        let chaptersIndex = try #require(snapshot.properties.firstIndex { $0.name == "chapters" })
        h.press("g")
        for _ in 0..<chaptersIndex { h.press("j") }
        h.press("Enter")
        guard case let .relationship(owner, key, _, _)? = h.state.table.source else {
            Issue.record("no relationship table: \(String(describing: h.state.table.source))")
            return
        }
        #expect(owner == books[row])
        #expect(key == "chapters")
        #expect(h.state.table.objectCount == chapters.count)
        #expect(Self.rowIDs(h) == chapters)
        // The selection follows the displayed order: the first row is the first chapter.
        #expect(h.state.table.selectedID == chapters.first)

        // A chosen sort applies instead: word counts descending.
        h.press(":")
        h.type("sort wordCount desc")
        h.press("Enter")
        let sorted = Self.rowIDs(h)
        #expect(Set(sorted) == Set(chapters))
        let words: [Int64] = try h.onMain {
            let context = h.session.mainContext
            return try context.performAndWait {
                try sorted.map { id in
                    let value = try context.existingObject(with: id).attributeValue(forKey: "wordCount")
                    guard case let .integer(n) = value else { return -1 }
                    return n
                }
            }
        }
        #expect(words == words.sorted(by: >))
        #expect(sorted != chapters)
    }

    /// Opens the chapters of the first book on screen with three chapters or more, from the
    /// book's detail; returns the book and its chapters in the relationship's order.
    static func openChapters(_ h: BrowserHarness) throws -> (book: ManagedObjectID, chapters: [ManagedObjectID])? {
        let books = rowIDs(h)
        let picked: (row: Int, chapters: [ManagedObjectID])? = try h.onMain {
            let context = h.session.mainContext
            return try context.performAndWait {
                for (row, id) in books.enumerated() {
                    let chapters = try context.existingObject(with: id).objectIDs(forRelationshipNamed: "chapters")
                    if chapters.count >= 3 { return (row, chapters) }
                }
                return nil
            }
        }
        guard let (row, chapters) = picked else { return nil }
        h.press("g")
        for _ in 0..<row { h.press("j") }
        h.press("Enter")
        guard let snapshot = h.state.detail.snapshot,
            let chaptersIndex = snapshot.properties.firstIndex(where: { $0.name == "chapters" })
        else { return nil }
        h.press("g")
        for _ in 0..<chaptersIndex { h.press("j") }
        h.press("Enter")
        return (books[row], chapters)
    }

    @Test("a reorder of the owner's chapters saved by another context re-sorts the table at once, the selection following its object")
    func reorderSavedElsewhereResorts() throws {
        let h = try BrowserHarness.demo(open: "Book")
        let (book, chapters) = try #require(try Self.openChapters(h), "no book with three chapters on screen")
        #expect(Self.rowIDs(h) == chapters)
        h.press("j")
        #expect(h.state.table.selectedID == chapters[1])
        // Another context reverses the order and saves: only the book changes, no chapter.
        let worker = h.session.newChildContext(name: "worker")
        try worker.performAndWait {
            let owner = try worker.existingObject(with: book)
            let reversed = try chapters.reversed().map { try worker.existingObject(with: $0) }
            try owner.setObjects(reversed, forKey: "chapters")
            try worker.save()
        }
        let stack = try #require(h.session.stack)
        #expect(stack.waitForPendingSaves(timeout: .now() + 10))
        #expect(h.waitUntil { _ in Self.rowIDs(h) == chapters.reversed() })
        #expect(Self.rowIDs(h) == chapters.reversed())
        #expect(h.state.table.selectedID == chapters[1])
        #expect(h.state.table.scroll.selection == chapters.count - 2)
        // The rows that moved are marked so.
        #expect(h.state.table.marks[chapters[0]]?.0 == .moved)
    }

    @Test("x on a chapter in the book's chapters table unlinks it in a scratch context and the row leaves the table; u brings it back")
    func unlinkLeavesTheTable() throws {
        let h = try BrowserHarness.demo(open: "Book")
        let (_, chapters) = try #require(try Self.openChapters(h), "no book with three chapters on screen")
        #expect(h.state.table.selectedID == chapters[0])
        h.press("x")
        #expect(h.state.currentContext == "scratch-1")
        #expect(h.waitUntil { _ in Self.rowIDs(h) == Array(chapters.dropFirst()) })
        #expect(Self.rowIDs(h) == Array(chapters.dropFirst()))
        #expect(h.state.table.objectCount == chapters.count - 1)
        #expect(h.screen.contains("chapters · \(chapters.count - 1) objects"))
        h.press("u")
        #expect(h.waitUntil { _ in Self.rowIDs(h) == chapters })
        #expect(Self.rowIDs(h) == chapters)
    }

    @Test("a chapter moved into the book by another context appears in the book's chapters table; one moved out leaves it")
    func membershipChangedElsewhere() throws {
        let h = try BrowserHarness.demo(open: "Book")
        let (book, chapters) = try #require(try Self.openChapters(h), "no book with three chapters on screen")
        let worker = h.session.newChildContext(name: "worker")
        let moved: ManagedObjectID = try worker.performAndWait {
            let owner = try worker.existingObject(with: book)
            let request = FetchRequest<ManagedObject>(entityName: "Chapter")
            let other = try #require(try worker.fetch(request).first { !chapters.contains($0.objectID) })
            try other.setObject(owner, forKey: "book")
            try worker.existingObject(with: chapters[0]).setObject(nil, forKey: "book")
            try worker.save()
            return other.objectID
        }
        let stack = try #require(h.session.stack)
        #expect(stack.waitForPendingSaves(timeout: .now() + 10))
        let expected = Array(chapters.dropFirst()) + [moved]
        #expect(h.waitUntil { _ in Self.rowIDs(h) == expected })
        #expect(Self.rowIDs(h) == expected)
        #expect(h.state.table.objectCount == chapters.count)
    }

    @Test("a in a book's chapters table inserts a chapter linked to the book, last in its order; the row shows and u takes both back")
    func insertInRelationshipTable() throws {
        let h = try BrowserHarness.demo(open: "Book")
        let (_, chapters) = try #require(try Self.openChapters(h), "no book with three chapters on screen")
        h.press("a")
        guard case let .editor(e)? = h.state.topModal else {
            Issue.record("no editor for the new chapter's required values")
            return
        }
        #expect(e.field.key == "title")
        #expect(h.state.status.message?.contains(".chapters") == true, "\(h.state.status.message ?? "")")
        // The hint does not promise that Esc changes nothing: the object is inserted already.
        #expect(!h.screen.contains("nothing changes"))
        h.type("Chapter Inserted Here")
        h.press("Enter")
        var values = 1
        while case .editor? = h.state.topModal {
            h.type("1")
            h.press("Enter")
            values += 1
        }
        #expect(h.waitUntil { $0.table.objectCount == chapters.count + 1 })
        let rows = Self.rowIDs(h)
        #expect(Array(rows.prefix(chapters.count)) == chapters)
        let inserted = try #require(rows.last)
        #expect(!chapters.contains(inserted))
        #expect(h.state.table.selectedID == inserted)
        #expect(h.screen.contains("Chapter Inserted Here"))
        // Each value is undone on its own, then the insert and the link together.
        for _ in 0..<values { h.press("u") }
        #expect(h.state.table.objectCount == chapters.count + 1)
        h.press("u")
        #expect(h.waitUntil { $0.table.objectCount == chapters.count })
        #expect(Self.rowIDs(h) == chapters)
        #expect(h.state.pendingChanges.total == 0)
    }

    @Test("K / J move the selected object up / down in its owner's ordered relationship, in a scratch context; the rows follow at once and the save writes the order")
    func moveInOrder() throws {
        let h = try BrowserHarness.demo(open: "Book")
        let (book, chapters) = try #require(try Self.openChapters(h), "no book with three chapters on screen")
        h.press("j")
        #expect(h.state.table.selectedID == chapters[1])
        h.press("K")
        #expect(h.state.currentContext == "scratch-1")
        let up = [chapters[1], chapters[0]] + chapters.dropFirst(2)
        #expect(h.waitUntil { _ in Self.rowIDs(h) == up })
        #expect(Self.rowIDs(h) == up)
        #expect(h.state.table.selectedID == chapters[1])
        #expect(h.state.table.scroll.selection == 0)
        // Already first: nothing moves, and the status bar says why.
        h.press("K")
        #expect(Self.rowIDs(h) == up)
        #expect(h.state.status.message?.contains("first") == true, "\(h.state.status.message ?? "")")
        h.press("J J")
        let down = [chapters[0], chapters[2], chapters[1]] + chapters.dropFirst(3)
        #expect(Self.rowIDs(h) == down)
        #expect(h.state.table.scroll.selection == 2)
        h.press("W y")
        #expect(h.waitUntil { $0.pendingChanges.total == 0 })
        let saved: [ManagedObjectID] = try h.onMain {
            let main = h.session.mainContext
            return try main.performAndWait { try main.existingObject(with: book).objectIDs(forRelationshipNamed: "chapters") }
        }
        #expect(saved == down)
        // A sorted table does not show the relationship's order: K says so and moves nothing.
        h.press(":")
        h.type("sort wordCount desc")
        h.press("Enter")
        h.press("K")
        #expect(h.state.status.message?.contains("sort") == true, "\(h.state.status.message ?? "")")
        #expect(h.state.pendingChanges.total == 0)
    }
}
