import Foundation
import Testing

@testable import CoreStack

/// A many-to-many link reaches the store from both ends (each object's change lists the other):
/// the join-table row is written once, and every link is there.
@Suite struct JoinTableWriteTests {
    @Test("links made from both ends in one save: one join row per link (mirrored keys included), each read back from both ends; a link removed and one added later")
    func bothEnds() throws {
        let stack = try TestStack(.sqlite)
        let store = try #require(stack.coordinator.persistentStore as? SQLiteStore)
        let joinTable = try #require(store.schema.joinTables.first?.table.name)
        // Four books, each by the same four authors: 16 links, and the keys of books and authors
        // are the same four numbers, so book p by author q and book q by author p are two rows.
        try stack.context.performAndWait {
            let authors = try (0..<4).map { i in
                let a = try Author(context: stack.context)
                a.name = "A\(i)"
                return a
            }
            for i in 0..<4 {
                let b = try Book(context: stack.context)
                b.title = "B\(i)"
                b.authors = Set(authors)
            }
            try stack.context.save()
        }
        let url = try #require(store.url)
        #expect(try RawSQLite.scalar("SELECT COUNT(*) FROM \(joinTable)", in: url) == 16)
        let fresh = stack.newContext()
        try fresh.performAndWait {
            let books = try fresh.fetch(FetchRequest<Book>(entityName: "Book", sortDescriptors: [SortDescriptor("title")]))
            #expect(books.map { $0.authors.count } == [4, 4, 4, 4])
            let authors = try fresh.fetch(FetchRequest<Author>(entityName: "Author", sortDescriptors: [SortDescriptor("name")]))
            #expect(authors.map { $0.books.count } == [4, 4, 4, 4])
            // A later save: one link removed from the author's end, one new author added from
            // the book's end.
            authors[0].books.remove(books[0])
            let added = try Author(context: fresh)
            added.name = "A4"
            books[0].authors.insert(added)
            try fresh.save()
        }
        #expect(try RawSQLite.scalar("SELECT COUNT(*) FROM \(joinTable)", in: url) == 16)
        let third = stack.newContext()
        try third.performAndWait {
            let b0 = try #require(try third.fetch(FetchRequest<Book>(entityName: "Book", predicate: try Predicate(format: "title == 'B0'"))).first)
            #expect(Set(b0.authors.map(\.name)) == ["A1", "A2", "A3", "A4"])
        }
    }
}
