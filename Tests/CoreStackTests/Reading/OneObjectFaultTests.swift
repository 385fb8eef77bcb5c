import Foundation
import TestSupportKit
import Testing

@testable import CoreStack

/// `object(with:)` for an ID not registered: the ID's entity must be this model's own (checked by
/// identity at the entity's number), and the fault it makes reads its row when it fires.
@Suite struct OneObjectFaultTests {
    /// A saved book's ID and title, on a stack of `kind` (optionally with its store opened with `storeModel`).
    static func savedBook(_ stack: TestStack) throws -> ManagedObjectID {
        try stack.context.performAndWait {
            let b = try Book(context: stack.context)
            b.title = "Dune"
            try stack.context.save()
            return b.objectID
        }
    }

    @Test("an ID of one of the model's entities gives a fault of that entity, which reads its row", arguments: StoreKind.allCases)
    func rightEntity(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let id = try Self.savedBook(stack)
        let fresh = stack.newContext()
        try fresh.performAndWait {
            let o = try fresh.object(with: id)
            #expect(o.isFault)
            #expect(o.entity === stack.model.entity(named: "Book"))
            #expect(o.objectID == id)
            #expect((o as? Book)?.title == "Dune")
            #expect(try fresh.object(with: id) === o)
        }
    }

    @Test("an ID whose entity is another model's (equal, or lacking from this one) is wrongContext, and nothing is registered")
    func wrongEntity() throws {
        let stack = try TestStack(.sqlite)
        _ = try Self.savedBook(stack)
        let other = try LibraryModel.make()
        let foreignBook = try #require(other.entity(named: "Book"))
        let unknown = try ManagedObjectModel(versionName: "Other") {
            EntityDescription("A") { AttributeDescription("x", .string) }
            EntityDescription("B") { AttributeDescription("x", .string) }
            EntityDescription("C") { AttributeDescription("x", .string) }
            EntityDescription("D") { AttributeDescription("x", .string) }
            EntityDescription("E") { AttributeDescription("x", .string) }
            EntityDescription("Magazine") { AttributeDescription("x", .string) }
        }
        let magazine = try #require(unknown.entity(named: "Magazine"))
        #expect(magazine.entityNumber > stack.model.entities.count)
        let fresh = stack.newContext()
        try fresh.performAndWait {
            for entity in [foreignBook, magazine, try #require(unknown.entity(named: "A"))] {
                let id = ManagedObjectID(entity: entity, storeIdentifier: "x", primaryKey: 1)
                do {
                    _ = try fresh.object(with: id)
                    Issue.record("\(entity.name) of another model was accepted")
                } catch CoreStackError.wrongContext {
                } catch {
                    Issue.record("\(error)")
                }
                #expect(fresh.registeredObject(for: id) == nil)
            }
            #expect(fresh.registeredObjects.isEmpty)
        }
    }

    @Test("a store opened with another, equal model instance still faults an object by ID")
    func storeOfAnotherModelInstance() throws {
        let dir = try TemporaryRoot.folder("sqlite")
        let url = dir.appendingPathComponent("Test.sqlite")
        let stack = try TestStack(model: try LibraryModel.make()) { _ in try SQLiteStore(url: url, model: try LibraryModel.make()) }
        let id = try Self.savedBook(stack)
        let fresh = stack.newContext()
        try fresh.performAndWait {
            let o = try fresh.object(with: id)
            #expect(o.isFault)
            #expect((o as? Book)?.title == "Dune")
            #expect(!o.isFault)
        }
    }
}
