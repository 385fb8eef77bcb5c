import Foundation
import TestSupportKit
import Testing
@testable import CoreStack

@Suite("The coordinator's row cache keeps at most rowCacheLimit rows, least recently used evicted")
struct RowCacheLimitTests {
    /// A fresh coordinator (empty row cache) over a store of `n` books, `pages` 0…n-1, with the
    /// given limit, and the ID of each book by its pages.
    static func store(books n: Int, limit: Int?) throws -> (PersistentStoreCoordinator, [ManagedObjectID]) {
        let (coordinator, ctx) = try BatchedFetchTests.freshStore(books: n)
        coordinator.rowCacheLimit = limit
        let ids = try ctx.performAndWait {
            try ctx.fetchObjectIDs(FetchRequest<Book>(entityName: "Book", sortDescriptors: [SortDescriptor("pages")]))
        }
        return (coordinator, ids)
    }

    static func context(_ coordinator: PersistentStoreCoordinator, _ name: String) -> ManagedObjectContext {
        ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: name)
    }

    /// Fetches the books whose pages are in `range` in a new context; returns their titles by pages.
    static func read(_ coordinator: PersistentStoreCoordinator, pages range: Range<Int>) throws -> [Int: String] {
        let ctx = context(coordinator, "reader")
        return try ctx.performAndWait {
            let r = FetchRequest<Book>(
                entityName: "Book", predicate: .key("pages") >= .integer(Int64(range.lowerBound)) && .key("pages") < .integer(Int64(range.upperBound)),
                sortDescriptors: [SortDescriptor("pages")])
            return Dictionary(uniqueKeysWithValues: try ctx.fetch(r).map { ($0.pages, $0.title) })
        }
    }

    @Test("reading more rows than the limit keeps rowCacheCount within it, and every object read has its values")
    func countStaysWithinLimit() throws {
        let (coordinator, _) = try Self.store(books: 100, limit: 7)
        let titles = try Self.read(coordinator, pages: 0..<100)
        #expect(coordinator.rowCacheCount <= 7)
        #expect(coordinator.rowCacheCount > 0)
        #expect(titles.count == 100)
        #expect(titles[42] == "Book 042")
        // Lowering the limit trims at once.
        coordinator.rowCacheLimit = 3
        #expect(coordinator.rowCacheCount <= 3)
    }

    @Test("a nil limit keeps every row read")
    func nilKeepsEverything() throws {
        let (coordinator, _) = try Self.store(books: 100, limit: nil)
        _ = try Self.read(coordinator, pages: 0..<100)
        #expect(coordinator.rowCacheCount == 100)
        #expect(coordinator.rowCacheLimit == nil)
    }

    @Test("the default limit is 100,000 rows")
    func defaultLimit() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try TestStack(.inMemory).model)
        #expect(coordinator.rowCacheLimit == 100_000)
        #expect(PersistentStoreCoordinator.defaultRowCacheLimit == 100_000)
    }

    @Test("a fault whose row was evicted reads it from the store again, with the right values")
    func faultAfterEviction() throws {
        let (coordinator, ids) = try Self.store(books: 40, limit: 5)
        _ = try Self.read(coordinator, pages: 0..<40)
        let id = ids[3]
        #expect(!coordinator.isRowCached(id))
        let ctx = Self.context(coordinator, "faulting")
        let (title, pages) = try ctx.performAndWait {
            let b = try #require(try ctx.object(with: id) as? Book)
            return (b.title, b.pages)
        }
        #expect(title == "Book 003")
        #expect(pages == 3)
        #expect(coordinator.isRowCached(id))
        #expect(coordinator.rowCacheCount <= 5)
    }

    @Test("the least recently used row goes first: an old row touched by a fault stays while newer untouched ones go")
    func leastRecentlyUsedFirst() throws {
        let (coordinator, ids) = try Self.store(books: 30, limit: 10)
        _ = try Self.read(coordinator, pages: 0..<10)
        #expect(coordinator.rowCacheCount == 10)
        // Touch the oldest row through a fault (a cache hit in `snapshots(for:)`).
        let ctx = Self.context(coordinator, "toucher")
        let title = try ctx.performAndWait { try #require(try ctx.object(with: ids[0]) as? Book).title }
        #expect(title == "Book 000")
        #expect(coordinator.rowCacheCount == 10)
        _ = try Self.read(coordinator, pages: 10..<15)
        #expect(coordinator.rowCacheCount <= 10)
        #expect(coordinator.isRowCached(ids[0]))
        #expect(!coordinator.isRowCached(ids[1]))
        #expect(!coordinator.isRowCached(ids[2]))
        #expect(coordinator.isRowCached(ids[14]))
        #expect(coordinator.isRowCached(ids[9]))
    }

    /// `saver` reads book 0; `other` (same coordinator) changes it and saves when `conflicting`;
    /// then enough rows are read to evict book 0's row; then `saver` changes it and saves.
    static func saveAfterEviction(conflicting: Bool) throws -> (PersistentStoreCoordinator, ManagedObjectID, Result<Void, any Error>) {
        let (coordinator, ids) = try Self.store(books: 40, limit: 5)
        let id = ids[0]
        let saver = Self.context(coordinator, "saver")
        try saver.performAndWait { _ = try #require(try saver.object(with: id) as? Book).title }
        if conflicting {
            let other = Self.context(coordinator, "other")
            try other.performAndWait {
                try #require(try other.object(with: id) as? Book).title = "Changed elsewhere"
                try other.save()
            }
        }
        _ = try Self.read(coordinator, pages: 1..<40)
        #expect(!coordinator.isRowCached(id))
        let result = saver.performAndWait {
            Result<Void, any Error> {
                let b = try #require(try saver.object(with: id) as? Book)
                b.title = "Saved by saver"
                try saver.save()
            }
        }
        return (coordinator, id, result)
    }

    @Test("a save of an object whose row was evicted still detects an optimistic-locking conflict")
    func conflictAfterEviction() throws {
        let (coordinator, id, result) = try Self.saveAfterEviction(conflicting: true)
        var conflicted = false
        if case .failure(CoreStackError.mergeConflict(let conflicts)) = result {
            conflicted = conflicts.contains { $0.objectID == id }
        }
        #expect(conflicted)
        let title = try Self.read(coordinator, pages: 0..<1)[0]
        #expect(title == "Changed elsewhere")
    }

    @Test("a save of an object whose row was evicted succeeds when nobody else changed it")
    func saveAfterEvictionWithoutConflict() throws {
        let (coordinator, _, result) = try Self.saveAfterEviction(conflicting: false)
        var saved = false
        if case .success = result { saved = true }
        #expect(saved)
        coordinator.invalidateRowCache()
        let title = try Self.read(coordinator, pages: 0..<1)[0]
        #expect(title == "Saved by saver")
    }

    @Test("a limit of 0 caches no row: reads, faults, saves and conflicts all go to the store")
    func zeroLimitCachesNothing() throws {
        let (coordinator, ids) = try Self.store(books: 40, limit: 0)
        let titles = try Self.read(coordinator, pages: 0..<40)
        #expect(titles.count == 40)
        #expect(titles[7] == "Book 007")
        #expect(coordinator.rowCacheCount == 0)
        // A fault reads its row from the store, and a save caches nothing either.
        let writer = Self.context(coordinator, "writer")
        try writer.performAndWait {
            let b = try #require(try writer.object(with: ids[7]) as? Book)
            #expect(b.title == "Book 007")
            b.title = "Seven"
            try writer.save()
        }
        #expect(coordinator.rowCacheCount == 0)
        #expect(try Self.read(coordinator, pages: 7..<8)[7] == "Seven")
        // A stale object still meets optimistic locking: the object's own committed version.
        let saver = Self.context(coordinator, "saver")
        try saver.performAndWait { _ = try #require(try saver.object(with: ids[0]) as? Book).title }
        let other = Self.context(coordinator, "other")
        try other.performAndWait {
            try #require(try other.object(with: ids[0]) as? Book).title = "Changed elsewhere"
            try other.save()
        }
        let result = saver.performAndWait {
            Result<Void, any Error> {
                try #require(try saver.object(with: ids[0]) as? Book).title = "Saved by saver"
                try saver.save()
            }
        }
        var conflicted = false
        if case .failure(CoreStackError.mergeConflict(let conflicts)) = result { conflicted = conflicts.contains { $0.objectID == ids[0] } }
        #expect(conflicted)
        #expect(try Self.read(coordinator, pages: 0..<1)[0] == "Changed elsewhere")
    }
}
