import CoreStack
import Foundation
import Testing

@Suite("deletion plans and value validation")
struct DeletionPlanAndValidationTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionName: "Plan", versionIdentifiers: ["1"]) {
            EntityDescription("Owner") {
                AttributeDescription("name", .string, isOptional: false, minValue: 2, maxValue: 10, regularExpression: "[A-Z][a-z]*")
                AttributeDescription("age", .integer16, defaultValue: 1, minValue: 0, maxValue: 130)
                RelationshipDescription("items", destination: "Item", inverse: "owner", toMany: true, deleteRule: .cascade)
                RelationshipDescription("tags", destination: "Tag", inverse: "owners", toMany: true, deleteRule: .nullify)
                RelationshipDescription("locks", destination: "Lock", inverse: "owner", toMany: true, deleteRule: .deny)
            }
            EntityDescription("Item") {
                AttributeDescription("label", .string)
                RelationshipDescription("owner", destination: "Owner", inverse: "items")
                RelationshipDescription("parts", destination: "Part", inverse: "item", toMany: true, deleteRule: .cascade)
                RelationshipDescription("lock", destination: "Lock", inverse: "item", deleteRule: .deny)
            }
            EntityDescription("Part") {
                AttributeDescription("label", .string)
                RelationshipDescription("item", destination: "Item", inverse: "parts")
            }
            EntityDescription("Tag") {
                AttributeDescription("label", .string)
                RelationshipDescription("owners", destination: "Owner", inverse: "tags", toMany: true)
            }
            EntityDescription("Lock") {
                AttributeDescription("label", .string)
                RelationshipDescription("owner", destination: "Owner", inverse: "locks")
                RelationshipDescription("item", destination: "Item", inverse: "lock")
            }
        }
    }

    static func context() throws -> ManagedObjectContext {
        let c = PersistentStoreCoordinator(managedObjectModel: try model())
        try c.addPersistentStore(InMemoryStore(model: c.managedObjectModel))
        return ManagedObjectContext(concurrencyType: .privateQueue, coordinator: c)
    }

    @Test("the plan lists cascades (recursively), nullified links and deny rules, and changes nothing")
    func plan() throws {
        let ctx = try Self.context()
        try ctx.performAndWait {
            let owner = try ctx.insertObject(forEntityName: "Owner")
            try owner.setValue("Ada", forKey: "name")
            let item = try ctx.insertObject(forEntityName: "Item")
            let part = try ctx.insertObject(forEntityName: "Part")
            let tag = try ctx.insertObject(forEntityName: "Tag")
            try item.setObject(owner, forKey: "owner")
            try part.setObject(item, forKey: "item")
            try tag.add(owner, toKey: "owners")
            try ctx.save()
            var plan = try ctx.deletionPlan(for: owner)
            #expect(plan.cascaded == [item.objectID, part.objectID])
            #expect(plan.nullified == [DeletionPlan.Link(source: owner.objectID, relationship: "tags", destinations: [tag.objectID])])
            #expect(plan.denied.isEmpty)
            #expect(!owner.isDeleted && !item.isDeleted)
            // A lock on the owner refuses; a lock on an item the cascade takes refuses too (it stays).
            let lock = try ctx.insertObject(forEntityName: "Lock")
            try lock.setObject(item, forKey: "item")
            try ctx.save()
            plan = try ctx.deletionPlan(for: owner)
            #expect(plan.denied == [DeletionPlan.Link(source: item.objectID, relationship: "lock", destinations: [lock.objectID])])
            // The save agrees with the plan (saved objects: deleting inserted ones never reaches the store).
            try ctx.delete(owner)
            #expect(throws: CoreStackError.self) { try ctx.validateForSave() }
        }
    }

    @Test("validateValue checks type, required, minimum, maximum and pattern without setting anything")
    func validateValue() throws {
        let ctx = try Self.context()
        try ctx.performAndWait {
            let owner = try ctx.insertObject(forEntityName: "Owner")
            try owner.validateValue(.string("Ada"), forKey: "name")
            try owner.validateValue(.integer(130), forKey: "age")
            func reason(_ v: AttributeValue, _ key: String) -> String {
                do {
                    try owner.validateValue(v, forKey: key)
                    return "accepted"
                } catch let CoreStackError.validation(_, property, _, reason) {
                    return "\(property ?? ""): \(reason)"
                } catch let CoreStackError.typeMismatch(_, key, expected, _) {
                    return "\(key): not \(expected)"
                } catch {
                    return "\(error)"
                }
            }
            #expect(reason(.null, "name") == "name: a value is required")
            #expect(reason(.string("A"), "name").contains("below the minimum 2"))
            #expect(reason(.string("Abcdefghijkl"), "name").contains("above the maximum 10"))
            #expect(reason(.string("ada"), "name").contains("does not match"))
            #expect(reason(.integer(131), "age").contains("above the maximum 130"))
            #expect(reason(.integer(-1), "age").contains("below the minimum 0"))
            #expect(reason(.integer(40_000), "age") == "age: not Integer 16")
            #expect(reason(.string("x"), "age") == "age: not Integer 16")
            #expect(try owner.attributeValue(forKey: "age") == .integer(1))
            #expect(throws: CoreStackError.unknownKey(entity: "Owner", key: "nope")) { try owner.validateValue(.null, forKey: "nope") }
        }
    }
}
