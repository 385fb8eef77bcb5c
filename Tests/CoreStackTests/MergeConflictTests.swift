import Foundation
import TestSupportKit
import Testing
@testable import CoreStack

@Suite("Merge conflicts: the report, what each policy did, child saves, custom policies")
struct MergeConflictTests {
    /// A stack on a store of the given kind, and a way to read what is in the store with a new
    /// coordinator (SQLite: the file on disk) or a new context (in memory).
    struct Harness {
        let stack: TestStack
        let url: URL?

        init(_ kind: StoreKind) throws {
            switch kind {
            case .inMemory:
                stack = try TestStack(.inMemory)
                url = nil
            case .sqlite:
                let url = try TemporaryRoot.folder("merge").appendingPathComponent("Merge.sqlite")
                stack = try TestStack { try SQLiteStore(url: url, model: $0) }
                self.url = url
            }
        }

        /// The saved book, read by a reader that shares nothing with the contexts under test.
        func bookOnDisk(_ id: ManagedObjectID) throws -> (title: String, pages: Int, price: Double?) {
            let reader: ManagedObjectContext
            if let url {
                let coordinator = PersistentStoreCoordinator(managedObjectModel: stack.model)
                try coordinator.addPersistentStore(try SQLiteStore(url: url, model: stack.model))
                reader = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
            } else {
                reader = stack.newContext("reader")
            }
            return try reader.performAndWait {
                let b = try #require(try reader.existingObject(with: id) as? Book)
                return (b.title, b.pages, b.price)
            }
        }

        /// Saves a book, then lets `sibling` change it in the store after `saver` read it; then
        /// `edit` changes it in `saver`, which saves under `policy`.
        func conflict(
            policy: MergePolicy, title: String = "T0", pages: Int = 10,
            sibling: @escaping (Book) -> Void, edit: @escaping (Book) -> Void
        ) throws -> (id: ManagedObjectID, saver: ManagedObjectContext, saved: [ContextDidSave]) {
            let setup = stack.newContext("setup")
            let id: ManagedObjectID = try setup.performAndWait {
                let b = try Book(context: setup)
                b.title = title
                b.pages = pages
                try setup.save()
                return b.objectID
            }
            let saver = stack.newContext("saver")
            try saver.performAndWait { _ = (try saver.existingObject(with: id) as? Book)?.title }
            let other = stack.newContext("sibling")
            try other.performAndWait {
                let b = try #require(try other.existingObject(with: id) as? Book)
                sibling(b)
                try other.save()
            }
            nonisolated(unsafe) var saved: [ContextDidSave] = []
            let token = saver.addDidSaveObserver { saved.append($0) }
            try saver.performAndWait {
                let b = try #require(try saver.existingObject(with: id) as? Book)
                edit(b)
                saver.mergePolicy = policy
                try saver.save()
            }
            saver.performAndWait { saver.removeObserver(token) }
            return (id, saver, saved)
        }
    }

    @Test("under .error the conflict carries the object's, cached and store snapshots and the versions", arguments: StoreKind.allCases)
    func report(kind: StoreKind) throws {
        let h = try Harness(kind)
        let ctx = h.stack.context
        let (id, publisherID): (ManagedObjectID, ManagedObjectID) = try ctx.performAndWait {
            let p = try Publisher(context: ctx)
            p.name = "Ace"
            let b = try Book(context: ctx)
            b.title = "A"
            b.pages = 1
            try ctx.save()
            return (b.objectID, p.objectID)
        }
        let mine = h.stack.newContext("mine")
        try mine.performAndWait { _ = (try mine.existingObject(with: id) as? Book)?.title }
        let theirs = h.stack.newContext("theirs")
        try theirs.performAndWait {
            let b = try #require(try theirs.existingObject(with: id) as? Book)
            b.title = "B"
            b.pages = 5
            try theirs.save()
        }
        try mine.performAndWait {
            let b = try #require(try mine.existingObject(with: id) as? Book)
            b.title = "C"
            b.publisher = try mine.existingObject(with: publisherID) as? Publisher
            do {
                try mine.save()
                Issue.record("the save should have failed")
            } catch let CoreStackError.mergeConflict(conflicts) {
                let c = try #require(conflicts.first)
                #expect(conflicts.count == 1)
                #expect(c.sourceObjectID == id)
                #expect(c.oldVersionNumber == 1 && c.newVersionNumber == 2)
                #expect(c.cachedSnapshot["title"] == .attribute("A") && c.cachedSnapshot["pages"] == .attribute(.integer(1)))
                #expect(c.persistedSnapshot?["title"] == .attribute("B") && c.persistedSnapshot?["pages"] == .attribute(.integer(5)))
                #expect(c.objectSnapshot["title"] == .attribute("C") && c.objectSnapshot["pages"] == .attribute(.integer(1)))
                #expect(c.objectSnapshot["publisher"] == .toOne(publisherID))
                #expect(c.cachedSnapshot["publisher"] == .toOne(nil))
                #expect(c.objectSnapshot["authors"] == nil)  // to-many relationships are not in snapshots
                #expect(c.conflictingKeys == ["title"])
                #expect(c.contextChangedKeys == ["title", "publisher"])
                #expect(c.storeChangedKeys == ["title", "pages"])
                #expect(c.changedKeys == ["title", "pages", "publisher"])
                let pk = try #require(id.primaryKey)
                #expect(c.description == "Book p\(pk): title: cached \"A\", store \"B\", context \"C\"; version 1 → 2")
                let error = CoreStackError.mergeConflict(conflicts)
                #expect(error.description == "save conflict on 1 object(s):\n" + c.description)
            }
            #expect(b.title == "C" && mine.hasChanges)
        }
        // Deleted in the store: no persisted snapshot.
        try theirs.performAndWait {
            try theirs.delete(try theirs.existingObject(with: id))
            try theirs.save()
        }
        try mine.performAndWait {
            do {
                try mine.save()
                Issue.record("the save should have failed")
            } catch let CoreStackError.mergeConflict(conflicts) {
                let c = try #require(conflicts.first)
                #expect(c.isDeletedInStore && c.persistedSnapshot == nil)
                #expect(c.newVersionNumber == 0)
                #expect(c.conflictingKeys == ["title", "publisher"])
                #expect(c.description.contains("deleted in the store"))
            }
        }
    }

