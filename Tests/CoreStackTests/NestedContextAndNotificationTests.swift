import Foundation
import Testing
@testable import CoreStack

@Suite("Nested contexts, notifications, merging, conflicts")
struct NestedContextAndNotificationTests {
    @Test("a child save reaches the parent, the parent save reaches the store, a third context sees it", arguments: StoreKind.allCases)
    func childParentStore(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let root = stack.context
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: root, name: "child")
        let tempID: ManagedObjectID = try child.performAndWait {
            let b = try Book(context: child)
            b.title = "Emma"
            b.pages = 474
            let a = try Author(context: child)
            a.name = "Jane Austen"
            b.authors = [a]
            try child.save()
            #expect(!child.hasChanges)
            return b.objectID
        }
        // In the parent, not in the store yet.
        try root.performAndWait {
            #expect(root.hasChanges)
            let b = try #require(try root.object(with: tempID) as? Book)
            #expect(b.isInserted)
            #expect(b.title == "Emma")
            #expect(b.authors.map(\.name) == ["Jane Austen"])
        }
        let third = stack.newContext("third")
        try third.performAndWait {
            let n = try third.count(for: FetchRequest<Book>(entityName: "Book"))
            #expect(n == 0)
        }
        try root.performAndWait { try root.save() }
        try third.performAndWait {
            let books = try third.fetch(FetchRequest<Book>(entityName: "Book"))
            #expect(books.map(\.title) == ["Emma"])
            #expect(books.first?.authors.map(\.name) == ["Jane Austen"])
        }
        // The child keeps working with its objects after the parent saved: an update goes through.
        try child.performAndWait {
            let b = try #require(try child.object(with: tempID) as? Book)
            b.pages = 500
            try child.save()
        }
        try root.performAndWait {
            #expect(root.updated.count == 1)
            try root.save()
        }
        try third.performAndWait {
            third.refreshAllObjects()
            let pages = try third.fetch(FetchRequest<Book>(entityName: "Book")).first?.pages
            #expect(pages == 500)
        }
    }

    @Test("a child fetch sees the parent's unsaved changes, and its own", arguments: StoreKind.allCases)
    func childFetchSeesParentChanges(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let root = stack.context
        try root.performAndWait {
            let b = try Book(context: root)
            b.title = "Saved"
            try root.save()
            let u = try Book(context: root)
            u.title = "Unsaved in parent"
        }
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: root)
        try child.performAndWait {
            let r = FetchRequest<Book>(entityName: "Book", sortDescriptors: [SortDescriptor("title")])
            #expect(try child.fetch(r).map(\.title) == ["Saved", "Unsaved in parent"])
            let mine = try Book(context: child)
            mine.title = "Child only"
            #expect(try child.fetch(r).map(\.title) == ["Child only", "Saved", "Unsaved in parent"])
            #expect(try child.count(for: r) == 3)
        }
    }

    @Test("objectsDidChange, willSave and didSave: typed observers and NotificationCenter posts", arguments: StoreKind.allCases)
    func notifications(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ctx = stack.context
        final class Log: @unchecked Sendable { var events: [String] = [] }
        let log = Log()
        let center = NotificationCenter.default
        let observer = center.addObserver(forName: .managedObjectContextDidSave, object: ctx, queue: nil) { note in
            let ids = note.userInfo?[ContextNotificationKey.insertedObjectIDs] as? Set<ManagedObjectID> ?? []
            log.events.append("nc didSave \(ids.count)")
        }
        defer { center.removeObserver(observer) }
        try ctx.performAndWait {
            let t1 = ctx.addObjectsDidChangeObserver { change in
                log.events.append("didChange +\(change.inserted.count) ~\(change.updated.count) -\(change.deleted.count)")
            }
            let t2 = ctx.addWillSaveObserver { _ in log.events.append("willSave") }
            let t3 = ctx.addDidSaveObserver { saved in
                log.events.append("didSave +\(saved.objectIDs.inserted.count) ~\(saved.objectIDs.updated.count) -\(saved.objectIDs.deleted.count)")
                #expect(saved.inserted.allSatisfy { !$0.objectID.isTemporaryID })
            }
            let b = try Book(context: ctx)
            b.title = "A"
            let c = try Book(context: ctx)
            c.title = "B"
            ctx.processPendingChanges()
            try ctx.save()
            b.title = "A2"
            try ctx.delete(c)
            try ctx.save()
            ctx.removeObserver(t1)
            _ = (t2, t3)
        }
        #expect(log.events == [
            "didChange +2 ~0 -0", "willSave", "didSave +2 ~0 -0", "nc didSave 2",
            "didChange +0 ~1 -1", "willSave", "didSave +0 ~1 -1", "nc didSave 0",
        ])
    }

    @Test("didSave's inserted objects are exactly those saved, also when willSave swaps one announced insert for another")
    func didSaveInsertedSet() throws {
        let stack = try TestStack(.inMemory)
        let ctx = stack.context
        try ctx.performAndWait {
            var saved: [Set<ObjectIdentifier>] = []
            var announced: [Int] = []
            var swap = false
            var keptAlive: [ManagedObject] = []
            let didChange = ctx.addObjectsDidChangeObserver { announced.append($0.inserted.count) }
            let willSave = ctx.addWillSaveObserver { c in
                guard swap, let victim = c.insertedObjects.values.first else { return }
                // Same count as announced, different members: the announced set must not be reused.
                try? c.delete(victim)
                if let extra = try? c.insert(Author.self) {
                    extra.name = "Added in willSave"
                    keptAlive.append(extra)
                }
            }
            let didSave = ctx.addDidSaveObserver { saved.append(Set($0.inserted.map(ObjectIdentifier.init))) }
            defer { _ = (didChange, willSave, didSave) }

            let first = try (0..<5).map { i in
                let a = try ctx.insert(Author.self)
                a.name = "A\(i)"
                return a
            }
            try ctx.save()
            #expect(announced == [5])
            #expect(saved.last == Set(first.map(ObjectIdentifier.init)))

            swap = true
            let second = try (0..<5).map { i in
                let a = try ctx.insert(Author.self)
                a.name = "B\(i)"
                return a
            }
            try ctx.save()
            let extra = try #require(keptAlive.first)
            let expected = Set(second.dropFirst().map(ObjectIdentifier.init) + [ObjectIdentifier(extra)])
            #expect(saved.count == 2)
            #expect(saved.last == expected)
            #expect(saved.last?.count == 5)
        }
    }

    @Test("mergeChanges(fromContextDidSave:) refreshes, removes and announces objects", arguments: StoreKind.allCases)
    func mergeFromDidSave(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let writer = stack.context
        let reader = stack.newContext("reader")
        let ids: (ManagedObjectID, ManagedObjectID) = try writer.performAndWait {
            let a = try Book(context: writer)
            a.title = "Keep"
            let b = try Book(context: writer)
            b.title = "Drop"
            try writer.save()
            return (a.objectID, b.objectID)
        }
        let (keep, drop) = try reader.performAndWait {
            let r = FetchRequest<Book>(entityName: "Book", sortDescriptors: [SortDescriptor("title")])
            let books = try reader.fetch(r)
            #expect(books.map(\.title) == ["Drop", "Keep"])
            return (books[1], books[0])
        }
        final class Box: @unchecked Sendable { var note: Notification? }
        let box = Box()
        let observer = NotificationCenter.default.addObserver(forName: .managedObjectContextDidSave, object: writer, queue: nil) { box.note = $0 }
        try writer.performAndWait {
            let a = try writer.existingObject(with: ids.0) as? Book
            a?.title = "Kept and renamed"
            try writer.delete(try writer.existingObject(with: ids.1))
            let c = try Book(context: writer)
            c.title = "New"
            try writer.save()
        }
        NotificationCenter.default.removeObserver(observer)
        let note = try #require(box.note)
        try reader.performAndWait {
            final class Seen: @unchecked Sendable { var change: ObjectsDidChange? }
            let seen = Seen()
            let token = reader.addObjectsDidChangeObserver { seen.change = $0 }
            reader.mergeChanges(fromContextDidSave: note)
            #expect(keep.title == "Kept and renamed")
            #expect(drop.managedObjectContext == nil)
            let change = try #require(seen.change)
            #expect(change.updated.contains(keep))
            #expect(change.deleted.contains(drop))
            #expect(change.inserted.count == 1)
            _ = token
            let titles = try reader.fetch(FetchRequest<Book>(entityName: "Book", sortDescriptors: [SortDescriptor("title")])).map(\.title)
            #expect(titles == ["Kept and renamed", "New"])
        }
    }

    @Test("automaticallyMergesChangesFromParent: siblings see a child's save into their parent", arguments: StoreKind.allCases)
    func automaticMerges(kind: StoreKind) async throws {
        let stack = try TestStack(kind)
        let root = stack.context
        let id: ManagedObjectID = try root.performAndWait {
            let b = try Book(context: root)
            b.title = "Before"
            try root.save()
            return b.objectID
        }
        let watcher = ManagedObjectContext(concurrencyType: .privateQueue, parent: root, name: "watcher")
        watcher.automaticallyMergesChangesFromParent = true
        let editor = ManagedObjectContext(concurrencyType: .privateQueue, parent: root, name: "editor")
        let before = try await watcher.perform { try (watcher.existingObject(with: id) as? Book)?.title }
        #expect(before == "Before")
        try await editor.perform {
            let b = try editor.existingObject(with: id) as? Book
            b?.title = "After"
            try editor.save()
        }
        // The merge is scheduled on the watcher's queue; a block queued after it sees its result.
        let after = try await watcher.perform { try (watcher.existingObject(with: id) as? Book)?.title }
        #expect(after == "After")
    }

    @Test("optimistic locking: a conflicting save fails with each conflict listed, or merges by policy", arguments: StoreKind.allCases)
    func conflicts(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let a = stack.context
        let b = stack.newContext("b")
        let id: ManagedObjectID = try a.performAndWait {
            let book = try Book(context: a)
            book.title = "Original"
            book.pages = 1
            try a.save()
            return book.objectID
        }
        let bookInB = try b.performAndWait { try #require(try b.existingObject(with: id) as? Book) }
        try a.performAndWait {
            let book = try #require(try a.existingObject(with: id) as? Book)
            book.title = "Changed by A"
            try a.save()
        }
        try b.performAndWait {
            bookInB.pages = 2
            do {
                try b.save()
                Issue.record("the save should have failed")
            } catch let CoreStackError.mergeConflict(conflicts) {
                #expect(conflicts.map(\.objectID) == [id])
                #expect(conflicts.map(\.oldVersionNumber) == [1] && conflicts.map(\.newVersionNumber) == [2])
                #expect(conflicts.first?.conflictingKeys == [])
                #expect(conflicts.first?.contextChangedKeys == ["pages"] && conflicts.first?.storeChangedKeys == ["title"])
            }
            #expect(b.hasChanges)
            b.mergePolicy = .mergeByPropertyObjectTrump
            try b.save()
            #expect(bookInB.title == "Changed by A")
            #expect(bookInB.pages == 2)
        }
        let c = stack.newContext("c")
        try c.performAndWait {
            c.refreshAllObjects()
            let book = try #require(try c.existingObject(with: id) as? Book)
            #expect(book.title == "Changed by A" && book.pages == 2)
        }
    }

    @Test("a save that fails after handing out permanent IDs keeps its inserts usable", arguments: StoreKind.allCases)
    func failedSaveKeepsInserts(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let a = stack.context
        let b = stack.newContext("b")
        let id: ManagedObjectID = try a.performAndWait {
            let book = try Book(context: a)
            book.title = "Shared"
            try a.save()
            return book.objectID
        }
        let shared = try b.performAndWait { try #require(try b.existingObject(with: id) as? Book) }
        try a.performAndWait {
            let book = try #require(try a.existingObject(with: id) as? Book)
            book.pages = 10
            try a.save()
        }
        try b.performAndWait {
            shared.pages = 20
            let keep = try Book(context: b)
            keep.title = "Keep"
            let drop = try Book(context: b)
            drop.title = "Drop"
            #expect(throws: CoreStackError.self) { try b.save() }
            // The inserts now have permanent IDs and are still pending, under those IDs.
            #expect(!keep.objectID.isTemporaryID && keep.isInserted)
            #expect(b.inserted.count == 2)
            try b.delete(drop)
            #expect(b.inserted.map(\.objectID) == [keep.objectID])
            b.mergePolicy = .mergeByPropertyObjectTrump
            try b.save()
        }
        let c = stack.newContext("c")
        try c.performAndWait {
            let titles = try c.fetch(FetchRequest<Book>(entityName: "Book", sortDescriptors: [SortDescriptor("title")])).map(\.title)
            #expect(titles == ["Keep", "Shared"])
        }
    }

    @Test("store trump and rollback policies", arguments: StoreKind.allCases)
    func storeTrumpAndRollback(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let a = stack.context
        let id: ManagedObjectID = try a.performAndWait {
            let book = try Book(context: a)
            book.title = "T"
            book.pages = 1
            try a.save()
            return book.objectID
        }
        for (policy, expectedTitle, expectedPages) in [(MergePolicy.mergeByPropertyStoreTrump, "store", 9), (.rollback, "store", 1)] {
            let b = stack.newContext("b")
            let c = stack.newContext("c")
            try b.performAndWait {
                let book = try #require(try b.existingObject(with: id) as? Book)
                _ = book.title
            }
            try c.performAndWait {
                let book = try #require(try c.existingObject(with: id) as? Book)
                book.title = "store"
                book.pages = 1
                try c.save()
            }
            try b.performAndWait {
                let book = try #require(try b.existingObject(with: id) as? Book)
                book.title = "mine"
                book.pages = 9
                b.mergePolicy = policy
                try b.save()
                #expect(book.title == expectedTitle)
                #expect(book.pages == expectedPages)
            }
        }
    }

    @Test("rollback, reset and refresh", arguments: StoreKind.allCases)
    func rollbackResetRefresh(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ctx = stack.context
        try ctx.performAndWait {
            let b = try Book(context: ctx)
            b.title = "Saved"
            try ctx.save()
            b.title = "Edited"
            let n = try Book(context: ctx)
            n.title = "New"
            ctx.rollback()
            #expect(b.title == "Saved")
            #expect(!ctx.hasChanges)
            #expect(n.managedObjectContext == nil)
            b.title = "Edited again"
            ctx.refresh(b, mergeChanges: false)
            #expect(b.isFault)
            #expect(b.title == "Saved")
            ctx.reset()
            #expect(ctx.registeredObjects.isEmpty)
            #expect(b.managedObjectContext == nil)
            #expect(try ctx.count(for: FetchRequest<Book>(entityName: "Book")) == 1)
        }
    }

    @Test("obtainPermanentIDs before save; existingObject of a missing ID throws", arguments: StoreKind.allCases)
    func permanentIDs(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ctx = stack.context
        try ctx.performAndWait {
            let b = try Book(context: ctx)
            b.title = "x"
            try ctx.obtainPermanentIDs(for: [b])
            #expect(!b.objectID.isTemporaryID)
            let id = b.objectID
            try ctx.save()
            #expect(b.objectID == id)
            let bogusURI = try #require(URL(string: "x-coredata://\(id.storeIdentifier)/Book/p999"))
            let bogus = try #require(stack.coordinator.managedObjectID(forURIRepresentation: bogusURI))
            #expect(throws: CoreStackError.self) { try ctx.existingObject(with: bogus) }
        }
    }

    @Test("faults fire in batches from one fetch", arguments: StoreKind.allCases)
    func batchFaulting(kind: StoreKind) throws {
        final class CountingStore: ForwardingStore, @unchecked Sendable {
            var rowCalls: [Int] = []
            override func rows(for ids: [ManagedObjectID]) throws -> [StoreRow] { rowCalls.append(ids.count); return try inner.rows(for: ids) }
        }
        let model = try LibraryModel.make()
        let inner = try TestStack(kind, model: model).coordinator.persistentStore
        let store = CountingStore(try #require(inner))
        let stack = try TestStack(model: model) { _ in store }
        try stack.context.performAndWait {
            for i in 0..<25 {
                let b = try Book(context: stack.context)
                b.title = "Book \(i)"
            }
            try stack.context.save()
        }
        let fresh = stack.newContext()
        try fresh.performAndWait {
            stack.coordinator.invalidateRowCache()
            var r = FetchRequest<Book>(entityName: "Book", sortDescriptors: [SortDescriptor("title")])
            r.fetchBatchSize = 10
            let ids = try fresh.fetchObjectIDs(r)
            // Objects made from IDs alone fire from the store; the fetch groups them in tens.
            stack.coordinator.invalidateRowCache()
            let books = try fresh.fetch(r)
            stack.coordinator.invalidateRowCache()
            #expect(books.filter { !$0.isFault }.isEmpty)
            #expect(books.count == 25 && ids.count == 25)
            store.rowCalls = []
            _ = books[0].title
            _ = books[5].title
            _ = books[12].title
            _ = books[24].title
            #expect(store.rowCalls == [10, 10, 5])
        }
    }

    @Test("a main-queue context works from async code", arguments: StoreKind.allCases)
    func mainQueueContext(kind: StoreKind) async throws {
        let stack = try TestStack(kind)
        let main = ManagedObjectContext(concurrencyType: .mainQueue, coordinator: stack.coordinator, name: "main")
        let count = try await main.perform {
            let b = try Book(context: main)
            b.title = "On main"
            try main.save()
            return try main.count(for: FetchRequest<Book>(entityName: "Book"))
        }
        #expect(count == 1)
    }
}
