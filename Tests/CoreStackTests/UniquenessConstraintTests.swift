import Foundation
import Testing
@testable import CoreStack

@Suite("Uniqueness constraints: a save that would break one is refused with the conflicting objects")
struct UniquenessConstraintTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionName: "Tags") {
            EntityDescription("Tag", uniquenessConstraints: [["name"], ["group", "rank"]]) {
                AttributeDescription("name", .string)
                AttributeDescription("group", .string)
                AttributeDescription("rank", .integer64)
            }
            EntityDescription("SpecialTag", parent: "Tag") {
                AttributeDescription("note", .string)
            }
        }
    }

    @discardableResult
    static func tag(_ ctx: ManagedObjectContext, _ name: String?, group: String? = nil, rank: Int64? = nil, entity: String = "Tag") throws -> ManagedObject {
        let t = try ctx.insertObject(forEntityName: entity)
        try t.setValue(name, forKey: "name")
        try t.setValue(group, forKey: "group")
        try t.setValue(rank, forKey: "rank")
        return t
    }

    static func count(_ ctx: ManagedObjectContext) throws -> Int {
        try ctx.performAndWait { try ctx.count(for: FetchRequest<ManagedObject>(entityName: "Tag")) }
    }

    /// The conflicts a save throws (none: the save succeeded).
    static func conflicts(saving ctx: ManagedObjectContext) throws -> [ConstraintConflict] {
        do {
            try ctx.save()
            return []
        } catch let CoreStackError.constraintConflict(conflicts) {
            return conflicts
        }
    }

    @Test("two new objects with the same value: refused, nothing written, both named, the changes kept", arguments: StoreKind.allCases)
    func duplicateInserts(kind: StoreKind) throws {
        let stack = try TestStack(kind, model: try Self.model())
        let ctx = stack.context
        try ctx.performAndWait {
            let a = try Self.tag(ctx, "swift")
            let b = try Self.tag(ctx, "swift")
            try Self.tag(ctx, "rust")
            let conflicts = try Self.conflicts(saving: ctx)
            #expect(conflicts.count == 1)
            let c = try #require(conflicts.first)
            #expect(c.entity == "Tag" && c.properties == ["name"] && c.values == [.string("swift")])
            #expect(Set(c.objectIDs) == [a.objectID, b.objectID])
            #expect(c.databaseObjectID == nil)
            #expect(ctx.insertedObjects.count == 3)
            #expect(try Self.count(stack.newContext()) == 0)
            // Fixed, the same context saves.
            try b.setValue("swiftui", forKey: "name")
            #expect(try Self.conflicts(saving: ctx).isEmpty)
        }
        #expect(try Self.count(stack.newContext()) == 3)
    }

    @Test("a new object with a stored row's value: refused, the stored row named", arguments: StoreKind.allCases)
    func duplicateOfStoredRow(kind: StoreKind) throws {
        let stack = try TestStack(kind, model: try Self.model())
        let ctx = stack.context
        try ctx.performAndWait {
            let stored = try Self.tag(ctx, "swift")
            try ctx.save()
            // A sub-entity's object counts: the constraint spans the hierarchy.
            let dup = try Self.tag(ctx, "swift", entity: "SpecialTag")
            let conflicts = try Self.conflicts(saving: ctx)
            #expect(conflicts.map(\.objectIDs) == [[dup.objectID]])
            #expect(conflicts.first?.databaseObjectID == stored.objectID)
            ctx.rollback()
        }
        #expect(try Self.count(stack.newContext()) == 1)
    }

    @Test("a compound constraint conflicts only when every value matches; nil never conflicts", arguments: StoreKind.allCases)
    func compoundAndNil(kind: StoreKind) throws {
        let stack = try TestStack(kind, model: try Self.model())
        let ctx = stack.context
        try ctx.performAndWait {
            try Self.tag(ctx, "a", group: "g", rank: 1)
            try Self.tag(ctx, "b", group: "g", rank: 2)
            try Self.tag(ctx, nil, group: "h", rank: 1)
            try Self.tag(ctx, nil, group: nil, rank: 1)
            try Self.tag(ctx, nil, group: nil, rank: 1)
            #expect(try Self.conflicts(saving: ctx).isEmpty)
            let c = try Self.tag(ctx, "c", group: "g", rank: 2)
            let conflicts = try Self.conflicts(saving: ctx)
            #expect(conflicts.count == 1)
            #expect(conflicts.first?.properties == ["group", "rank"])
            #expect(conflicts.first?.values == [.string("g"), .integer(2)])
            #expect(conflicts.first?.objectIDs == [c.objectID])
            #expect(conflicts.first?.databaseObjectID != nil)
        }
        #expect(try Self.count(stack.newContext()) == 5)
    }

    @Test("an updated object keeping its own value is no conflict; taking another stored row's value is", arguments: StoreKind.allCases)
    func updates(kind: StoreKind) throws {
        let stack = try TestStack(kind, model: try Self.model())
        let ctx = stack.context
        try ctx.performAndWait {
            let a = try Self.tag(ctx, "a", group: "g", rank: 1)
            let b = try Self.tag(ctx, "b")
            try ctx.save()
            try a.setValue(Int64(7), forKey: "rank")
            #expect(try Self.conflicts(saving: ctx).isEmpty)
            try b.setValue("a", forKey: "name")
            let conflicts = try Self.conflicts(saving: ctx)
            #expect(conflicts.map(\.objectIDs) == [[b.objectID]])
            #expect(conflicts.first?.databaseObjectID == a.objectID)
        }
    }

    @Test("the error says which entity, properties and values")
    func message() {
        let error = CoreStackError.constraintConflict([
            ConstraintConflict(entity: "Tag", properties: ["name"], values: [.string("swift")], objectIDs: [], databaseObjectID: nil)
        ])
        let text = "\(error)"
        #expect(text.contains("Tag") && text.contains("name") && text.contains("swift"))
    }
}
