import Foundation
import TestSupportKit
import Testing
@testable import CoreStack

/// A reference that does not keep its object (for checking an object was released).
final class WeakObject {
    /// The object, while something else holds it.
    weak var object: ManagedObject?
    init(_ object: ManagedObject) { self.object = object }
}

@Suite("Contexts release unreferenced clean objects; batched results release passed batches")
struct ObjectReleaseTests {
    static func byPages(batch: Int = 0) -> FetchRequest<Book> {
        var r = FetchRequest<Book>(entityName: "Book", sortDescriptors: [SortDescriptor("pages")])
        r.fetchBatchSize = batch
        r.returnsObjectsAsFaults = false
        return r
    }

    /// Fetches every book and returns weak references to them (no strong one survives the call).
    static func fetchWeakly(_ ctx: ManagedObjectContext) throws -> [WeakObject] {
        try ctx.fetch(byPages()).map(WeakObject.init)
    }

    @Test("an unreferenced clean object is gone after the sweep, with its cached row; refetching it gives equal values in a new instance")
    func cleanObjectReleased() throws {
        let (coordinator, ctx) = try BatchedFetchTests.freshStore(books: 20)
        try ctx.performAndWait {
            let weak = try Self.fetchWeakly(ctx)
            let ids = weak.compactMap { $0.object?.objectID }
            #expect(ids.count == 20)
            #expect(ctx.registeredObjects.count == 20)
            let released = ctx.sweepUnreferencedObjects()
            #expect(released == 20)
            #expect(weak.allSatisfy { $0.object == nil })
            #expect(ctx.registeredObjects.isEmpty)
            #expect(ctx.registeredObject(for: ids[7]) == nil)
            #expect(coordinator.rowCacheCount == 0)
            let again = try #require(try ctx.existingObject(with: ids[7]) as? Book)
            #expect(again.title == "Book 007")
            #expect(again.pages == 7)
            let all = try ctx.fetch(Self.byPages())
            #expect(all.map(\.pages) == Array(0..<20))
            #expect(all[7] === again)
        }
    }

    @Test("a changed, an inserted and a deleted object survive the sweep until saved, then go")
    func changedObjectsSurviveUntilSave() throws {
        let (_, ctx) = try BatchedFetchTests.freshStore(books: 10)
        try ctx.performAndWait {
            let (changed, deleted, inserted) = try Self.makeChanges(ctx)
            ctx.sweepUnreferencedObjects()
            #expect(changed.object != nil)
            #expect(deleted.object != nil)
            #expect(inserted.object != nil)
            #expect(ctx.registeredObjects.count == 3)
            #expect((changed.object as? Book)?.pages == 100)
            try ctx.save()
            ctx.sweepUnreferencedObjects()
            #expect(changed.object == nil)
            #expect(deleted.object == nil)
            #expect(inserted.object == nil)
            #expect(ctx.registeredObjects.isEmpty)
            let pages = try ctx.fetch(Self.byPages()).map(\.pages)
            #expect(pages == Array(2..<10) + [15, 100])
        }
    }

    @Test("a changed object survives the sweep until rolled back, then goes")
    func changedObjectsSurviveUntilRollback() throws {
        let (_, ctx) = try BatchedFetchTests.freshStore(books: 10)
        try ctx.performAndWait {
            let (changed, deleted, inserted) = try Self.makeChanges(ctx)
            ctx.sweepUnreferencedObjects()
            #expect(changed.object != nil)
            #expect(deleted.object != nil)
            #expect(inserted.object != nil)
            ctx.rollback()
            ctx.sweepUnreferencedObjects()
            #expect(changed.object == nil)
            #expect(deleted.object == nil)
            #expect(inserted.object == nil)
            #expect(ctx.registeredObjects.isEmpty)
            #expect(try ctx.fetch(Self.byPages()).map(\.pages) == Array(0..<10))
        }
    }

    /// Book 0 changed to 100 pages, book 1 deleted, a book of 15 pages inserted; weak references
    /// to the three (the fetched array is gone when this returns).
    static func makeChanges(_ ctx: ManagedObjectContext) throws -> (WeakObject, WeakObject, WeakObject) {
        let books = try ctx.fetch(byPages())
        books[0].pages = 100
        try ctx.delete(books[1])
        let new = try Book(context: ctx)
        new.title = "New"
        new.pages = 15
        ctx.processPendingChanges()
        return (WeakObject(books[0]), WeakObject(books[1]), WeakObject(new))
    }

    @Test("retainsRegisteredObjects keeps every object through the sweep")
    func retainsRegisteredObjects() throws {
        let (_, ctx) = try BatchedFetchTests.freshStore(books: 10)
        try ctx.performAndWait {
            ctx.retainsRegisteredObjects = true
            let weak = try Self.fetchWeakly(ctx)
            #expect(ctx.sweepUnreferencedObjects() == 0)
            #expect(weak.allSatisfy { $0.object != nil })
            #expect(ctx.registeredObjects.count == 10)
            ctx.retainsRegisteredObjects = false
            #expect(ctx.sweepUnreferencedObjects() == 10)
            #expect(weak.allSatisfy { $0.object == nil })
        }
    }

