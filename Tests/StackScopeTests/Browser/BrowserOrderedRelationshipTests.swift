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
}
