import Foundation
import Testing

@testable import CoreStack

/// A merging policy's uniqueness work within one save: the store is asked once per save, and
/// the merges it made are listed in ``ManagedObjectContext/lastSaveMergeResolutions``.
@Suite("uniqueness merges: one query per save, listed in the save's resolutions")
struct ConstraintMergeSaveTests {
    /// A store that counts the uniqueness queries (IDs with column values).
    final class CountingStore: ForwardingStore, @unchecked Sendable {
        private let lock = NSLock()
        private var queries = 0
        var count: Int { lock.withLock { queries } }
        override func fetchObjectIDColumns(
            _ request: StoreFetchRequest, valuesAt slots: [Int], cancellation: FetchCancellation?
        ) throws -> (ids: [ManagedObjectID], columns: [[AttributeValue]]) {
            lock.withLock { queries += 1 }
            return try super.fetchObjectIDColumns(request, valuesAt: slots, cancellation: cancellation)
        }
    }

    static func stack() throws -> (TestStack, CountingStore) {
        var counting: CountingStore?
        let stack = try TestStack(model: try UniquenessConstraintMergeTests.model()) { model in
            let url = try Fixtures.temporaryFolder().appendingPathComponent("Tags.sqlite")
            let s = CountingStore(try SQLiteStore(url: url, model: model))
            counting = s
            return s
        }
        return (stack, try #require(counting))
    }

    @Test("a save under a merging policy asks the store for each constraint once, with or without a merge")
    func oneQueryPerSave() throws {
        let (stack, store) = try Self.stack()
        let ctx = stack.context
        try ctx.performAndWait {
            ctx.mergePolicy = .mergeByPropertyObjectTrump
            try UniquenessConstraintMergeTests.tag(ctx, "a", note: "first")
            var before = store.count
            try ctx.save()
            #expect(store.count - before == 1)
            // A duplicate of the stored tag: merged into it, and the store asked once.
            try UniquenessConstraintMergeTests.tag(ctx, "a", note: "second")
            before = store.count
            try ctx.save()
            #expect(store.count - before == 1)
        }
        #expect(try UniquenessConstraintMergeTests.storedTags(stack).map(\.note) == ["second"])
    }

    @Test("the merges a save made are in lastSaveMergeResolutions: the constraint, the survivor, the policy and the winning values")
    func mergesListed() throws {
        let (stack, _) = try Self.stack()
        let ctx = stack.context
        let stored = try ctx.performAndWait {
            ctx.mergePolicy = .mergeByPropertyObjectTrump
            let t = try UniquenessConstraintMergeTests.tag(ctx, "a", note: "first", rank: 1)
            try ctx.save()
            #expect(ctx.lastSaveMergeResolutions.isEmpty)
            return t.objectID
        }
        try ctx.performAndWait {
            try UniquenessConstraintMergeTests.tag(ctx, "a", note: "second")
            try ctx.save()
            let resolutions = ctx.lastSaveMergeResolutions
            #expect(resolutions.count == 1)
            let r = try #require(resolutions.first)
            #expect(r.constraintConflict?.entity == "Tag")
            #expect(r.constraintConflict?.values == [.string("a")])
            #expect(r.constraintConflict?.databaseObjectID == stored)
            #expect(r.conflict.objectID == stored)
            #expect(r.policy == .mergeByPropertyObjectTrump)
            #expect(r.winners["note"] == .attribute(.string("second")))
            #expect(r.winners["name"] == .attribute(.string("a")))
        }
    }

    @Test("a save that fails after merging leaves the context as it was before the merges; the next save merges again")
    func failedSaveUndoesMerges() throws {
        let model = try ManagedObjectModel(versionName: "UpsertAndCheck") {
            EntityDescription("Tag", uniquenessConstraints: [["name"]]) {
                AttributeDescription("name", .string)
                AttributeDescription("note", .string)
            }
            EntityDescription("Item") {
                AttributeDescription("title", .string, isOptional: false)
            }
        }
        let stack = try TestStack(model: model) { model in
            try SQLiteStore(url: try Fixtures.temporaryFolder().appendingPathComponent("Check.sqlite"), model: model)
        }
        let ctx = stack.context
        try ctx.performAndWait {
            ctx.mergePolicy = .mergeByPropertyObjectTrump
            let stored = try ctx.insertObject(forEntityName: "Tag")
            try stored.setValue("a", forKey: "name")
            try stored.setValue("first", forKey: "note")
            try ctx.save()
            let duplicate = try ctx.insertObject(forEntityName: "Tag")
            try duplicate.setValue("a", forKey: "name")
            try duplicate.setValue("second", forKey: "note")
            // An item without its required title: validation fails, after the merge.
            let item = try ctx.insertObject(forEntityName: "Item")
            #expect(throws: CoreStackError.self) { try ctx.save() }
            #expect(duplicate.isInserted && !duplicate.isDeleted)
            #expect(ctx.insertedObjects.contains(duplicate))
            #expect(try ctx.existingObject(with: duplicate.objectID) === duplicate)
            #expect(try duplicate.value(forKey: "note") as? String == "second")
            #expect(try stored.value(forKey: "note") as? String == "first")
            #expect(!stored.hasChanges)
            // Fixed, the save merges again and goes through.
            try item.setValue("ok", forKey: "title")
            try ctx.save()
            #expect(try stored.value(forKey: "note") as? String == "second")
            #expect(ctx.lastSaveMergeResolutions.count == 1)
        }
        #expect(try RawSQLite.scalar("SELECT COUNT(*) FROM ZTAG", in: try #require(stack.coordinator.requireStore().url)) == 1)
    }
}
