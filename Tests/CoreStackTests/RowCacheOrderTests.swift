import Foundation
import TestSupportKit
import Testing
@testable import CoreStack

@Suite("A row read before a save committed never takes the row cache back in time")
struct RowCacheOrderTests {
    /// A fresh coordinator (empty row cache) over 10 books and the ID of the one with 3 pages.
    static func store() throws -> (PersistentStoreCoordinator, ManagedObjectID) {
        let (coordinator, ids) = try RowCacheLimitTests.store(books: 10, limit: nil)
        return (coordinator, ids[3])
    }

    /// Runs `body` once, from the first read of rows outside the coordinator's lock that reaches
    /// the hook (the reads `body` itself makes do not run it again).
    static func onFirstRead(_ coordinator: PersistentStoreCoordinator, _ body: @escaping @Sendable () throws -> Void) {
        let ran = LockedValue(false)
        coordinator.setAfterStoreReadHook {
            guard ran.withLock({ done in defer { done = true }; return !done }) else { return }
            #expect(throws: Never.self) { try body() }
        }
    }

    /// Saves a new title for the book in a context of its own.
    static func retitle(_ coordinator: PersistentStoreCoordinator, _ id: ManagedObjectID, to title: String) throws {
        let writer = RowCacheLimitTests.context(coordinator, "writer")
        try writer.performAndWait {
            let b = try #require(try writer.existingObject(with: id) as? Book)
            b.title = title
            try writer.save()
        }
    }

