import Foundation
import TestSupportKit
import Testing
@testable import CoreStack

@Suite("count(for:) in nested contexts")
struct NestedCountTests {
    /// A store of `n` authors, saved, and a fresh coordinator over it (an empty row cache).
    func store(authors n: Int) throws -> (URL, ManagedObjectModel) {
        let url = try TemporaryRoot.folder("count").appendingPathComponent("Count.sqlite")
        let stack = try TestStack(model: nil) { try SQLiteStore(url: url, model: $0) }
        try stack.context.performAndWait {
            for i in 0..<n {
                let a = try stack.context.insertObject(forEntityName: "Author")
                try a.setValue("Author \(i)", forKey: "name")
            }
            try stack.context.save()
        }
        return (url, stack.model)
    }

    @Test("a grandchild with no changes up the chain counts in SQL: no row is read into the cache")
    func countsInSQL() throws {
        let (url, model) = try store(authors: 40)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(SQLiteStore(url: url, model: model, readOnly: true))
        let root = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: "root")
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: root, name: "child")
        let grandchild = ManagedObjectContext(concurrencyType: .privateQueue, parent: child, name: "grandchild")
        let n = try grandchild.performAndWait { try grandchild.count(for: FetchRequest<ManagedObject>(entityName: "Author")) }
        #expect(n == 40)
        #expect(coordinator.rowCacheCount == 0)
        let named = try grandchild.performAndWait {
            try grandchild.count(for: FetchRequest<ManagedObject>(entityName: "Author", predicate: try Predicate(format: "name ENDSWITH %@", "7")))
        }
        #expect(named == 4)
        #expect(coordinator.rowCacheCount == 0)
    }

    @Test("unsaved inserts and deletes in a parent or in the context itself are counted")
    func pendingChangesCount() throws {
        let (url, model) = try store(authors: 10)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(SQLiteStore(url: url, model: model))
        let root = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: "root")
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: root, name: "child")
        let grandchild = ManagedObjectContext(concurrencyType: .privateQueue, parent: child, name: "grandchild")
        let request = FetchRequest<ManagedObject>(entityName: "Author")
        // Two inserted in the middle context, not saved.
        try child.performAndWait {
            for name in ["New 1", "New 2"] {
                let a = try child.insertObject(forEntityName: "Author")
                try a.setValue(name, forKey: "name")
            }
        }
        #expect(try grandchild.performAndWait { try grandchild.count(for: request) } == 12)
        // One deleted in the grandchild itself.
        try grandchild.performAndWait {
            let first = try #require(try grandchild.fetch(request).first)
            try grandchild.delete(first)
        }
        #expect(try grandchild.performAndWait { try grandchild.count(for: request) } == 11)
        var storeOnly = request
        storeOnly.includesPendingChanges = false
        #expect(try grandchild.performAndWait { try grandchild.count(for: storeOnly) } == 10)
        #expect(try root.performAndWait { try root.count(for: request) } == 10)
    }
}
