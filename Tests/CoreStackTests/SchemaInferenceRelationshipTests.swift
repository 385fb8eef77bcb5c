import Foundation
import Testing

@testable import CoreStack

/// Relationships inferred from the tables of Apple-written stores whose model cache was removed,
/// compared with the relationships of the model each store carries.
@Suite("relationships inferred from a store's schema")
struct SchemaInferenceRelationshipTests {
    /// Runs `sql` on the file at `url` with the system's sqlite3.
    static func sqlite(_ url: URL, _ sql: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        p.arguments = [url.path, sql]
        try p.run()
        p.waitUntilExit()
    }

    /// A relationship as the comparison sees it: entity, upper-cased name, destination, to-many.
    /// A to-many whose inverse is a to-one has no column, so no name to find: it is keyed by that
    /// inverse (`~PAGE.BOOK`: the to-many that `Page.BOOK` is the inverse of).
    struct Key: Hashable, CustomStringConvertible {
        var entity: String
        var name: String
        var destination: String
        var toMany: Bool
        var description: String { "\(entity).\(name) → \(toMany ? "*" : "")\(destination)" }
    }

    static func storedKeys(_ model: ManagedObjectModel, rename: (String) -> String) -> Set<Key> {
        var keys: Set<Key> = []
        for e in model.entities {
            for r in e.relationships where !r.isTransient {
                let inverse = e.inverseRelationship(of: r.name)
                let name = r.isToMany && inverse?.isToMany == false
                    ? "~\(rename(r.destinationEntityName).uppercased()).\(inverse?.name.uppercased() ?? "")" : r.name.uppercased()
                keys.insert(Key(entity: rename(e.name), name: name, destination: rename(r.destinationEntityName), toMany: r.isToMany))
            }
        }
        return keys
    }

    static func inferredKeys(_ model: ManagedObjectModel) -> Set<Key> {
        var keys: Set<Key> = []
        for e in model.entities {
            for r in e.relationships {
                let isInverse = r.userInfo[RelationshipDescription.inferredInverseKey] != nil
                let name = isInverse ? "~\(r.destinationEntityName.uppercased()).\(r.inverseName ?? "")" : r.name
                keys.insert(Key(entity: e.name, name: name, destination: r.destinationEntityName, toMany: r.isToMany))
            }
        }
        return keys
    }

    @Test("every fixture store without its model cache: the inferred relationships are the model's, none missed, none false")
    func relationshipsMatchTheStoredModel() throws {
        var missed: [String] = []
        var falseOnes: [String] = []
        var found = 0
        for (path, _) in ModelArchiveTests.stores {
            let url = try Fixtures.copyStore(path)
            let stored = try #require(try SQLiteStore.storedModel(at: url))
            try Self.sqlite(url, "DELETE FROM Z_MODELCACHE")
            #expect(try SQLiteStore.storedModel(at: url) == nil)
            let storeNames = Set(try SQLiteStore.entities(at: url).map(\.name))
            // Z_PRIMARYKEY keeps an entity's old name when the model renamed it.
            let byName = Dictionary(uniqueKeysWithValues: stored.entities.map { e in
                (e.name, e.renamingIdentifier.flatMap { storeNames.contains($0) && !storeNames.contains(e.name) ? $0 : nil } ?? e.name)
            })
            let inferred = try SQLiteStore.inferredModel(at: url)
            let expected = Self.storedKeys(stored) { byName[$0] ?? $0 }
            let got = Self.inferredKeys(inferred)
            found += expected.intersection(got).count
            missed += expected.subtracting(got).map { "\(path): \($0)" }
            falseOnes += got.subtracting(expected).map { "\(path): \($0)" }
            // The inferred model opens the store and reads every relationship.
            let store = try SQLiteStore(url: url, model: inferred, readOnly: true)
            _ = store
        }
        #expect(missed.sorted() == [], "missed")
        #expect(falseOnes.sorted() == [], "false")
        #expect(found > 0)
    }