    /// The title a new context's fault of the book shows.
    static func faultedTitle(_ coordinator: PersistentStoreCoordinator, _ id: ManagedObjectID) throws -> String {
        let ctx = RowCacheLimitTests.context(coordinator, "late")
        return try ctx.performAndWait { try #require(try ctx.existingObject(with: id) as? Book).title }
    }

    /// A reader context holding the book as a materialised object (row version 1 cached), and
    /// a second coordinator on the same file (as another process would have), whose saves this
    /// coordinator's cache does not see. The caller removes the second coordinator's store.
    static func readerAndOtherCoordinator(
        _ coordinator: PersistentStoreCoordinator, _ id: ManagedObjectID
    ) throws -> (reader: ManagedObjectContext, book: Book, other: PersistentStoreCoordinator) {
        let reader = RowCacheLimitTests.context(coordinator, "reader")
        let book = try reader.performAndWait { try #require(try reader.existingObject(with: id) as? Book) }
        #expect(try Self.cached(coordinator, id).version == 1)
        let store = try #require(coordinator.persistentStore)
        let other = PersistentStoreCoordinator(managedObjectModel: coordinator.managedObjectModel)
        try other.addPersistentStore(SQLiteStore(url: try #require(store.url), model: coordinator.managedObjectModel))
        return (reader, book, other)
    }

    /// The cached title and row version of the book.
    static func cached(_ coordinator: PersistentStoreCoordinator, _ id: ManagedObjectID) throws -> (title: String?, version: Int64) {
        let snapshot = try #require(coordinator.cachedSnapshot(id))
        let slot = try #require(id.entity.allAttributes.firstIndex { $0.name == "title" })
        return (snapshot.values[slot].stringValue, snapshot.version)
    }

    @Test("a fault's row read before another context's save does not replace the save's newer cached row")
    func faultReadThenSave() throws {
        let (coordinator, id) = try Self.store()
        Self.onFirstRead(coordinator) { try Self.retitle(coordinator, id, to: "Saved") }
        let reader = RowCacheLimitTests.context(coordinator, "reader")
        let seen = try reader.performAndWait { try #require(try reader.existingObject(with: id) as? Book).title }
        coordinator.setAfterStoreReadHook(nil)
        let cached = try Self.cached(coordinator, id)
        #expect(cached.title == "Saved")
        #expect(cached.version == 2)
        // The fault that read the older row is handed the newer one the cache kept.
        #expect(seen == "Saved")
        #expect(try Self.faultedTitle(coordinator, id) == "Saved")
    }

    @Test("a refresh whose read a save overtook keeps the save's newer cached row")
    func refreshReadThenSave() throws {
        let (coordinator, id) = try Self.store()
        let reader = RowCacheLimitTests.context(coordinator, "reader")
        let book = try reader.performAndWait { () throws -> Book in
            let b = try #require(try reader.existingObject(with: id) as? Book)
            #expect(b.title == "Book 003")
            return b
        }
        #expect(try Self.cached(coordinator, id).version == 1)
        Self.onFirstRead(coordinator) { try Self.retitle(coordinator, id, to: "Saved") }
        let title = reader.performAndWait {
            reader.refresh(book, mergeChanges: false)
            return book.title
        }
        coordinator.setAfterStoreReadHook(nil)
        let cached = try Self.cached(coordinator, id)
        #expect(cached.title == "Saved")
        #expect(cached.version == 2)
        #expect(title == "Saved")
        #expect(try Self.faultedTitle(coordinator, id) == "Saved")
    }

    @Test("a fetch's rows read before another context's save do not replace the save's newer cached row")
    func fetchReadThenSave() throws {
        let (coordinator, id) = try Self.store()
        Self.onFirstRead(coordinator) { try Self.retitle(coordinator, id, to: "Saved") }
        let reader = RowCacheLimitTests.context(coordinator, "reader")
        try reader.performAndWait {
            // Faults, unbatched: the rows are read and cached, no object filled from them.
            _ = try reader.fetch(FetchRequest<Book>(entityName: "Book", sortDescriptors: [SortDescriptor("pages")]))
        }
        coordinator.setAfterStoreReadHook(nil)
        let cached = try Self.cached(coordinator, id)
        #expect(cached.title == "Saved")
        #expect(cached.version == 2)
        #expect(try Self.faultedTitle(coordinator, id) == "Saved")
    }

    @Test("a row read before another context's save deleted it is not cached, and a later fault finds no object")
    func faultReadThenDelete() throws {
        let (coordinator, id) = try Self.store()
        Self.onFirstRead(coordinator) {
            let writer = RowCacheLimitTests.context(coordinator, "deleter")
            try writer.performAndWait {
                try writer.delete(try writer.existingObject(with: id))
                try writer.save()
            }
        }
        let reader = RowCacheLimitTests.context(coordinator, "reader")
        _ = try reader.performAndWait { try reader.existingObject(with: id) }
        coordinator.setAfterStoreReadHook(nil)
        #expect(!coordinator.isRowCached(id))
        let late = RowCacheLimitTests.context(coordinator, "late")
        #expect(throws: CoreStackError.self) { try late.performAndWait { try late.existingObject(with: id) } }
    }

    @Test("a refresh with no save in between still brings a row changed by another coordinator forward")
    func refreshBringsForward() throws {
        let (coordinator, id) = try Self.store()
        let (reader, book, other) = try Self.readerAndOtherCoordinator(coordinator, id)
        // Another coordinator on the same file saves: this one's cache does not see it.
        try Self.retitle(other, id, to: "Elsewhere")
        let title = reader.performAndWait {
            reader.refresh(book, mergeChanges: false)
            return book.title
        }
        #expect(title == "Elsewhere")
        #expect(try Self.cached(coordinator, id).version == 2)
        other.removePersistentStore()
    }

    @Test("a refresh whose read another coordinator's commit overtook, and a newer read cached meanwhile, keeps the newer row")
    func refreshReadThenRemoteCommitAndNewerRead() throws {
        let (coordinator, id) = try Self.store()
        let (reader, book, other) = try Self.readerAndOtherCoordinator(coordinator, id)
        // After the refresh has read version 1 and before it caches it: another coordinator (as
        // another process would) commits version 2, and a fetch here reads and caches it. No save
        // of this coordinator ran, so its generation did not move.
        Self.onFirstRead(coordinator) {
            try Self.retitle(other, id, to: "Elsewhere")
            let late = RowCacheLimitTests.context(coordinator, "late")
            try late.performAndWait {
                var request = FetchRequest<Book>(entityName: "Book")
                request.returnsObjectsAsFaults = false
                _ = try late.fetch(request)
            }
        }
        let title = reader.performAndWait {
            reader.refresh(book, mergeChanges: false)
            return book.title
        }
        coordinator.setAfterStoreReadHook(nil)
        let cached = try Self.cached(coordinator, id)
        #expect(cached.title == "Elsewhere")
        #expect(cached.version == 2)
        #expect(title == "Elsewhere")
        #expect(try Self.faultedTitle(coordinator, id) == "Elsewhere")
        other.removePersistentStore()
    }

    @Test("a refresh with no read in between replaces a cached row whatever its version (a store replaced in place)")
    func refreshReplacesHigherVersionWhenNothingReadSince() throws {
        let (coordinator, id) = try Self.store()
        let reader = RowCacheLimitTests.context(coordinator, "reader")
        let book = try reader.performAndWait { try #require(try reader.existingObject(with: id) as? Book) }
        // Two saves here: the cache holds version 3.
        try Self.retitle(coordinator, id, to: "Second")
        try Self.retitle(coordinator, id, to: "Third")
        #expect(try Self.cached(coordinator, id).version == 3)
        // Another process writes version 1 back straight into the file (as a store replaced in
        // place would hold): a refresh takes the store's row, older version or not.
        let url = try #require(coordinator.persistentStore?.url)
        let pk = try #require(id.primaryKey)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        p.arguments = [url.path, ".timeout 5000", "UPDATE ZBOOK SET ZTITLE = 'Restored', Z_OPT = 1 WHERE Z_PK = \(pk);"]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let title = reader.performAndWait {
            reader.refresh(book, mergeChanges: false)
            return book.title
        }
        #expect(title == "Restored")
        #expect(try Self.cached(coordinator, id).version == 1)
    }
}
