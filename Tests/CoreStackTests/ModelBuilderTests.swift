import Foundation
import Testing
@testable import CoreStack

@Suite("Model builder and validation")
struct ModelBuilderTests {
    @Test("entities are numbered as Core Data does and inherit their parents' properties")
    func numberingAndInheritance() throws {
        let model = try LibraryModel.make()
        #expect(model.entities.map(\.name) == ["Author", "Book", "GraphicNovel", "Chapter", "Publisher"])
        #expect(model.entities.map(\.entityNumber) == [1, 2, 3, 4, 5])
        let novel = try #require(model.entity(named: "GraphicNovel"))
        #expect(novel.superentity?.name == "Book")
        #expect(novel.rootEntity.name == "Book")
        #expect(novel.allAttributes.map(\.name) == ["title", "pages", "price", "isbn", "illustrator"])
        #expect(novel.relationship(named: "chapters")?.isOrdered == true)
        #expect(novel.destinationEntity(ofRelationship: "chapters")?.name == "Chapter")
        #expect(model.entity(named: "Chapter")?.inverseRelationship(of: "book")?.name == "chapters")
        #expect(model.entity(named: "Book")?.subentities.map(\.name) == ["GraphicNovel"])
        #expect(model.entity(number: 3)?.name == "GraphicNovel")
    }

    @Test("version hashes are 32 bytes, stable, and change with the schema")
    func versionHashes() throws {
        let a = try LibraryModel.make()
        let b = try LibraryModel.make()
        #expect(a.entityVersionHashes == b.entityVersionHashes)
        #expect(a.entityVersionHashes.values.allSatisfy { $0.count == 32 })
        let changed = try ManagedObjectModel {
            EntityDescription("Book") { AttributeDescription("title", .string, isOptional: true) }
        }
        let original = try ManagedObjectModel {
            EntityDescription("Book") { AttributeDescription("title", .string, isOptional: false) }
        }
        #expect(changed.entityVersionHashes["Book"] != original.entityVersionHashes["Book"])
        // The SHA-256 the hashes use is the standard one.
        let digest = SHA256Digest.hash(Data("abc".utf8)).map { String(format: "%02x", $0) }.joined()
        #expect(digest == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test("a wrong model is refused with an error naming the entity and property")
    func invalidModels() {
        #expect(throws: CoreStackError.invalidModel(entity: "Book", property: "owner", reason: "its destination entity \"Person\" does not exist")) {
            try ManagedObjectModel {
                EntityDescription("Book") { RelationshipDescription("owner", destination: "Person") }
            }
        }
        #expect(throws: CoreStackError.invalidModel(entity: "Book", property: "title", reason: "the property is declared twice")) {
            try ManagedObjectModel {
                EntityDescription("Book") {
                    AttributeDescription("title", .string)
                    AttributeDescription("title", .integer16)
                }
            }
        }
        // Entities are checked in number order: Author (1) first, whose inverse does not point back.
        #expect(throws: CoreStackError.invalidModel(entity: "Author", property: "books", reason: "its inverse Book.author has \"works\" as its own inverse, not \"books\"")) {
            try ManagedObjectModel {
                EntityDescription("Book") { RelationshipDescription("author", destination: "Author", inverse: "works") }
                EntityDescription("Author") { RelationshipDescription("books", destination: "Book", inverse: "author", toMany: true) }
            }
        }
        #expect(throws: CoreStackError.self) {
            // The inverse points to another entity.
            try ManagedObjectModel {
                EntityDescription("Book") { RelationshipDescription("author", destination: "Author", inverse: "pets") }
                EntityDescription("Author") { RelationshipDescription("pets", destination: "Dog", toMany: true) }
                EntityDescription("Dog") { RelationshipDescription("owner", destination: "Author") }
            }
        }
        #expect(throws: CoreStackError.invalidModel(entity: "Novel", property: nil, reason: "its parent entity \"Book\" does not exist")) {
            try ManagedObjectModel { EntityDescription("Novel", parent: "Book") }
        }
        #expect(throws: CoreStackError.self) {
            try ManagedObjectModel {
                EntityDescription("A", parent: "B")
                EntityDescription("B", parent: "A")
            }
        }
        #expect(throws: CoreStackError.invalidModel(entity: "Book", property: "pages", reason: "its default value Dune is not Integer 32")) {
            try ManagedObjectModel {
                EntityDescription("Book") { AttributeDescription("pages", .integer32, defaultValue: "Dune") }
            }
        }
        #expect(throws: CoreStackError.invalidModel(entity: "Book", property: "isbn", reason: "a uniqueness constraint names an unknown property")) {
            try ManagedObjectModel {
                EntityDescription("Book", uniquenessConstraints: [["isbn"]]) { AttributeDescription("title", .string) }
            }
        }
    }

    @Test("abstract entities cannot be instantiated")
    func abstractEntities() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Person", isAbstract: true) { AttributeDescription("name", .string) }
            EntityDescription("Author", parent: "Person")
        }
        let stack = try TestStack(model: model)
        try stack.context.performAndWait {
            #expect(throws: CoreStackError.self) { try stack.context.insertObject(forEntityName: "Person") }
            let a = try stack.context.insertObject(forEntityName: "Author")
            try a.setValue("Ursula", forKey: "name")
            try stack.context.save()
            let n = try stack.context.count(for: FetchRequest<ManagedObject>(entityName: "Person"))
            #expect(n == 1)
        }
    }
}