    @Test("identity: an object referenced outside the context is the same instance through sweeps and fetches")
    func identityWhileReferenced() throws {
        let (_, ctx) = try BatchedFetchTests.freshStore(books: 10)
        try ctx.performAndWait {
            let kept = try ctx.fetch(Self.byPages())[4]
            ctx.sweepUnreferencedObjects()
            #expect(ctx.registeredObjects.count == 1)
            #expect(try ctx.fetch(Self.byPages())[4] === kept)
            var batched = Self.byPages(batch: 3)
            batched.returnsObjectsAsFaults = true
            let result = try ctx.fetchBatched(batched)
            #expect(result[4] === kept)
            ctx.sweepUnreferencedObjects()
            #expect(try ctx.existingObject(with: kept.objectID) === kept)
            #expect(kept.pages == 4)
        }
    }

    @Test("a batched result holds its last two batches only: passed batches are released, and refetched equal when touched again")
    func batchedResultReleasesPassedBatches() throws {
        let (coordinator, ctx) = try BatchedFetchTests.freshStore(books: 100)
        try ctx.performAndWait {
            let result = try ctx.fetchBatched(Self.byPages(batch: 10))
            #expect(result.count == 100)
            #expect(ctx.registeredObjects.isEmpty)
            #expect(coordinator.rowCacheCount == 0)
            var weak: [WeakObject] = []
            var pages: [Int] = []
            for book in result {
                #expect(!book.isFault)
                weak.append(WeakObject(book))
                pages.append(book.pages)
            }
            #expect(pages == Array(0..<100))
            ctx.sweepUnreferencedObjects()
            #expect(ctx.registeredObjects.count == 20)
            #expect(coordinator.rowCacheCount == 20)
            #expect(weak[..<80].allSatisfy { $0.object == nil })
            #expect(weak[80...].allSatisfy { $0.object != nil })
            #expect(result[95] === weak[95].object)
            let again = result[5]
            #expect(again.pages == 5)
            #expect(again.title == "Book 005")
            #expect(result.map(\.pages) == Array(0..<100))
        }
    }

    @Test("walking a batched result over more objects than the sweep minimum releases as it goes")
    func batchedResultSweepsAsItGoes() throws {
        let n = ManagedObjectContext.registrySweepMinimum + 1_000
        let (_, ctx) = try BatchedFetchTests.freshStore(books: n)
        try ctx.performAndWait {
            let result = try ctx.fetchBatched(Self.byPages(batch: 100))
            var sum = 0
            for book in result { sum += book.pages }
            #expect(sum == n * (n - 1) / 2)
            // Without a sweep every one of the n objects would still be registered.
            #expect(ctx.registeredObjects.count < ManagedObjectContext.registrySweepMinimum)
        }
    }

    @Test("a batched result sees unsaved inserts, deletes and changes as fetch does")
    func batchedResultWithPendingChanges() throws {
        let (_, ctx) = try BatchedFetchTests.freshStore(books: 30)
        try ctx.performAndWait {
            var request = Self.byPages(batch: 7)
            request.returnsObjectsAsFaults = true
            let all = try ctx.fetch(request)
            try ctx.delete(all[3])
            all[10].pages = 1000
            let new = try Book(context: ctx)
            new.title = "New"
            new.pages = 15
            let fetched = try ctx.fetch(request)
            let batched = try ctx.fetchBatched(request)
            #expect(batched.objectIDs == fetched.map(\.objectID))
            #expect(batched.map(\.pages) == fetched.map(\.pages))
            #expect(batched.contains { $0 === new })
        }
    }

    @Test("objects let go on another thread while the context sweeps are released once, never twice")
    func releasedOffQueueWhileSweeping() throws {
        let (_, ctx) = try BatchedFetchTests.freshStore(books: 200)
        for _ in 0..<20 {
            // Returned to this thread: the last outside references go here, not on the queue.
            var objects: [Book]? = try ctx.performAndWait { try ctx.fetch(Self.byPages()) }
            let swept = DispatchSemaphore(value: 0)
            ctx.perform {
                ctx.sweepUnreferencedObjects()
                swept.signal()
            }
            #expect(objects?.count == 200)
            objects = nil
            swept.wait()
            ctx.performAndWait {
                ctx.sweepUnreferencedObjects()
                #expect(ctx.registeredObjects.isEmpty)
            }
        }
    }

    @Test("a batched result of the wrong class is refused up front")
    func batchedResultTypeMismatch() throws {
        let (_, ctx) = try BatchedFetchTests.freshStore(books: 3)
        ctx.performAndWait {
            let r = FetchRequest<Author>(entityName: "Book")
            #expect(throws: CoreStackError.self) { try ctx.fetchBatched(r) }
        }
    }
}