    @Test("Recipes: ZTYPE is a to-one to RecipeType, with inferred inverse to-manys and the one-to-one Recipe.IMAGE ↔ Image.RECIPE")
    func recipes() throws {
        let url = try Fixtures.copyStore("stores/apple-iPhoneCoreDataRecipes-2018/Recipes.sqlite")
        try Self.sqlite(url, "DELETE FROM Z_MODELCACHE")
        let model = try SQLiteStore.inferredModel(at: url)
        let recipe = try #require(model.entity(named: "Recipe"))
        let type = try #require(recipe.relationship(named: "TYPE"))
        #expect(type.destinationEntityName == "RecipeType" && !type.isToMany)
        #expect(recipe.attribute(named: "TYPE") == nil)
        let recipes = try #require(model.entity(named: "RecipeType")?.relationship(named: type.inverseName ?? ""))
        #expect(recipes.name == "RECIPES" && recipes.isToMany && recipes.destinationEntityName == "Recipe")
        #expect(recipes.userInfo[RelationshipDescription.inferredInverseKey] != nil)
        let ingredients = try #require(recipe.relationship(named: "INGREDIENTS"))
        #expect(ingredients.isToMany && ingredients.inverseName == "RECIPE" && ingredients.destinationEntityName == "Ingredient")
        #expect(recipe.relationship(named: "IMAGE")?.inverseName == "RECIPE")
        #expect(model.entity(named: "Image")?.relationship(named: "RECIPE")?.inverseName == "IMAGE")

        // The store reads the inferred to-many through Ingredient's foreign key.
        let store = try SQLiteStore(url: url, model: model, readOnly: true)
        let rows = try store.fetch(StoreFetchRequest(entity: recipe))
        let slot = try #require(recipe.relationshipSlots["INGREDIENTS"])
        let related = try store.relatedObjectIDs(for: rows.map(\.objectID), relationshipSlot: slot)
        let expected = try RawSQLite.scalar("SELECT COUNT(*) FROM ZINGREDIENT WHERE ZRECIPE IS NOT NULL", in: url)
        #expect(expected > 0 && related.values.reduce(0) { $0 + $1.count } == expected)
    }
}

extension SchemaInferenceRelationshipTests {
    @Test("two to-ones to one entity give MESSAGES_AS_SENDER and MESSAGES_AS_RECIPIENT; a Z_FOK_ column makes the inverse ordered")
    func namesAndOrder() throws {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Person", attributes: [AttributeDescription("name", .string)], relationships: [
                RelationshipDescription("sent", destination: "Message", inverse: "sender", toMany: true),
                RelationshipDescription("received", destination: "Message", inverse: "recipient", toMany: true),
            ]),
            EntityDescription(name: "Message", attributes: [AttributeDescription("text", .string)], relationships: [
                RelationshipDescription("sender", destination: "Person", inverse: "sent"),
                RelationshipDescription("recipient", destination: "Person", inverse: "received"),
                RelationshipDescription("folder", destination: "Folder", inverse: "items"),
            ]),
            EntityDescription(name: "Folder", attributes: [AttributeDescription("name", .string)], relationships: [
                RelationshipDescription("items", destination: "Message", inverse: "folder", toMany: true, isOrdered: true),
            ]),
        ])
        let url = try Fixtures.temporaryFolder().appendingPathComponent("Mail.sqlite")
        _ = try SQLiteStore(url: url, model: model)
        func ent(_ name: String) -> String { "(SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = '\(name)')" }
        try Self.sqlite(url, """
            INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (10, \(ent("Person")), 1, 'Ann'), (11, \(ent("Person")), 1, 'Bob');
            INSERT INTO ZFOLDER (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (1, \(ent("Folder")), 1, 'Inbox');
            INSERT INTO ZMESSAGE (Z_PK, Z_ENT, Z_OPT, ZTEXT, ZSENDER, ZRECIPIENT, ZFOLDER, Z_FOK_FOLDER) VALUES
              (1, \(ent("Message")), 1, 'hi', 10, 11, 1, 1), (2, \(ent("Message")), 1, 'yo', 11, 10, 1, 2);
            DELETE FROM Z_MODELCACHE;
            """)
        let inferred = try SQLiteStore.inferredModel(at: url)
        let message = try #require(inferred.entity(named: "Message"))
        #expect(message.relationship(named: "SENDER")?.destinationEntityName == "Person")
        #expect(message.relationship(named: "SENDER")?.inverseName == "MESSAGES_AS_SENDER")
        #expect(message.relationship(named: "RECIPIENT")?.inverseName == "MESSAGES_AS_RECIPIENT")
        let person = try #require(inferred.entity(named: "Person"))
        #expect(person.relationship(named: "MESSAGES_AS_SENDER")?.isToMany == true)
        #expect(person.relationship(named: "MESSAGES_AS_RECIPIENT")?.isInferredInverse == true)
        let messages = try #require(inferred.entity(named: "Folder")?.relationship(named: "MESSAGES"))
        #expect(messages.isOrdered && messages.isToMany && messages.inverseName == "FOLDER")
        #expect(message.attribute(named: "SENDER") == nil && message.attribute(named: "FOK_FOLDER") == nil)
    }
}
