import Foundation
import GRDB
import Testing

@testable import CoreStack

/// A model cache holding what CoreStack does not implement (as Apple's Photos.sqlite does) is
/// decoded with those parts kept as metadata, and the store opens with it.
@Suite("model caches with parts CoreStack does not implement")
struct ModelCacheMetadataTests {
    /// An archive like a Photos-style model: an `Asset` with a fetch index whose second element is
    /// an expression, an R-tree element, a partial index, a derived attribute, a composite
    /// attribute, a fetched property, validation predicates and warnings, a uniqueness constraint
    /// on a composite's key path, an attribute of an unknown type and a property of an unknown
    /// kind; an `Album` whose relationship has an unknown delete rule.
    static func photosLikeArchive() -> Data {
        var b = CoreDataArchiveBuilder()
        let root = b.reserve()
        let asset = b.reserve()
        let album = b.reserve()
        let date = b.attribute("dateCreated", type: 900)
        let trashed = b.attribute("trashedState", type: 100)
        let rule = b.comparison(keyPath: "length", operatorType: 3, constant: .integer(3))
        let title = b.attribute("title", type: 700, extra: [
            ("NSValidationPredicates", b.array([rule])), ("NSValidationWarnings", b.array([b.add(.string("too short"))])),
        ])
        let count = b.function("count:", keyPath: "albums")
        let derived = b.attribute("albumCount", type: 300, className: "NSDerivedAttributeDescription", extra: [
            ("NSDerivationExpression", .uid(count)), ("NSIsReadOnly", .bool(true)),
        ])
        let latitude = b.attribute("latitude", type: 500)
        let longitude = b.attribute("longitude", type: 500)
        let location = b.attribute("location", type: 2100, className: "NSCompositeAttributeDescription", extra: [
            ("NSElements", b.array([latitude, longitude])),
        ])
        let mood = b.attribute("mood", type: 4242)
        let odd = b.object("NSFancyPropertyDescription", [("NSPropertyName", b.string("sparkle"))])
        let albums = b.object("NSRelationshipDescription", [
            ("NSPropertyName", b.string("albums")), ("_NSDestinationEntityName", b.string("Album")),
            ("_NSInverseRelationshipName", b.string("assets")), ("NSMinCount", .integer(0)), ("NSMaxCount", .integer(0)),
            ("NSDeleteRule", .integer(1)), ("_P", .integer(243)),
        ])
        let fetchPredicate = b.comparison(keyPath: "name", operatorType: 8, constant: .string("Recent"))
        let request = b.object("NSFetchRequest", [("NSPredicate", .uid(fetchPredicate))])
        let recent = b.object("NSFetchedPropertyDescription", [
            ("NSPropertyName", b.string("recentAlbums")), ("_NSFetchRequestEntityName", b.string("Album")),
            ("NSFetchRequest", .uid(request)), ("NSIsTransient", .bool(true)),
        ])
        let lower = b.function("lowercase:", keyPath: "title")
        let byDate = b.fetchIndex("byDate", elements: [b.indexElement(property: "dateCreated", ascending: false)])
        let notTrashed = b.comparison(keyPath: "trashedState", operatorType: 4, constant: .integer(0))
        let byTitle = b.fetchIndex(
            "byTrashAndTitle", elements: [b.indexElement(property: "trashedState"), b.indexElement(expressionNamed: "lowerTitle", expression: lower)],
            partial: notTrashed)
        let byPlace = b.fetchIndex("byPlace", elements: [b.indexElement(property: "location", type: 1)])
        let unique1 = b.array([b.add(.string("title"))])
        let unique2 = b.array([b.add(.string("location.latitude"))])
        b.entity("Asset", at: asset, properties: [
            ("dateCreated", date), ("trashedState", trashed), ("title", title), ("albumCount", derived), ("location", location),
            ("mood", mood), ("sparkle", odd), ("albums", albums), ("recentAlbums", recent),
        ], extra: [
            ("NSFetchIndexDescriptions", b.array([byDate, byTitle, byPlace])),
            ("NSUniqueTuples", .uid(b.object("NSArray", [("NS.objects", .array([unique1, unique2]))]))),
        ])
        let name = b.attribute("name", type: 700)
        let assets = b.object("NSRelationshipDescription", [
            ("NSPropertyName", b.string("assets")), ("_NSDestinationEntityName", b.string("Asset")),
            ("_NSInverseRelationshipName", b.string("albums")), ("NSMinCount", .integer(0)), ("NSMaxCount", .integer(0)),
            ("NSDeleteRule", .integer(9)), ("_P", .integer(243)),
        ])
        b.entity("Album", at: album, properties: [("name", name), ("assets", assets)])
        let holidays = b.comparison(keyPath: "name", operatorType: 4, constant: .string("Holidays"))
        let template = b.object("NSFetchRequest", [
            ("NSEntity", .uid(album)), ("NSPredicate", .uid(holidays)), ("NSFetchLimit", .integer(5)), ("NSBatchSize", .integer(0)),
        ])
        let ghostTemplate = b.object("NSFetchRequest", [("NSEntityName", b.string("Ghost"))])
        return b.archive(entities: [("Album", album), ("Asset", asset)], root: root, templates: [("holidays", template), ("ghosts", ghostTemplate)])
    }

