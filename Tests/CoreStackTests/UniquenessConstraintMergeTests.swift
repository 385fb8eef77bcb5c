import Foundation
import Testing
@testable import CoreStack

@Suite("Uniqueness constraints: the trump, overwrite and rollback policies merge duplicates into one object, as Core Data does")
struct UniquenessConstraintMergeTests {
    /// Tags unique by name, books pointing at a tag (to-one, inverse to-many), and notes pointing
    /// at a tag one way (no inverse).
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionName: "Upsert") {
            EntityDescription("Tag", uniquenessConstraints: [["name"]]) {
                AttributeDescription("name", .string)
                AttributeDescription("note", .string)
                AttributeDescription("rank", .integer64)
                RelationshipDescription("books", destination: "Book", inverse: "tag", toMany: true, deleteRule: .nullify)
            }
            EntityDescription("SpecialTag", parent: "Tag") {
                AttributeDescription("color", .string)
            }
            EntityDescription("Book") {
                AttributeDescription("title", .string)
                RelationshipDescription("tag", destination: "Tag", inverse: "books")
            }
            EntityDescription("Memo") {
                AttributeDescription("text", .string)
                RelationshipDescription("tag", destination: "Tag")
            }
        }
    }

    @discardableResult
    static func tag(
        _ ctx: ManagedObjectContext, _ name: String, note: String? = nil, rank: Int64? = nil, entity: String = "Tag"
    ) throws -> ManagedObject {
        let t = try ctx.insertObject(forEntityName: entity)
        try t.setValue(name, forKey: "name")
        try t.setValue(note, forKey: "note")
        try t.setValue(rank, forKey: "rank")
        return t
    }

    @discardableResult
    static func book(_ ctx: ManagedObjectContext, _ title: String, tag: ManagedObject?) throws -> ManagedObject {
        let b = try ctx.insertObject(forEntityName: "Book")
        try b.setValue(title, forKey: "title")
        try b.setObject(tag, forKey: "tag")
        return b
    }

    /// The tags in the store, read by a fresh context: name, note, rank and the titles of their books.
    static func storedTags(_ stack: TestStack) throws -> [(id: ManagedObjectID, name: String?, note: String?, rank: Int64?, books: Set<String>)] {
        let ctx = stack.newContext("reader")
        return try ctx.performAndWait {
            try ctx.fetch(FetchRequest<ManagedObject>(entityName: "Tag")).map { t in
                let books = try t.objects(forKey: "books").compactMap { try $0.value(forKey: "title") as? String }
                return (
                    t.objectID, try t.value(forKey: "name") as? String, try t.value(forKey: "note") as? String,
                    try t.value(forKey: "rank") as? Int64, Set(books)
                )
            }
        }
    }

    /// A store holding the tag "swift" (note "old", rank 1) with the book "Stored".
    static func storeWithSwift(_ kind: StoreKind) throws -> (stack: TestStack, tagID: ManagedObjectID) {
        let stack = try TestStack(kind, model: try Self.model())
        let ctx = stack.context
        let id = try ctx.performAndWait {
            let t = try Self.tag(ctx, "swift", note: "old", rank: 1)
            try Self.book(ctx, "Stored", tag: t)
            try ctx.save()
            return t.objectID
        }
        return (stack, id)
    }

    @Test("object trump: a new object with a stored key updates the stored object (the upsert); its book moves there", arguments: StoreKind.allCases)
    func objectTrumpUpsert(kind: StoreKind) throws {
        let (stack, storedID) = try Self.storeWithSwift(kind)
        let ctx = stack.newContext("importer")
        ctx.mergePolicy = .mergeByPropertyObjectTrump
        try ctx.performAndWait {
            var saved: [ContextDidSave] = []
            var changes: [ObjectsDidChange] = []
            let t1 = ctx.addDidSaveObserver { saved.append($0) }
            let t2 = ctx.addObjectsDidChangeObserver { changes.append($0) }
            defer { withExtendedLifetime((t1, t2)) {} }
            let dup = try Self.tag(ctx, "swift", note: "new")
            let book = try Self.book(ctx, "Imported", tag: dup)
            try ctx.save()
            // The duplicate left the context; the stored object took its values and its book.
            #expect(dup.isDeleted)
            #expect(ctx.registeredObject(for: dup.objectID) == nil)
            let survivor = try #require(ctx.registeredObject(for: storedID))
            #expect(try survivor.value(forKey: "note") as? String == "new")
            #expect(try survivor.value(forKey: "rank") as? Int64 == 1)
            #expect(try book.object(forKey: "tag") === survivor)
            #expect(!survivor.hasChanges && !ctx.hasChanges)
            // The did-save names what the store now holds: the book inserted, the tag updated.
            let s = try #require(saved.last)
            #expect(s.objectIDs.inserted == [book.objectID])
            #expect(s.objectIDs.updated == [storedID])
            #expect(s.objectIDs.deleted.isEmpty)
            // objectsDidChange announced the duplicate's removal.
            #expect(changes.contains { $0.deleted.contains(dup) })
        }
        let tags = try Self.storedTags(stack)
        #expect(tags.count == 1)
        #expect(tags.first?.id == storedID)
        #expect(tags.first?.note == "new" && tags.first?.rank == 1)
        #expect(tags.first?.books == ["Stored", "Imported"])
    }

    @Test("overwrite: every value of the new object wins, nil included", arguments: StoreKind.allCases)
    func overwrite(kind: StoreKind) throws {
        let (stack, storedID) = try Self.storeWithSwift(kind)
        let ctx = stack.newContext()
        ctx.mergePolicy = .overwrite
        try ctx.performAndWait {
            let dup = try Self.tag(ctx, "swift", note: "new")
            try Self.book(ctx, "Imported", tag: dup)
            try ctx.save()
        }
        let tags = try Self.storedTags(stack)
        #expect(tags.map(\.id) == [storedID])
        #expect(tags.first?.note == "new" && tags.first?.rank == nil)
        #expect(tags.first?.books == ["Stored", "Imported"])
    }

    @Test("store trump: the stored values win; the new object's book still moves to the stored one", arguments: StoreKind.allCases)
    func storeTrump(kind: StoreKind) throws {
        let (stack, storedID) = try Self.storeWithSwift(kind)
        let ctx = stack.newContext()
        ctx.mergePolicy = .mergeByPropertyStoreTrump
        try ctx.performAndWait {
            let dup = try Self.tag(ctx, "swift", note: "new", rank: 9)
            let book = try Self.book(ctx, "Imported", tag: dup)
            try ctx.save()
            #expect(try book.object(forKey: "tag")?.objectID == storedID)
            // A duplicate that brings nothing leaves nothing to write: the save still succeeds.
            try Self.tag(ctx, "swift", note: "ignored")
            try ctx.save()
            #expect(!ctx.hasChanges)
        }
        let tags = try Self.storedTags(stack)
        #expect(tags.map(\.id) == [storedID])
        #expect(tags.first?.note == "old" && tags.first?.rank == 1)
        #expect(tags.first?.books == ["Stored", "Imported"])
    }

    @Test("rollback: the stored values win over the new object and the stored object's own unsaved changes", arguments: StoreKind.allCases)
    func rollback(kind: StoreKind) throws {
        let (stack, storedID) = try Self.storeWithSwift(kind)
        let ctx = stack.newContext()
        ctx.mergePolicy = .rollback
        try ctx.performAndWait {
            let stored = try ctx.object(with: storedID)
            try stored.setValue(Int64(5), forKey: "rank")
            let dup = try Self.tag(ctx, "swift", note: "new")
            try Self.book(ctx, "Imported", tag: dup)
            try ctx.save()
            #expect(try stored.value(forKey: "rank") as? Int64 == 1)
        }
        let tags = try Self.storedTags(stack)
        #expect(tags.map(\.id) == [storedID])
        #expect(tags.first?.note == "old" && tags.first?.rank == 1)
        #expect(tags.first?.books == ["Stored", "Imported"])
    }

    @Test("among new objects only: the first inserted survives, the others merge into it in order", arguments: StoreKind.allCases)
    func amongInserted(kind: StoreKind) throws {
        for policy in [MergePolicy.mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump] {
            let stack = try TestStack(kind, model: try Self.model())
            let ctx = stack.context
            ctx.mergePolicy = policy
            let firstID = try ctx.performAndWait {
                var saved: [ContextDidSave] = []
                let token = ctx.addDidSaveObserver { saved.append($0) }
                defer { withExtendedLifetime(token) {} }
                let a = try Self.tag(ctx, "swift", note: "a", rank: 1)
                let b = try Self.tag(ctx, "swift", rank: 2)
                let c = try Self.tag(ctx, "swift", note: "c")
                for (t, title) in [(a, "A"), (b, "B"), (c, "C")] { try Self.book(ctx, title, tag: t) }
                try ctx.save()
                #expect(!a.isDeleted && b.isDeleted && c.isDeleted)
                let s = try #require(saved.last)
                #expect(s.objectIDs.inserted.contains(a.objectID))
                #expect(!s.objectIDs.inserted.contains(b.objectID) && !s.objectIDs.inserted.contains(c.objectID))
                #expect(s.objectIDs.inserted.count == 4)
                return a.objectID
            }
            let tags = try Self.storedTags(stack)
            #expect(tags.map(\.id) == [firstID])
            if policy == .mergeByPropertyObjectTrump {
                #expect(tags.first?.note == "c" && tags.first?.rank == 2, "\(policy.name)")
            } else {
                #expect(tags.first?.note == "a" && tags.first?.rank == 1, "\(policy.name)")
            }
            #expect(tags.first?.books == ["A", "B", "C"], "\(policy.name)")
        }
    }

    @Test("a relationship without an inverse that pointed at the duplicate points at the survivor", arguments: StoreKind.allCases)
    func oneWayReference(kind: StoreKind) throws {
        let (stack, storedID) = try Self.storeWithSwift(kind)
        let ctx = stack.newContext()
        ctx.mergePolicy = .mergeByPropertyObjectTrump
        try ctx.performAndWait {
            let dup = try Self.tag(ctx, "swift")
            let memo = try ctx.insertObject(forEntityName: "Memo")
            try memo.setObject(dup, forKey: "tag")
            try ctx.save()
            #expect(try memo.object(forKey: "tag")?.objectID == storedID)
        }
        let reader = stack.newContext("reader")
        try reader.performAndWait {
            let memos = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Memo"))
            #expect(try memos.map { try $0.object(forKey: "tag")?.objectID } == [storedID])
        }
    }

    @Test("a child context's duplicate is merged when its parent saves to the store", arguments: StoreKind.allCases)
    func throughChild(kind: StoreKind) throws {
        let (stack, storedID) = try Self.storeWithSwift(kind)
        let root = stack.newContext("root")
        root.mergePolicy = .mergeByPropertyObjectTrump
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: root, name: "child")
        try child.performAndWait {
            try Self.tag(child, "swift", note: "from child")
            try child.save()
        }
        try root.performAndWait { try root.save() }
        let tags = try Self.storedTags(stack)
        #expect(tags.map(\.id) == [storedID])
        #expect(tags.first?.note == "from child")
    }

    @Test("the policy merges what it can; what it cannot is still refused, the context left as it was", arguments: StoreKind.allCases)
    func unresolvable(kind: StoreKind) throws {
        let (stack, storedID) = try Self.storeWithSwift(kind)
        let ctx = stack.newContext()
        ctx.mergePolicy = .mergeByPropertyObjectTrump
        try ctx.performAndWait {
            try Self.tag(ctx, "swift", note: "merged")
            try ctx.save()
            // A stored object taking another stored row's key.
            let other = try Self.tag(ctx, "rust")
            try ctx.save()
            try other.setValue("swift", forKey: "name")
            let dup = try Self.tag(ctx, "swift", note: "new")
            #expect(throws: CoreStackError.self) { try ctx.save() }
            #expect(dup.isInserted && ctx.registeredObject(for: dup.objectID) === dup)
            #expect(ctx.registeredObject(for: storedID) == nil || ctx.registeredObject(for: storedID)?.hasChanges == false)
            ctx.rollback()
            // The stored row deleted and its key inserted again in one save.
            try ctx.delete(try ctx.object(with: storedID))
            try Self.tag(ctx, "swift")
            do {
                try ctx.save()
                Issue.record("the save went through")
            } catch let CoreStackError.constraintConflict(conflicts) {
                #expect(conflicts.first?.databaseObjectID == storedID)
            }
        }
        #expect(try Self.storedTags(stack).count == 2)
    }
    @Test("an import of several stored keys and a new one: each stored object updated in place, one row added", arguments: StoreKind.allCases)
    func batchImport(kind: StoreKind) throws {
        let stack = try TestStack(kind, model: try Self.model())
        let storedIDs = try stack.context.performAndWait {
            let tags = try ["a", "b", "c"].map { try Self.tag(stack.context, $0, rank: 1) }
            try stack.context.save()
            return tags.map(\.objectID)
        }
        let ctx = stack.newContext("importer")
        ctx.mergePolicy = .mergeByPropertyObjectTrump
        try ctx.performAndWait {
            for name in ["a", "b", "c", "d"] { try Self.tag(ctx, name, note: "imported \(name)") }
            // A sub-entity's object is a duplicate too; the survivor keeps its own entity.
            try Self.tag(ctx, "b", note: "special", entity: "SpecialTag")
            try ctx.save()
            #expect(ctx.registeredObjects.filter { $0.entity.name == "SpecialTag" }.isEmpty)
        }
        let tags = try Self.storedTags(stack).sorted { ($0.name ?? "") < ($1.name ?? "") }
        #expect(tags.map(\.name) == ["a", "b", "c", "d"])
        #expect(Array(tags.prefix(3).map(\.id)) == storedIDs)
        #expect(tags.map(\.note) == ["imported a", "special", "imported c", "imported d"])
        #expect(tags.map(\.rank) == [1, 1, 1, nil])
        #expect(tags.allSatisfy { $0.id.entity.name == "Tag" })
    }

    struct Refused: Error {}

    @Test("a custom policy picks the built-in policy that merges each conflict, refuses it, or throws", arguments: StoreKind.allCases)
    func customPolicy(kind: StoreKind) throws {
        let (stack, storedID) = try Self.storeWithSwift(kind)
        let ctx = stack.newContext()
        let picker = CustomMergePolicy(name: "picker", constraintConflicts: { c in
            switch c.values.first?.stringValue {
            case "swift": return .mergeByPropertyObjectTrump
            case "boom": throw Refused()
            default: return .error
            }
        }, resolve: { _ in })
        ctx.mergePolicy = .custom(picker)
        try ctx.performAndWait {
            try Self.tag(ctx, "rust")
            try ctx.save()
            try Self.tag(ctx, "swift", note: "custom")
            try ctx.save()
            #expect(try ctx.object(with: storedID).value(forKey: "note") as? String == "custom")
            // .error: refused as under the error policy.
            let rust = try Self.tag(ctx, "rust")
            do {
                try ctx.save()
                Issue.record("the save went through")
            } catch let CoreStackError.constraintConflict(conflicts) {
                #expect(conflicts.map(\.objectIDs) == [[rust.objectID]])
            }
            ctx.rollback()
            try Self.tag(ctx, "boom")
            try ctx.save()
            try Self.tag(ctx, "boom")
            #expect(throws: Refused.self) { try ctx.save() }
            ctx.rollback()
            // A custom policy made without the constraint closure merges nothing.
            ctx.mergePolicy = .custom(CustomMergePolicy(name: "plain") { _ in })
            try Self.tag(ctx, "swift")
            #expect(throws: CoreStackError.self) { try ctx.save() }
        }
        #expect(try Self.storedTags(stack).count == 3)
    }
}
