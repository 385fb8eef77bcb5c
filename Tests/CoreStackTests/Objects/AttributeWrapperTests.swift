import Foundation
import Testing
@testable import CoreStack

/// Keys built at run time: a long one lives on the heap (not immortal), a short one inline.
enum RuntimeKeys {
    static var long: String { ["descriptionOf", "TheWholeThing"].joined() }
    static var short: String { ["ti", "tle"].joined() }
}

final class Gadget: ManagedObject {
    @Attribute("title") var title: String
    @Attribute("aVeryLongAttributeNameIndeed") var literalLong: String
    @Attribute(RuntimeKeys.long) var runtimeLong: String
    @Attribute(RuntimeKeys.short) var runtimeShort: String
}

@Suite("Typed attribute wrappers: slot look-up by key")
struct AttributeWrapperTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionName: "Gadgets") {
            EntityDescription("Gadget", class: Gadget.self) {
                AttributeDescription("title", .string)
                AttributeDescription("aVeryLongAttributeNameIndeed", .string)
                AttributeDescription("descriptionOfTheWholeThing", .string)
            }
        }
    }

    @Test("literal and inline keys are immortal; a key built on the heap is not")
    func immortality() {
        #expect(WrapperSlotEntry.isImmortal(WrapperSlotEntry.bits(of: "title")))
        #expect(WrapperSlotEntry.isImmortal(WrapperSlotEntry.bits(of: "aVeryLongAttributeNameIndeed")))
        #expect(WrapperSlotEntry.isImmortal(WrapperSlotEntry.bits(of: RuntimeKeys.short)))
        #expect(!WrapperSlotEntry.isImmortal(WrapperSlotEntry.bits(of: RuntimeKeys.long)))
    }

    @Test("wrappers read and write their own slots, whatever their keys are made of")
    func readsAndWrites() throws {
        let model = try Self.model()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(InMemoryStore(model: model))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        let entity = try #require(model.entity(named: "Gadget"))
        try context.performAndWait {
            let g = try Gadget(context: context)
            g.title = "one"
            g.literalLong = "two"
            g.runtimeLong = "three"
            #expect(g.title == "one")
            #expect(g.runtimeShort == "one")  // the same attribute as `title`, through a key built at run time
            #expect(g.literalLong == "two")
            #expect(g.runtimeLong == "three")
            g.runtimeShort = "four"
            #expect(g.title == "four")
            #expect(try g.attributeValue(forKey: "descriptionOfTheWholeThing") == .string("three"))
            #expect(try g.attributeValue(forKey: "aVeryLongAttributeNameIndeed") == .string("two"))
            #expect(g.lastAccessorError == nil)
        }
        // Remembered: "title", the long literal and the inline run-time key ("title" again, but
        // its own entry only if its words differ). Never the heap key, whose words name memory
        // that may later hold another string.
        #expect(entity.wrapperSlot(forKey: "title") == 0)
        #expect(entity.wrapperSlot(forKey: "aVeryLongAttributeNameIndeed") == 1)
        #expect(entity.wrapperSlot(forKey: RuntimeKeys.long) == nil)
        let remembered = entity.wrapperSlotCount.load(ordering: .relaxed)
        #expect(remembered == 2)
    }
}
