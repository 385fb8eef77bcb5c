import Foundation
import Testing
@testable import CoreStack

@Suite("ManagedObjectID lifetime")
struct ManagedObjectIDLifetimeTests {
    /// An ID made in a scope whose coordinator, context and model are all gone by the time it is
    /// used; `model` is set to the (weakly held) model.
    private func idOutlivingItsStack(model: inout ManagedObjectModel?) throws -> (ManagedObjectID, ManagedObjectID) {
        weak var weakModel: ManagedObjectModel?
        let ids = try {
            let stack = try TestStack(.sqlite)
            weakModel = stack.model
            let context = stack.context
            return try context.performAndWait {
                let a = try context.insert(Author.self)
                a.name = "Le Guin"
                let t = a.objectID
                try context.save()
                return (t, a.objectID)
            }
        }()
        model = weakModel
        return ids
    }

    // Under AddressSanitizer (see .ci/run) this also proves the entity's memory is still the
    // entity's: an ID once held its entity unowned(unsafe).
    @Test("an ID keeps its entity alive after its coordinator, context and model are released")
    func entityOutlivesStack() throws {
        var model: ManagedObjectModel?
        let (temporary, permanent) = try idOutlivingItsStack(model: &model)
        #expect(temporary.entity.name == "Author")
        #expect(permanent.entity.name == "Author")
        #expect(permanent.entity.allAttributes.contains { $0.name == "name" })
        #expect(permanent.uriRepresentation().absoluteString.hasSuffix("/Author/p1"))
        #expect(temporary != permanent)
        // Equality and hashing compare the entity: a rebuilt ID is the same one.
        let rebuilt = ManagedObjectID(entity: permanent.entity, storeToken: permanent.storeToken, primaryKey: 1)
        #expect(rebuilt == permanent && rebuilt.hashValue == permanent.hashValue)
    }

    @Test("a model is released with its stack: nothing keeps models for the whole process")
    func modelIsReleasedWithItsStack() throws {
        var model: ManagedObjectModel?
        let ids = try idOutlivingItsStack(model: &model)
        #expect(model == nil)
        // The IDs made from it still hold their entity.
        #expect(ids.1.entity.name == "Author")
    }
}
