import Foundation
import Testing
@testable import CoreStack

/// A class two entities share.
private final class SharedRecord: ManagedObject {}
/// A class no entity uses.
private final class Unmapped: ManagedObject {}

@Suite("entity(for:) finds a class's entity by dictionary, the first of several sharing it")
struct EntityForClassTests {
    /// Declared out of order: entity order puts Alpha before Zeta, and Beta before Gamma.
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Zeta", class: SharedRecord.self) { AttributeDescription("z", .string) }
            EntityDescription("Gamma") { AttributeDescription("g", .string) }
            EntityDescription("Alpha", class: SharedRecord.self) { AttributeDescription("a", .string) }
            EntityDescription("Beta") { AttributeDescription("b", .string) }
        }
    }

    @Test("the first entity in entity order of those sharing a class is the one returned")
    func firstOfSharedClassWins() throws {
        let model = try Self.model()
        #expect(model.entities.map(\.name) == ["Alpha", "Beta", "Gamma", "Zeta"])
        #expect(model.entity(forClass: SharedRecord.self)?.name == "Alpha")
        #expect(model.entity(forClass: ManagedObject.self)?.name == "Beta")
        let stack = try TestStack(.inMemory, model: model)
        try stack.context.performAndWait {
            #expect(try stack.context.entity(for: SharedRecord.self).name == "Alpha")
            #expect(try stack.context.entity(for: ManagedObject.self).name == "Beta")
            let inserted = try stack.context.insert(SharedRecord.self)
            #expect(inserted.entity.name == "Alpha")
        }
    }

    @Test("a class no entity uses throws unknownEntity")
    func unknownClassThrows() throws {
        let model = try Self.model()
        #expect(model.entity(forClass: Unmapped.self) == nil)
        let stack = try TestStack(.inMemory, model: model)
        stack.context.performAndWait {
            do {
                _ = try stack.context.entity(for: Unmapped.self)
                Issue.record("entity(for:) found an entity for a class no entity uses")
            } catch CoreStackError.unknownEntity(let message) {
                #expect(message.contains("Unmapped"))
            } catch {
                Issue.record("expected unknownEntity, got \(error)")
            }
            #expect(throws: CoreStackError.self) { try stack.context.insert(Unmapped.self) }
        }
    }
}