    @Test("a fetch index with an expression element, and every other part CoreStack does not implement, is kept as metadata instead of rejecting the model")
    func decodesEverythingAsMetadata() throws {
        let model = try ManagedObjectModel(archivedModelCache: try RawDeflate.deflate(Self.photosLikeArchive()))
        let asset = try #require(model.entity(named: "Asset"))

        let byTitle = try #require(asset.fetchIndexes.first { $0.name == "byTrashAndTitle" })
        #expect(byTitle.elements.map(\.property) == ["trashedState", "lowerTitle"])
        #expect(byTitle.elements[0].expression == nil)
        #expect(byTitle.elements[1].expression == "lowercase:(title)")
        #expect(byTitle.partialIndexPredicate == "trashedState == 0")
        let byDate = try #require(asset.fetchIndexes.first { $0.name == "byDate" })
        #expect(byDate.elements == [.init(property: "dateCreated", ascending: false)])
        let byPlace = try #require(asset.fetchIndexes.first { $0.name == "byPlace" })
        #expect(byPlace.elements.first?.collationType == .rTree)
        #expect(byPlace.elements.first?.expression == "location")

        #expect(asset.attribute(named: "albumCount")?.derivationExpression == "count:(albums)")
        #expect(asset.attribute(named: "title")?.validationPredicates == ["length >= 3"])
        #expect(asset.attribute(named: "title")?.validationWarnings == ["too short"])
        #expect(asset.compositeAttributes == [
            CompositeAttributeDescription(name: "location", elements: [AttributeDescription("latitude", .double), AttributeDescription("longitude", .double)])
        ])
        #expect(asset.attribute(named: "location") == nil)
        #expect(asset.fetchedProperties == [
            FetchedPropertyDescription(name: "recentAlbums", destinationEntityName: "Album", predicate: "name BEGINSWITH \"Recent\"")
        ])
        #expect(asset.uniquenessConstraints == [["title"]])
        #expect(asset.attribute(named: "mood") == nil)
        let notes = asset.unimplementedElements.joined(separator: "\n")
        #expect(notes.contains("location.latitude"))
        #expect(notes.contains("attribute mood: the attribute type 4242"))
        #expect(notes.contains("property sparkle: NSFancyPropertyDescription"))

        // Fetch request templates: the one of a known entity, with its predicate and limit.
        #expect(Array(model.fetchRequestTemplates.values) == [
            FetchRequestTemplate(name: "holidays", entityName: "Album", predicateString: "name == \"Holidays\"", fetchLimit: 5)
        ])

        let album = try #require(model.entity(named: "Album"))
        #expect(album.relationship(named: "assets")?.deleteRule == .nullify)
        #expect(album.unimplementedElements.contains { $0.contains("delete rule 9") })
        #expect(asset.relationship(named: "albums")?.inverseName == "assets")
    }

    @Test("a store whose model cache has an expression index opens read-only with that model alone, with its rows")
    func storeWithExpressionIndexOpens() throws {
        let folder = try Fixtures.temporaryFolder()
        let url = folder.appendingPathComponent("Photos.sqlite")
        let model = try ManagedObjectModel {
            EntityDescription("Album") {
                AttributeDescription("name", .string)
                RelationshipDescription("assets", destination: "Asset", inverse: "albums", toMany: true)
            }
            EntityDescription("Asset") {
                AttributeDescription("albumCount", .integer64)
                AttributeDescription("dateCreated", .date)
                AttributeDescription("title", .string)
                AttributeDescription("trashedState", .integer16)
                RelationshipDescription("albums", destination: "Album", inverse: "assets", toMany: true)
            }
        }
        let created = try SQLiteStore(url: url, model: model)
        created.close()
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            for pk in 1...3 { try db.execute(sql: "INSERT INTO ZASSET (Z_PK, Z_ENT, Z_OPT, ZTITLE) VALUES (?, 2, 1, 'a')", arguments: [pk]) }
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = 3 WHERE Z_NAME = 'Asset'")
            try db.execute(sql: "UPDATE Z_MODELCACHE SET Z_CONTENT = ?", arguments: [try RawDeflate.deflate(Self.photosLikeArchive())])
            // Apple's stores carry no CoreStack version name: matched by layout, not version hashes.
            try db.execute(sql: "UPDATE Z_METADATA SET Z_PLIST = ?", arguments: [try Self.applePlist()])
        }
        try queue.close()

        let stored = try #require(try SQLiteStore.storedModel(at: url))
        #expect(stored.entity(named: "Asset")?.fetchIndexes.count == 3)
        let store = try SQLiteStore(url: url, model: stored, readOnly: true)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: stored)
        try coordinator.addPersistentStore(store)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        let n = try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Asset")) }
        #expect(n == 3)
        try coordinator.remove(store)
        store.close()
    }

    @Test("Apple's own archives: the CoreDataPlus store's fetched property, derived attribute, fetch index and constraints are read as metadata")
    func fixtureMetadata() throws {
        let model = try #require(try SQLiteStore.storedModel(at: try Fixtures.copyStore("stores/alemar11-CoreDataPlus/SampleModel2_V1.sqlite")))
        let fetched = model.entities.flatMap(\.fetchedProperties)
        #expect(fetched.map(\.name) == ["favFeedbacks", "feedbacks"])
        let favourites = try #require(fetched.first { $0.name == "favFeedbacks" })
        #expect(favourites.destinationEntityName == "Feedback")
        #expect(favourites.predicate == "(authorAlias == $FETCH_SOURCE.alias) AND (comment CONTAINS $FETCHED_PROPERTY.userInfo.search)")
        let derived = model.entities.flatMap(\.attributes).compactMap(\.derivationExpression)
        #expect(derived.contains("count:(pages)"))
        #expect(model.entities.allSatisfy { $0.unimplementedElements.isEmpty })
    }

    @Test("a cache whose model is inconsistent (an inverse that does not exist, a destination that does not exist) is read with those relationships set aside, each named in a note")
    func inconsistentRelationshipsAreSetAside() throws {
        var b = CoreDataArchiveBuilder()
        let root = b.reserve()
        let album = b.reserve()
        let assets = b.object("NSRelationshipDescription", [
            ("NSPropertyName", b.string("assets")), ("_NSDestinationEntityName", b.string("Album")),
            ("_NSInverseRelationshipName", b.string("nope")), ("NSMaxCount", .integer(0)), ("_P", .integer(243)),
        ])
        let ghosts = b.object("NSRelationshipDescription", [
            ("NSPropertyName", b.string("ghosts")), ("_NSDestinationEntityName", b.string("Ghost")),
            ("NSMaxCount", .integer(0)), ("_P", .integer(243)),
        ])
        let name = b.attribute("name", type: 700)
        b.entity("Album", at: album, properties: [("assets", assets), ("ghosts", ghosts), ("name", name)])
        let model = try ManagedObjectModel(archivedModel: b.archive(entities: [("Album", album)], root: root))
        let entity = try #require(model.entity(named: "Album"))
        #expect(entity.relationship(named: "assets")?.inverseName == nil)
        #expect(entity.relationship(named: "ghosts") == nil)
        #expect(entity.attribute(named: "name") != nil)
        #expect(entity.unimplementedElements.contains { $0.hasPrefix("relationship assets: its inverse \"nope\"") && $0.hasSuffix("(read without its inverse)") })
        #expect(entity.unimplementedElements.contains { $0.hasPrefix("relationship ghosts: its destination entity \"Ghost\" does not exist") })
    }

    @Test("a cache that cannot be read whole (a parent that is not an entity) is refused naming the object and key")
    func unreadableCacheNamesTheElement() throws {
        var b = CoreDataArchiveBuilder()
        let root = b.reserve()
        let album = b.reserve()
        let stray = b.add(.string("not an entity"))
        b.entity("Album", at: album, properties: [], superentity: stray)
        let data = b.archive(entities: [("Album", album)], root: root)
        #expect {
            _ = try ManagedObjectModel(archivedModel: data)
        } throws: { error in
            guard let error = error as? ModelArchiveError else { return false }
            return error.location == "$objects[\(album)].NSSuperentity" && error.reason.contains("not one of the model's entities")
        }
    }

    /// Metadata as Apple writes it (no CoreStack version name).
    static func applePlist() throws -> Data {
        try PropertyListSerialization.data(
            fromPropertyList: ["NSStoreType": "SQLite", "NSPersistenceFrameworkVersion": 1_340, "NSStoreModelVersionHashes": [String: Data]()],
            format: .binary, options: 0)
    }
}
