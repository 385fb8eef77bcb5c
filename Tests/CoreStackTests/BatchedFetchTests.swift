import Foundation
import TestSupportKit
import Testing
@testable import CoreStack

@Suite("Batched fetches and ID fetches read only what is touched")
struct BatchedFetchTests {
    /// A store of `n` books titled "Book 000"…, saved; a fresh coordinator over it (an empty row cache).
    static func freshStore(books n: Int) throws -> (coordinator: PersistentStoreCoordinator, context: ManagedObjectContext) {
        let url = try TemporaryRoot.folder("batched").appendingPathComponent("Batched.sqlite")
        let stack = try TestStack(model: nil) { try SQLiteStore(url: url, model: $0) }
        try stack.context.performAndWait {
            for i in 0..<n {
                let b = try Book(context: stack.context)
                b.title = String(format: "Book %03d", i)
                b.pages = i
            }
            try stack.context.save()
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: stack.model)
        try coordinator.addPersistentStore(SQLiteStore(url: url, model: stack.model))
        return (coordinator, ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: "fresh"))
    }

    static func byPages(batch: Int) -> FetchRequest<Book> {
        var r = FetchRequest<Book>(entityName: "Book", sortDescriptors: [SortDescriptor("pages")])
        r.fetchBatchSize = batch
        return r
    }

    @Test("fetchObjectIDs reads IDs in SQL: same IDs and order as a fetch, no row cached, no object registered")
    func objectIDsInSQL() throws {
        let (coordinator, ctx) = try Self.freshStore(books: 60)
        try ctx.performAndWait {
            var r = FetchRequest<Book>(entityName: "Book", predicate: .key("pages") >= 20, sortDescriptors: [SortDescriptor("title", ascending: false)])
            r.fetchOffset = 5
            r.fetchLimit = 10
            let ids = try ctx.fetchObjectIDs(r)
            #expect(coordinator.rowCacheCount == 0)
            #expect(ctx.registeredObjects.isEmpty)
            // pages 20…59 are primary keys 21…60; by title descending, five skipped, ten kept.
            #expect(ids.compactMap(\.primaryKey) == Array((46...55).reversed()))
            let fetched = try ctx.fetch(r).map(\.objectID)
            #expect(ids == fetched)
        }
    }

    @Test("a batched fetch reads no row up front; touching an object reads its batch alone")
    func batchesReadWhenTouched() throws {
        let (coordinator, ctx) = try Self.freshStore(books: 100)
        try ctx.performAndWait {
            let books = try ctx.fetch(Self.byPages(batch: 10))
            #expect(books.count == 100)
            #expect(coordinator.rowCacheCount == 0)
            #expect(books.allSatisfy { $0.isFault })
            #expect(books[37].title == "Book 037")
            #expect(coordinator.rowCacheCount == 10)
            #expect(books.indices.filter { !books[$0].isFault } == Array(30..<40))
            #expect(books.map(\.pages) == Array(0..<100))
        }
    }

    @Test("a batched fetch with unsaved inserts, deletes and changes: the context's view, in order")
    func batchedWithPendingChanges() throws {
        let (_, ctx) = try Self.freshStore(books: 30)
        try ctx.performAndWait {
            let all = try ctx.fetch(Self.byPages(batch: 7))
            try ctx.delete(all[3])
            try ctx.delete(all[20])
            all[10].pages = 1000
            let new = try Book(context: ctx)
            new.title = "New"
            new.pages = 15
            let again = try ctx.fetch(Self.byPages(batch: 7))
            var expected = Array(0..<30).filter { $0 != 3 && $0 != 20 && $0 != 10 }
            expected.insert(15, at: expected.firstIndex(of: 16) ?? 0)
            expected.append(1000)
            #expect(again.map(\.pages) == expected)
            #expect(again.contains { $0 === new })
            let counted = try ctx.count(for: Self.byPages(batch: 7))
            #expect(counted == 29)
            let idCount = try ctx.fetchObjectIDs(Self.byPages(batch: 7)).count
            #expect(idCount == 29)
        }
    }

    @Test("a child context's batched fetch sees its parent's unsaved objects")
    func batchedInChild() throws {
        let (_, root) = try Self.freshStore(books: 12)
        try root.performAndWait {
            let b = try Book(context: root)
            b.title = "Parent's"
            b.pages = 5
        }
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: root, name: "child")
        try child.performAndWait {
            let books = try child.fetch(Self.byPages(batch: 4))
            #expect(books.count == 13)
            #expect(books.filter { $0.title == "Parent's" }.count == 1)
            #expect(books.map(\.pages) == (Array(0...5) + [5] + Array(6..<12)))
        }
    }

    @Test("a controller with a batch size reads IDs and keys only, and stays right under inserts, deletes and moves")
    func controllerWithBatchSize() throws {
        let (coordinator, ctx) = try Self.freshStore(books: 40)
        try ctx.performAndWait {
            var request = Self.byPages(batch: 5)
            request.predicate = .key("pages") < 1000
            let controller = FetchedResultsController(fetchRequest: request, context: ctx, sectionNameKeyPath: "price")
            try controller.performFetch()
            #expect(coordinator.rowCacheCount == 0)
            #expect(controller.fetchedObjects.allSatisfy { $0.isFault })
            #expect(controller.fetchedObjects.map(\.pages) == Array(0..<40))
            let objects = controller.fetchedObjects
            try ctx.delete(objects[0])
            try ctx.delete(objects[22])
            objects[5].pages = 100
            objects[6].pages = 5000
            let new = try Book(context: ctx)
            new.title = "New"
            new.pages = 17
            ctx.processPendingChanges()
            var expected = Array(1..<40).filter { ![5, 6, 22].contains($0) }
            expected.insert(17, at: expected.lastIndex(of: 17).map { $0 + 1 } ?? 0)
            expected.append(100)
            #expect(controller.fetchedObjects.map(\.pages) == expected)
            #expect(controller.indexPath(for: new) != nil)
            #expect(controller.indexPath(for: objects[6]) == nil)
            try ctx.save()
            let fresh = FetchedResultsController(fetchRequest: request, context: ctx, sectionNameKeyPath: "price")
            try fresh.performFetch()
            #expect(fresh.fetchedObjects.map(\.objectID) == controller.fetchedObjects.map(\.objectID))
        }
    }

    @Test("in a child context the controller reads IDs and keys from the store, unless the parent has unsaved changes")
    func controllerInChildContext() throws {
        let (coordinator, root) = try Self.freshStore(books: 30)
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: root, name: "child")
        let request = Self.byPages(batch: 5)
        try child.performAndWait {
            let controller = FetchedResultsController(fetchRequest: request, context: child)
            try controller.performFetch()
            #expect(coordinator.rowCacheCount == 0)
            #expect(controller.fetchedObjects.map(\.pages) == Array(0..<30))
            #expect(coordinator.rowCacheCount == 30)
        }
        try root.performAndWait {
            let b = try Book(context: root)
            b.title = "Unsaved"
            b.pages = 3
        }
        try child.performAndWait {
            let controller = FetchedResultsController(fetchRequest: request, context: child)
            try controller.performFetch()
            #expect(controller.count == 31)
            #expect(controller.fetchedObjects.filter { $0.pages == 3 }.map(\.title).sorted() == ["Book 003", "Unsaved"])
        }
    }
}
