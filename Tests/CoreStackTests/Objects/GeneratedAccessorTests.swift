import Foundation
import Testing
@testable import CoreStack

/// A class written as a model macro writes one: computed properties over the shared accessors,
/// and its own entity.
private final class Shelf: ManagedObject, DeclaredEntity {
    var label: String {
        get { value(ofAttribute: "label") }
        set { setValue(newValue, ofAttribute: "label") }
    }
    var capacity: Int {
        get { value(ofAttribute: "capacity") }
        set { setValue(newValue, ofAttribute: "capacity") }
    }
    var items: Set<Item> {
        get { objects(ofToMany: "items") }
        set { setObjects(newValue, ofToMany: "items") }
    }
    var queue: [Item] {
        get { orderedObjects(ofToMany: "queue") }
        set { setOrderedObjects(newValue, ofToMany: "queue") }
    }
    static var entityDescription: EntityDescription {
        EntityDescription("Shelf", class: Shelf.self) {
            AttributeDescription("label", .string, isOptional: false)
            AttributeDescription("capacity", .integer64)
            RelationshipDescription("items", destination: "Item", inverse: "shelf", toMany: true)
            RelationshipDescription("queue", destination: "Item", inverse: "queuedOn", toMany: true, isOrdered: true)
        }
    }
}

private final class Item: ManagedObject, DeclaredEntity {
    var shelf: Shelf? {
        get { object(ofToOne: "shelf") }
        set { setObject(newValue, ofToOne: "shelf") }
    }
    static var entityDescription: EntityDescription {
        EntityDescription("Item", class: Item.self) {
            RelationshipDescription("shelf", destination: "Shelf", inverse: "items")
            RelationshipDescription("queuedOn", destination: "Shelf", inverse: "queue")
        }
    }
}

@Suite("the accessors generated code uses read and write what the wrappers do")
struct GeneratedAccessorTests {
    @Test("a model of declared classes, written and read back through the accessors")
    func roundTrip() throws {
        let model = try ManagedObjectModel(declaring: Shelf.self, Item.self)
        #expect(model.entities.map(\.name) == ["Item", "Shelf"])
        #expect(model.entity(forClass: Shelf.self)?.name == "Shelf")
        let stack = try TestStack(.inMemory, model: model)
        try stack.context.performAndWait {
            let shelf = try stack.context.insert(Shelf.self)
            shelf.label = "Fiction"
            shelf.capacity = 12
            let a = try stack.context.insert(Item.self)
            let b = try stack.context.insert(Item.self)
            a.shelf = shelf
            shelf.queue = [b, a]
            #expect(shelf.items == [a])
            #expect(b.shelf == nil)
            shelf.items.insert(b)
            #expect(b.shelf === shelf)
            #expect(shelf.queue.map(\.objectID) == [b.objectID, a.objectID])
            #expect(try shelf.attributeValue(forKey: "capacity") == .integer(12))
            #expect(shelf.label == "Fiction")
            #expect(shelf.lastAccessorError == nil)
            try stack.context.save()
        }
    }

    @Test("a refused value is not written and is reported, as the wrappers report it")
    func refusedValueReported() throws {
        let model = try ManagedObjectModel(declaring: [Shelf.self, Item.self])
        let stack = try TestStack(.inMemory, model: model)
        try stack.context.performAndWait {
            let item = try stack.context.insert(Item.self)
            item.setValue("x", ofAttribute: "missing")
            #expect(item.lastAccessorError != nil)
            let n: Int = item.value(ofAttribute: "missing")
            #expect(n == 0)
        }
    }
}
