import Foundation
import Testing
@testable import CoreStack

/// Keys built at run time: a long one lives on the heap, a short one inline.
enum RuntimeKeys {
    static var long: String { ["descriptionOf", "TheWholeThing"].joined() }
    static var short: String { ["ti", "tle"].joined() }
}

final class Gadget: ManagedObject {
    @Attribute("title") var title: String
    @Attribute("aVeryLongAttributeNameIndeed") var literalLong: String
    @Attribute(named: RuntimeKeys.long) var runtimeLong: String
    @Attribute(named: RuntimeKeys.short) var runtimeShort: String
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

    @Test("a run-time key's bits stay its own after its string is freed and the memory reused")
    func runtimeKeyBitsOutliveTheirString() {
        // Keys built on the heap, each released before the next is built: with a string's own
        // words as the key (the old bit-cast), later keys could reuse an earlier one's address.
        var seen: [String: UInt64] = [:]
        for i in 0..<200 {
            let text = ["heapAllocatedKeyNumber", String(i % 50)].joined()
            let bits = WrapperKey(interning: text).bits
            if let earlier = seen[text] {
                #expect(earlier == bits)
            } else {
                #expect(!seen.values.contains { $0 == bits })
                seen[text] = bits
            }
        }
        // Literals and interned keys never share bits, and both give their text back.
        let literal = WrapperKey.literal("title")
        let interned = WrapperKey(interning: RuntimeKeys.short)
        #expect(literal.bits != interned.bits)
        #expect(literal.string == "title" && interned.string == "title")
        #expect(WrapperKey.literal("x").string == "x")
        #expect(WrapperKey.literal("").string == "")
        // Eight bytes a wrapper, in every object.
        #expect(MemoryLayout<Attribute<String>>.size == 8)
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
        // Remembered: every key, the run-time ones by their interned index ("title" through a
        // literal and through a run-time key are two entries naming the same slot).
        #expect(entity.wrapperSlot(forBits: WrapperKey(interning: RuntimeKeys.long).bits) == 2)
        #expect(entity.wrapperSlot(forBits: WrapperKey(interning: RuntimeKeys.short).bits) == 0)
        let remembered = entity.attributeWrapperSlots.count.load(ordering: .relaxed)
        #expect(remembered == 4)
    }
}
