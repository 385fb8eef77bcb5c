import Foundation
import Testing
@testable import CoreStack

/// Lightweight migration infers a to-one relationship becoming to-many (issue 17): each object
/// keeps its one destination.
@Suite("Migration: to-one becomes to-many")
struct MigrationToManyTests {
    /// Writes `build`'s objects with `model` into a new store file.
    static func makeStore(_ model: ManagedObjectModel, _ build: (ManagedObjectContext) throws -> Void) throws -> URL {
        let url = try Fixtures.temporaryFolder().appendingPathComponent("relationships.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(try SQLiteStore(url: url, model: model))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait {
            try build(context)
            try context.save()
        }
        coordinator.removePersistentStore()
        return url
    }

    /// Each object's name → the names of its destinations under `key`, read with `model`.
    static func links(_ url: URL, _ model: ManagedObjectModel, entity: String, key: String) throws -> [String: Set<String>] {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(try SQLiteStore(url: url, model: model))
        defer { coordinator.removePersistentStore() }
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        return try context.performAndWait {
            var out: [String: Set<String>] = [:]
            for o in try context.fetch(FetchRequest<ManagedObject>(entityName: entity)) {
                let name = try o.value(forKey: "name") as? String ?? ""
                let ids = try o.objectIDs(forRelationshipNamed: key)
                out[name] = Set(try ids.map { try context.existingObject(with: $0).value(forKey: "name") as? String ?? "" })
            }
            return out
        }
    }

    @Test("one-to-many → many-to-many: Post.author becomes Post.authors (renaming identifier); every post keeps its author, in a join table, seen from both sides")
    func oneToManyBecomesManyToMany() throws {
        let v1 = try ManagedObjectModel {
            EntityDescription("Author") {
                AttributeDescription("name", .string)
                RelationshipDescription("posts", destination: "Post", inverse: "author", toMany: true)
            }
            EntityDescription("Post") {
                AttributeDescription("name", .string)
                RelationshipDescription("author", destination: "Author", inverse: "posts")
            }
        }
        let v2 = try ManagedObjectModel {
            EntityDescription("Author") {
                AttributeDescription("name", .string)
                RelationshipDescription("posts", destination: "Post", inverse: "authors", toMany: true)
            }
            EntityDescription("Post") {
                AttributeDescription("name", .string)
                RelationshipDescription("authors", destination: "Author", inverse: "posts", toMany: true, renamingIdentifier: "author")
            }
        }
        let url = try Self.makeStore(v1) { context in
            let ann = try context.insertObject(forEntityName: "Author")
            try ann.setValue("Ann", forKey: "name")
            let bo = try context.insertObject(forEntityName: "Author")
            try bo.setValue("Bo", forKey: "name")
            for (post, author) in [("p1", ann), ("p2", ann), ("p3", bo), ("p4", nil)] as [(String, ManagedObject?)] {
                let p = try context.insertObject(forEntityName: "Post")
                try p.setValue(post, forKey: "name")
                try p.setObject(author, forKey: "author")
            }
        }
        let plan = try SQLiteMigration.migrateStore(at: url, from: v1, to: v2)
        #expect(plan.lines.contains("Post.authors: retyped (from to-one author to to-many)"))
        #expect(try Self.links(url, v2, entity: "Post", key: "authors") == ["p1": ["Ann"], "p2": ["Ann"], "p3": ["Bo"], "p4": []])
        #expect(try Self.links(url, v2, entity: "Author", key: "posts") == ["Ann": ["p1", "p2"], "Bo": ["p3"]])
        #expect(try RawSQLite.run("PRAGMA integrity_check", in: url).first?.values.first as? String == "ok")
    }

    @Test("one-to-one → one-to-many: Post.color becomes Post.colors; each post keeps its color, through the color's own key")
    func oneToOneBecomesOneToMany() throws {
        let v1 = try ManagedObjectModel {
            EntityDescription("Post") {
                AttributeDescription("name", .string)
                RelationshipDescription("color", destination: "Color", inverse: "post")
            }
            EntityDescription("Color") {
                AttributeDescription("name", .string)
                RelationshipDescription("post", destination: "Post", inverse: "color")
            }
        }
        let v2 = try ManagedObjectModel {
            EntityDescription("Post") {
                AttributeDescription("name", .string)
                RelationshipDescription("colors", destination: "Color", inverse: "post", toMany: true, renamingIdentifier: "color")
            }
            EntityDescription("Color") {
                AttributeDescription("name", .string)
                RelationshipDescription("post", destination: "Post", inverse: "colors")
            }
        }
        let url = try Self.makeStore(v1) { context in
            for (post, color) in [("p1", "red"), ("p2", "blue"), ("p3", nil)] as [(String, String?)] {
                let p = try context.insertObject(forEntityName: "Post")
                try p.setValue(post, forKey: "name")
                if let color {
                    let c = try context.insertObject(forEntityName: "Color")
                    try c.setValue(color, forKey: "name")
                    try p.setObject(c, forKey: "color")
                }
            }
        }
        let plan = try SQLiteMigration.migrateStore(at: url, from: v1, to: v2)
        #expect(plan.lines.contains("Post.colors: retyped (from to-one color to to-many)"))
        #expect(try Self.links(url, v2, entity: "Post", key: "colors") == ["p1": ["red"], "p2": ["blue"], "p3": []])
        #expect(try Self.links(url, v2, entity: "Color", key: "post") == ["red": ["p1"], "blue": ["p2"]])
    }

    @Test("to-many → to-one is still refused (which destination would stay?), with the store untouched")
    func toManyToOneRefused() throws {
        let v1 = try ManagedObjectModel {
            EntityDescription("Tag") {
                AttributeDescription("name", .string)
                RelationshipDescription("items", destination: "Tag", toMany: true)
            }
        }
        let v2 = try ManagedObjectModel {
            EntityDescription("Tag") {
                AttributeDescription("name", .string)
                RelationshipDescription("items", destination: "Tag")
            }
        }
        let url = try Self.makeStore(v1) { _ in }
        let before = try Data(contentsOf: url)
        #expect(throws: MigrationError(entity: "Tag", property: "items", reason: "a to-many relationship becomes to-one: not inferred by this migration")) {
            try SQLiteMigration.migrateStore(at: url, from: v1, to: v2)
        }
        #expect(try Data(contentsOf: url) == before)
    }
}