    /// The book's winners as plain values: title, pages, price.
    static func plain(_ winners: [String: PropertyValue]) -> [String: String] {
        winners.mapValues { $0.description }
    }

    @Test(
        "each policy: the winning value per property, in mergeResolutions and on disk",
        arguments: StoreKind.allCases, [
            (MergePolicy.mergeByPropertyObjectTrump, "mine", 20, 5.0 as Double?),
            (.mergeByPropertyStoreTrump, "store", 20, 5.0),
            (.overwrite, "mine", 10, 5.0),
            (.rollback, "store", 20, nil),
        ])
    func policies(kind: StoreKind, expected: (MergePolicy, String, Int, Double?)) throws {
        let (policy, title, pages, price) = expected
        let h = try Harness(kind)
        let (id, saver, saved) = try h.conflict(
            policy: policy,
            sibling: { b in
                b.title = "store"
                b.pages = 20
            },
            edit: { b in
                b.title = "mine"
                b.price = 5.0
            })
        let resolutions = saver.performAndWait { saver.lastSaveMergeResolutions }
        #expect(saved.count == 1)
        #expect(saved.first?.mergeResolutions == resolutions)
        let r = try #require(resolutions.first)
        #expect(resolutions.count == 1)
        #expect(r.policy == policy)
        #expect(r.conflict.objectID == id)
        #expect(r.conflict.conflictingKeys == ["title"])
        #expect(r.conflict.cachedSnapshot["title"] == .attribute("T0"))
        #expect(r.conflict.persistedSnapshot?["title"] == .attribute("store"))
        #expect(r.conflict.objectSnapshot["title"] == .attribute("mine"))
        #expect(Set(r.winners.keys) == ["title", "pages", "price"])
        #expect(r.winners["title"] == .attribute(.string(title)))
        #expect(r.winners["pages"] == .attribute(.integer(Int64(pages))))
        #expect(r.winners["price"] == .attribute(price.map { .double($0) } ?? .null))
        let disk = try h.bookOnDisk(id)
        #expect(disk.title == title && disk.pages == pages && disk.price == price)
    }

    @Test("a save without conflicts reports no resolutions")
    func noConflictNoResolutions() throws {
        let h = try Harness(.inMemory)
        let ctx = h.stack.context
        try ctx.performAndWait {
            ctx.mergePolicy = .mergeByPropertyObjectTrump
            let b = try Book(context: ctx)
            b.title = "x"
            try ctx.save()
            #expect(ctx.lastSaveMergeResolutions.isEmpty)
        }
    }

