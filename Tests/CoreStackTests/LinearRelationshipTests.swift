import Foundation
import Testing
@testable import CoreStack

@Suite("Relationship maintenance: linking many objects to one owner")
struct LinearRelationshipTests {
    /// 100,000 chapters linked to one book through their to-one `book`, so the book's ordered
    /// `chapters` (the inverse) grows one link at a time. With a copy of the set per link this is
    /// 5·10⁹ element copies and never finishes; linear, it takes a second or two in a debug build.
    @Test("100,000 members linked one by one through the inverse: all there, in link order")
    func hundredThousandMembersThroughInverse() throws {
        let stack = try TestStack(.inMemory)
        let ctx = stack.context
        try ctx.performAndWait {
            let book = try Book(context: ctx)
            book.title = "Long"
            let count = 100_000
            var chapters: [Chapter] = []
            chapters.reserveCapacity(count)
            for i in 0..<count {
                let c = try Chapter(context: ctx)
                try c.setValue("c\(i)", forKey: "title")
                try c.setObject(book, forKey: "book")
                chapters.append(c)
            }
            let ids = try book.objectIDs(forRelationshipNamed: "chapters")
            #expect(ids.count == count)
            #expect(ids == chapters.map(\.objectID))
            #expect(chapters[count - 1].book === book)
        }
    }

    @Test("add(_:toKey:) one at a time: inverse kept, duplicates ignored, order kept", arguments: StoreKind.allCases)
    func addOneByOne(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ctx = stack.context
        let publisherID: ManagedObjectID = try ctx.performAndWait {
            let publisher = try Publisher(context: ctx)
            publisher.name = "Big"
            let book = try Book(context: ctx)
            book.title = "Ordered"
            var books: [Book] = []
            var chapters: [Chapter] = []
            for i in 0..<2_000 {
                let b = try Book(context: ctx)
                b.title = "b\(i)"
                try publisher.add(b, toKey: "books")
                books.append(b)
                let c = try Chapter(context: ctx)
                c.title = "c\(i)"
                try book.add(c, toKey: "chapters")
                chapters.append(c)
            }
            try publisher.add(books[0], toKey: "books")
            try book.add(chapters[5], toKey: "chapters")
            #expect(publisher.books.count == 2_000)
            #expect(books.allSatisfy { $0.publisher === publisher })
            #expect(book.chapters == chapters)
            #expect(chapters.allSatisfy { $0.book === book })
            // Moving a book to another publisher takes it out of the first one's set.
            let other = try Publisher(context: ctx)
            other.name = "Small"
            try other.add(books[7], toKey: "books")
            #expect(publisher.books.count == 1_999)
            #expect(!publisher.books.contains(books[7]))
            try publisher.remove([books[8], books[9]], fromKey: "books")
            #expect(books[8].publisher == nil)
            #expect(publisher.books.count == 1_997)
            try ctx.delete(books[7])
            try ctx.delete(other)
            try ctx.save()
            return publisher.objectID
        }
        let fresh = stack.newContext()
        try fresh.performAndWait {
            let publisher = try #require(try fresh.existingObject(with: publisherID) as? Publisher)
            #expect(publisher.books.count == 1_997)
            #expect(publisher.books.allSatisfy { $0.publisher === publisher })
        }
    }

    @Test("many-to-many: linking many authors to one book keeps both sides", arguments: StoreKind.allCases)
    func manyToMany(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ctx = stack.context
        let bookID: ManagedObjectID = try ctx.performAndWait {
            let book = try Book(context: ctx)
            book.title = "Anthology"
            for i in 0..<1_000 {
                let a = try Author(context: ctx)
                a.name = "a\(i)"
                try a.add(book, toKey: "books")
            }
            #expect(book.authors.count == 1_000)
            #expect(book.authors.allSatisfy { $0.books == [book] })
            try ctx.save()
            return book.objectID
        }
        let fresh = stack.newContext()
        try fresh.performAndWait {
            let book = try #require(try fresh.existingObject(with: bookID) as? Book)
            #expect(book.authors.count == 1_000)
            let first = try #require(book.authors.first)
            try first.remove(book, fromKey: "books")
            #expect(book.authors.count == 999)
            #expect(first.books.isEmpty)
        }
    }
}
