import Foundation
import Testing
@testable import CoreStack

@Suite("Batch update and delete in SQL, merged into contexts")
struct BatchRequestTests {
    /// 20 books with pages 10…200, the even ones published by "P"; book 0 has a chapter; every
    /// book has the author "A".
    static func stack() throws -> (TestStack, publisher: ManagedObjectID, author: ManagedObjectID) {
        let stack = try TestStack(.sqlite)
        let ids: (ManagedObjectID, ManagedObjectID) = try stack.context.performAndWait {
            let ctx = stack.context
            let p = try Publisher(context: ctx)
            p.name = "P"
            let a = try Author(context: ctx)
            a.name = "A"
            for i in 0..<20 {
                let b = try Book(context: ctx)
                b.title = "B\(i)"
                b.pages = (i + 1) * 10
                if i % 2 == 0 { b.publisher = p }
                try a.add(b, toKey: "books")
                if i == 0 {
                    let c = try Chapter(context: ctx)
                    c.title = "C"
                    c.book = b
                }
            }
            try ctx.save()
            return (p.objectID, a.objectID)
        }
        return (stack, ids.0, ids.1)
    }

    static func byPages(_ predicate: Predicate? = nil) -> FetchRequest<Book> {
        FetchRequest<Book>(entityName: "Book", predicate: predicate, sortDescriptors: [SortDescriptor("pages")])
    }

    @Test("a batch update changes the rows in SQL; merged, objects and a controller follow")
    func batchUpdate() throws {
        let (stack, _, _) = try Self.stack()
        let reader = stack.newContext("reader")
        let writer = stack.newContext("writer")
        let controller = FetchedResultsController(fetchRequest: Self.byPages(.key("pages") > 100), context: reader)
        let held = try reader.performAndWait {
            try controller.performFetch()
            #expect(controller.count == 10)
            return try reader.fetch(Self.byPages()).filter { $0.pages > 150 }
        }
        let changes = try writer.performAndWait {
            var r = BatchUpdateRequest(entityName: "Book", predicate: .key("pages") > 150)
            r.propertiesToUpdate = ["pages": .integer(7)]
            return try writer.execute(r)
        }
        #expect(changes.updated.count == 5)
        #expect(changes.inserted.isEmpty && changes.deleted.isEmpty)
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: [reader])
        try reader.performAndWait {
            #expect(held.allSatisfy { $0.pages == 7 })
            #expect(controller.count == 5)
            #expect(controller.fetchedObjects.map(\.pages) == [110, 120, 130, 140, 150])
            // The merged objects carry the new row version: changing and saving them works.
            held[0].title = "Changed"
            try reader.save()
        }
        writer.performAndWait {
            var bad = BatchUpdateRequest(entityName: "Book")
            bad.propertiesToUpdate = ["pages": .string("many")]
            #expect(throws: CoreStackError.self) { try writer.execute(bad) }
            bad.propertiesToUpdate = ["nope": .integer(1)]
            #expect(throws: CoreStackError.self) { try writer.execute(bad) }
        }
    }

    @Test("a batch delete nullifies to-ones and join rows, refuses cascade and deny, and merges")
    func batchDelete() throws {
        let (stack, publisherID, authorID) = try Self.stack()
        let reader = stack.newContext("reader")
        let writer = stack.newContext("writer")
        let (publisher, author) = try reader.performAndWait {
            let p = try #require(try reader.existingObject(with: publisherID) as? Publisher)
            let a = try #require(try reader.existingObject(with: authorID) as? Author)
            #expect(p.books.count == 10 && a.books.count == 20)
            return (p, a)
        }
        try writer.performAndWait {
            // Book 0 has a chapter, and Book.chapters cascades: refused, nothing deleted.
            #expect(throws: CoreStackError.self) { try writer.execute(BatchDeleteRequest(entityName: "Book", predicate: .key("pages") < 50)) }
            // Publisher.books denies.
            #expect(throws: CoreStackError.self) { try writer.execute(BatchDeleteRequest(objectIDs: [publisherID])) }
            let count = try writer.count(for: Self.byPages())
            #expect(count == 20)
        }
        let changes = try writer.performAndWait {
            try writer.execute(BatchDeleteRequest(entityName: "Book", predicate: .key("pages") >= 150))
        }
        #expect(changes.deleted.count == 6)
        #expect(changes.updated.contains(publisherID) && changes.updated.contains(authorID))
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: [reader])
        try reader.performAndWait {
            let pages = try reader.fetch(Self.byPages()).map(\.pages)
            #expect(publisher.books.map(\.pages).sorted() == [10, 30, 50, 70, 90, 110, 130])
            #expect(author.books.count == 14)
            #expect(pages == Array(stride(from: 10, through: 140, by: 10)))
        }
        let fresh = stack.newContext("fresh")
        try fresh.performAndWait {
            let a = try #require(try fresh.existingObject(with: authorID) as? Author)
            #expect(a.books.count == 14)
        }
    }

    @Test("a batch insert writes rows without objects; merged, a controller and a monitor see them", arguments: StoreKind.allCases)
    func batchInsert(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let reader = stack.newContext("reader")
        let controller = FetchedResultsController(fetchRequest: Self.byPages(), context: reader)
        try reader.performAndWait { try controller.performFetch() }
        let objects: [[String: AttributeValue]] = (0..<50).map { ["title": .string("T\($0)"), "pages": .integer(Int64(50 - $0))] }
        let changes = try stack.context.performAndWait {
            try stack.context.execute(BatchInsertRequest(entityName: "Book", objects: objects))
        }
        #expect(changes.inserted.count == 50)
        #expect(stack.coordinator.rowCacheCount == 0)
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: [reader])
        reader.performAndWait {
            #expect(controller.fetchedObjects.map(\.pages) == Array(1...50))
            #expect(controller.fetchedObjects.first?.title == "T49")
            #expect(controller.fetchedObjects.allSatisfy { $0.price == nil })
        }
        try stack.context.performAndWait {
            let ctx = stack.context
            #expect(throws: CoreStackError.self) { try ctx.execute(BatchInsertRequest(entityName: "Book", objects: [["pages": .integer(3)]])) }
            #expect(throws: CoreStackError.self) { try ctx.execute(BatchInsertRequest(entityName: "Book", objects: [["title": .string("x"), "nope": .integer(1)]])) }
            #expect(throws: CoreStackError.self) { try ctx.execute(BatchInsertRequest(entityName: "Book", objects: [["title": .integer(1)]])) }
            let count = try ctx.count(for: Self.byPages())
            #expect(count == 50)
        }
    }

    @Test("the in-memory store refuses batch requests with a clear error")
    func inMemoryRefuses() throws {
        let stack = try TestStack(.inMemory)
        stack.context.performAndWait {
            #expect(throws: CoreStackError.self) { try stack.context.execute(BatchDeleteRequest(entityName: "Book")) }
            #expect(throws: CoreStackError.self) { try stack.context.execute(BatchUpdateRequest(entityName: "Book")) }
        }
    }
}
