import Foundation
import Testing
@testable import CoreStack

@Suite("ManagedObjectID lifetime")
struct ManagedObjectIDLifetimeTests {
    /// An ID made in a scope whose coordinator, context and model are all gone by the time it is used.
    private func idOutlivingItsStack() throws -> (ManagedObjectID, ManagedObjectID) {
        let stack = try TestStack(.sqlite)
        let context = stack.context
        let ids = try context.performAndWait {
            let a = try context.insert(Author.self)
            a.name = "Le Guin"
            let t = a.objectID
            try context.save()
            return (t, a.objectID)
        }
        #expect(ModelRetention.isRetained(stack.model))
        return ids
    }

    @Test("an ID's entity stays usable after its coordinator, context and model are released")
    func entityOutlivesStack() throws {
        let (temporary, permanent) = try idOutlivingItsStack()
        #expect(temporary.entity.name == "Author")
        #expect(permanent.entity.name == "Author")
        #expect(permanent.uriRepresentation().absoluteString.hasSuffix("/Author/p1"))
        #expect(temporary != permanent)
        // Equality and hashing compare the unretained entity: a rebuilt ID is the same one.
        let rebuilt = ManagedObjectID(entity: permanent.entity, storeToken: permanent.storeToken, primaryKey: 1)
        #expect(rebuilt == permanent && rebuilt.hashValue == permanent.hashValue)
    }

    @Test("a model no coordinator or store used is not retained")
    func unusedModelIsNotRetained() throws {
        let model = try LibraryModel.make()
        #expect(!ModelRetention.isRetained(model))
    }
}