    @Test("two children of one parent: the second save reports the parent's pending values it replaced", arguments: StoreKind.allCases)
    func childReplacesParentChanges(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let parent = stack.context
        let id: ManagedObjectID = try parent.performAndWait {
            let b = try Book(context: parent)
            b.title = "T"
            b.pages = 1
            try parent.save()
            return b.objectID
        }
        let first = ManagedObjectContext(concurrencyType: .privateQueue, parent: parent, name: "first")
        let second = ManagedObjectContext(concurrencyType: .privateQueue, parent: parent, name: "second")
        let third = ManagedObjectContext(concurrencyType: .privateQueue, parent: parent, name: "third")
        for child in [first, second, third] {
            try child.performAndWait { _ = (try child.existingObject(with: id) as? Book)?.title }
        }
        try first.performAndWait {
            let b = try #require(try first.existingObject(with: id) as? Book)
            b.title = "one"
            b.pages = 2
            try first.save()
            #expect(first.lastSaveReplacedParentChanges.isEmpty)
        }
        nonisolated(unsafe) var saved: [ContextDidSave] = []
        let token = second.addDidSaveObserver { saved.append($0) }
        try second.performAndWait {
            let b = try #require(try second.existingObject(with: id) as? Book)
            b.title = "two"
            b.pages = 3
            try second.save()
            #expect(second.lastSaveReplacedParentChanges == [
                ParentChangeReplacement(objectID: id, propertyName: "title", parentValue: .attribute("one"), childValue: .attribute("two")),
                ParentChangeReplacement(
                    objectID: id, propertyName: "pages", parentValue: .attribute(.integer(2)), childValue: .attribute(.integer(3))),
            ])
            #expect(second.lastSaveMergeResolutions.isEmpty)
            second.removeObserver(token)
        }
        #expect(saved.first?.replacedParentChanges.map(\.propertyName) == ["title", "pages"])
        // A child that changes only the title replaces only the title.
        try third.performAndWait {
            let b = try #require(try third.existingObject(with: id) as? Book)
            b.title = "three"
            try third.save()
            #expect(third.lastSaveReplacedParentChanges.map(\.propertyName) == ["title"])
            #expect(third.lastSaveReplacedParentChanges.first?.parentValue == .attribute("two"))
        }
        try parent.performAndWait {
            let b = try #require(try parent.existingObject(with: id) as? Book)
            #expect(b.title == "three" && b.pages == 3)
        }
    }

    @Test("a custom policy takes the larger pages and the context's title", arguments: StoreKind.allCases)
    func customPolicy(kind: StoreKind) throws {
        let largerPages = CustomMergePolicy(name: "largerPages") { drafts in
            for i in drafts.indices {
                let c = drafts[i].conflict
                let mine = c.objectSnapshot["pages"]?.attributeValue?.integerValue ?? 0
                let theirs = c.persistedSnapshot?["pages"]?.attributeValue?.integerValue ?? 0
                drafts[i].choose(mine >= theirs ? .context : .store, for: "pages")
                drafts[i].choose(.context, for: "title")
            }
        }
        #expect(MergePolicy.custom(largerPages).name == "largerPages")
        for (storePages, myPages, expectedPages) in [(300, 200, 300), (150, 400, 400)] {
            let h = try Harness(kind)
            let (id, saver, _) = try h.conflict(
                policy: .custom(largerPages), pages: 100,
                sibling: { b in
                    b.title = "store"
                    b.pages = storePages
                    b.price = 1.5
                },
                edit: { b in
                    b.title = "mine"
                    b.pages = myPages
                })
            let r = try #require(saver.performAndWait { saver.lastSaveMergeResolutions.first })
            #expect(r.policy == .custom(largerPages))
            #expect(r.winners["pages"] == .attribute(.integer(Int64(expectedPages))))
            #expect(r.winners["title"] == .attribute("mine"))
            #expect(r.winners["price"] == .attribute(.double(1.5)))
            let disk = try h.bookOnDisk(id)
            #expect(disk.title == "mine" && disk.pages == expectedPages && disk.price == 1.5)
        }
    }

    struct Refused: Error, Equatable {}

    @Test("a custom policy that throws fails the save with its error")
    func customPolicyThrows() throws {
        let refuse = CustomMergePolicy(name: "refuse") { _ in throw Refused() }
        let h = try Harness(.inMemory)
        #expect(throws: Refused.self) {
            _ = try h.conflict(policy: .custom(refuse), sibling: { $0.pages = 2 }, edit: { $0.pages = 3 })
        }
    }

    @Test("policy names: name, init?(name:) case-insensitively, custom policies equal by identity")
    func names() {
        #expect(MergePolicy.error.name == "error")
        #expect(MergePolicy.mergeByPropertyObjectTrump.name == "objectTrump")
        #expect(MergePolicy.mergeByPropertyStoreTrump.name == "storeTrump")
        #expect(MergePolicy.overwrite.name == "overwrite")
        #expect(MergePolicy.rollback.name == "rollback")
        #expect(MergePolicy(name: "ERROR") == .error)
        #expect(MergePolicy(name: "objecttrump") == .mergeByPropertyObjectTrump)
        #expect(MergePolicy(name: "StoreTrump") == .mergeByPropertyStoreTrump)
        #expect(MergePolicy(name: "Overwrite") == .overwrite)
        #expect(MergePolicy(name: "rollBack") == .rollback)
        #expect(MergePolicy(name: "newest") == nil)
        for p in [MergePolicy.error, .mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .overwrite, .rollback] {
            #expect(MergePolicy(name: p.name) == p)
        }
        let a = CustomMergePolicy(name: "same") { _ in }
        let b = CustomMergePolicy(name: "same") { _ in }
        let copy = a
        #expect(MergePolicy.custom(a) == .custom(copy))
        #expect(MergePolicy.custom(a) != .custom(b))
        #expect(Set([MergePolicy.custom(a), .custom(copy), .custom(b), .error]).count == 3)
    }
}
