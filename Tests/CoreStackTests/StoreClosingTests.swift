import Foundation
import TestSupportKit
import Testing

@testable import CoreStack

/// `PersistentStoreCoordinator.remove(_:)` and `SQLiteStore.close()`: a store leaves its
/// coordinator with a clear error for contexts, and closing it lets SQLite remove the `-wal` and
/// `-shm` files while the store object is still alive (a program that ends with `exit` never frees it).
@Suite struct StoreClosingTests {
    private func names(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    /// A store of three books in a fresh folder (`name`, the store file `file`), a coordinator and
    /// a context on it.
    static func library(_ name: String = "closing", file: String = "Closing.sqlite") throws -> (folder: URL, store: SQLiteStore, stack: TestStack) {
        let folder = try TemporaryRoot.folder(name)
        let url = folder.appendingPathComponent(file)
        var opened: SQLiteStore?
        let stack = try TestStack(model: nil) { model in
            let store = try SQLiteStore(url: url, model: model)
            opened = store
            return store
        }
        let store = try #require(opened)
        try stack.context.performAndWait {
            for i in 0..<3 {
                let b = try Book(context: stack.context)
                b.title = "Book \(i)"
                b.pages = i
            }
            try stack.context.save()
        }
        return (folder, store, stack)
    }

    @Test("closing a writable store while it is still referenced leaves only the store file, and the store refuses reads, fetches and saves with storeClosed")
    func closeRemovesSideFilesAndRefusesWork() throws {
        let (folder, store, stack) = try Self.library()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try names(folder).contains("Closing.sqlite-wal"), "an open WAL store has its -wal")
        try stack.coordinator.remove(store)
        store.close()
        #expect(store.isClosed)
        #expect(try names(folder) == ["Closing.sqlite"])
        let path = folder.appendingPathComponent("Closing.sqlite").path
        #expect(throws: CoreStackError.storeClosed(path)) { try store.storeEntities() }
        let book = try #require(store.model.entity(named: "Book"))
        #expect(throws: CoreStackError.storeClosed(path)) { try store.fetch(StoreFetchRequest(entity: book)) }
        #expect(throws: CoreStackError.storeClosed(path)) { try store.newPrimaryKeys(for: book, count: 1) }
        // A stream opens a connection of its own: not after the close (no side files made again).
        #expect(throws: CoreStackError.storeClosed(path)) {
            try store.fetch(StoreFetchRequest(entity: book), withToMany: false) { _, _ in }
        }
        store.close()   // a second close does nothing
        #expect(try names(folder) == ["Closing.sqlite"])
        // The file is whole: it opens again with its three books.
        let again = try SQLiteStore(url: URL(fileURLWithPath: path), model: store.model)
        #expect(try again.fetch(StoreFetchRequest(entity: book)).count == 3)
    }

    @Test("a store closed while still in its coordinator gives contexts storeClosed, not a crash")
    func closedStoreInCoordinator() throws {
        let (folder, store, stack) = try Self.library()
        defer { try? FileManager.default.removeItem(at: folder) }
        store.close()
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: stack.coordinator, name: "reader")
        let path = folder.appendingPathComponent("Closing.sqlite").path
        #expect(throws: CoreStackError.storeClosed(path)) {
            try reader.performAndWait { try reader.fetch(FetchRequest<Book>(entityName: "Book")) }
        }
    }

    @Test("closing a read-only store of a WAL-mode fixture leaves the folder as found while the store object lives on")
    func readOnlyCloseLeavesFolderAsFound() throws {
        let url = try Fixtures.copyStore("stores/bnr-CoreDataStack/TestModel.sqlite")
        let folder = url.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: folder) }
        let before = try names(folder)
        let bundle = try XcodeModelReader.readBundle(at: Fixtures.url("models/bnr-CoreDataStack-2015/TestModel.xcdatamodeld"))
        let store = try SQLiteStore.open(url: url, bundle: bundle, readOnly: true)
        for entity in store.model.entities { _ = try store.fetch(StoreFetchRequest(entity: entity)) }
        #expect(try names(folder) != before, "SQLite made side files while reading")
        store.close()
        #expect(try names(folder) == before)
        #expect(throws: CoreStackError.storeClosed(url.path)) { try store.storeEntities() }
    }

    @Test("after remove(_:), the row cache is empty, fetches and faults throw noStore, and a save keeps its unsaved changes instead of pretending they were saved")
    func removeLeavesContextsWithAClearError() throws {
        let (folder, store, stack) = try Self.library()
        defer { try? FileManager.default.removeItem(at: folder) }
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: stack.coordinator, name: "reader")
        let ids = try reader.performAndWait { try reader.fetchObjectIDs(FetchRequest<Book>(entityName: "Book")) }
        #expect(stack.coordinator.rowCacheCount > 0)
        try stack.coordinator.remove(store)
        #expect(stack.coordinator.persistentStore == nil)
        #expect(stack.coordinator.rowCacheCount == 0)
        #expect(throws: CoreStackError.self) {
            try reader.performAndWait { try reader.fetch(FetchRequest<Book>(entityName: "Book")) }
        }
        do {
            try reader.performAndWait { _ = try reader.fetch(FetchRequest<Book>(entityName: "Book")) }
        } catch let error as CoreStackError {
            guard case .noStore = error else { Issue.record("expected noStore, got \(error)"); return }
        }
        // A fault of a book never read in this context.
        let fresh = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: stack.coordinator, name: "fresh")
        #expect(throws: CoreStackError.self) {
            try fresh.performAndWait { _ = try fresh.existingObject(with: ids[0]) }
        }
        // An insert made after the removal is not saved and stays a pending change.
        let writer = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: stack.coordinator, name: "writer")
        try writer.performAndWait {
            let b = try Book(context: writer)
            b.title = "Orphan"
            #expect(throws: CoreStackError.self) { try writer.save() }
            #expect(writer.hasChanges)
            #expect(b.objectID.isTemporaryID)
        }
        // The store itself is untouched and still open.
        #expect(!store.isClosed)
        #expect(try store.storeEntities().isEmpty == false)
    }

    @Test("remove(_:) of a store that is not the coordinator's throws noStore and keeps the coordinator's store")
    func removeOfAnotherStore() throws {
        let (folder, store, stack) = try Self.library()
        defer { try? FileManager.default.removeItem(at: folder) }
        let other = InMemoryStore(model: stack.model)
        #expect(throws: CoreStackError.self) { try stack.coordinator.remove(other) }
        #expect(stack.coordinator.persistentStore === store)
    }
}
