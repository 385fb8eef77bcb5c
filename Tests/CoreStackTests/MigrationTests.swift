import Foundation
import Testing

@testable import CoreStack

/// Lightweight migration of Apple-written stores to later versions of their models.
@Suite("lightweight migration")
struct MigrationTests {
    static let wibosco = "models/wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld"

    /// The version of `bundle` the store at `url` was written with (the store closed again).
    static func sourceVersion(_ url: URL, _ bundle: ManagedObjectModelBundle) throws -> ManagedObjectModel {
        try SQLiteStore.open(url: url, bundle: bundle, readOnly: true).model
    }

    /// Objects of `entity` (and its sub-entities) in a store opened with `model`.
    static func count(_ entity: String, _ url: URL, _ model: ManagedObjectModel) throws -> Int {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(try SQLiteStore(url: url, model: model, readOnly: true))
        defer { coordinator.removePersistentStore() }
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        return try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: entity)) }
    }

    @Test("wibosco v3 → v4 adds Post.hide with its default and keeps every post, color and their one-to-one links")
    func addAttributeWithDefault() throws {
        let url = try Fixtures.copyStore("stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_3.sqlite")
        let bundle = try XcodeModelReader.readBundle(at: Fixtures.url(Self.wibosco))
        let v3 = try Self.sourceVersion(url, bundle)
        #expect(v3.versionName == "CoreDataMigration_Example 3")
        let v4 = try #require(bundle.version(named: "CoreDataMigration_Example 4"))
        let before = try RawSQLite.run("SELECT Z_PK, ZPOSTID, ZCOLOR FROM ZPOST ORDER BY Z_PK", in: url)
        let colors = try RawSQLite.run("SELECT Z_PK, ZHEX, ZPOST FROM ZCOLOR ORDER BY Z_PK", in: url)

        let plan = try SQLiteMigration.migrateStore(at: url, from: v3, to: v4)
        #expect(plan.lines == ["Post.hide: added (default false)"])

        #expect(try Self.count("Post", url, v4) == 7995)
        #expect(try Self.count("Color", url, v4) == 7995)
        let after = try RawSQLite.run("SELECT Z_PK, ZPOSTID, ZCOLOR FROM ZPOST ORDER BY Z_PK", in: url)
        #expect(after.map { "\($0["Z_PK"] ?? "")|\($0["ZPOSTID"] ?? "")|\($0["ZCOLOR"] ?? "")" } == before.map { "\($0["Z_PK"] ?? "")|\($0["ZPOSTID"] ?? "")|\($0["ZCOLOR"] ?? "")" })
        let colorsAfter = try RawSQLite.run("SELECT Z_PK, ZHEX, ZPOST FROM ZCOLOR ORDER BY Z_PK", in: url)
        #expect(colorsAfter.count == colors.count)
        #expect(colorsAfter.map { "\($0["ZHEX"] ?? "")|\($0["ZPOST"] ?? "")" } == colors.map { "\($0["ZHEX"] ?? "")|\($0["ZPOST"] ?? "")" })
        #expect(try RawSQLite.scalar("SELECT COUNT(*) FROM ZPOST WHERE ZHIDE = 0", in: url) == 7995)
        // The migrated store opens with v4 and follows the relationships.
        let coordinator = PersistentStoreCoordinator(managedObjectModel: v4)
        try coordinator.addPersistentStore(try SQLiteStore(url: url, model: v4, readOnly: true))
        defer { coordinator.removePersistentStore() }
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait {
            let posts = try context.fetch(FetchRequest<ManagedObject>(entityName: "Post", sortDescriptors: [SortDescriptor("postID")]))
            let post = try #require(posts.first)
            let color = try #require(try post.value(forKey: "color") as? ManagedObject)
            #expect((try color.value(forKey: "post") as? ManagedObject) === post)
            #expect(try post.value(forKey: "hide") as? Bool == false)
        }
        // No temporary file is left beside the store.
        let left = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        #expect(!left.contains { $0.contains("migrating") })
    }

    @Test("wibosco v1 → v2 removes Post.color and adds Post.hexColor, keeping the 1001 posts; v2 → v3 is refused")
    func addAndRemoveAttributes() throws {
        let url = try Fixtures.copyStore("stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_1.sqlite")
        let bundle = try XcodeModelReader.readBundle(at: Fixtures.url(Self.wibosco))
        let v1 = try Self.sourceVersion(url, bundle)
        let v2 = try #require(bundle.version(named: "CoreDataMigration_Example 2"))
        let ids = try RawSQLite.run("SELECT ZPOSTID FROM ZPOST ORDER BY Z_PK", in: url)
        let plan = try SQLiteMigration.migrateStore(at: url, from: v1, to: v2)
        #expect(Set(plan.lines) == ["Post.hexColor: added", "Post.color: removed"])
        #expect(try Self.count("Post", url, v2) == 1001)
        #expect(try RawSQLite.run("SELECT ZPOSTID FROM ZPOST ORDER BY Z_PK", in: url).map { "\($0["ZPOSTID"] ?? "")" } == ids.map { "\($0["ZPOSTID"] ?? "")" })
        // v2 → v3 adds a required to-one Post.color (the project migrates it with a mapping
        // model and code): not inferable, and the store stays as it was.
        let v3 = try #require(bundle.version(named: "CoreDataMigration_Example 3"))
        let migrated = try Data(contentsOf: url)
        #expect(throws: MigrationError(entity: "Post", property: "color", reason: "a required relationship is added")) {
            try SQLiteMigration.migrateStore(at: url, from: v2, to: v3)
        }
        #expect(try Data(contentsOf: url) == migrated)
        #expect(try Self.count("Post", url, v2) == 1001)
    }

    @Test("CoreDataPlus SampleModel V1 → SampleModel2 renames ExpensiveSportCar to LuxuryCar, keeps rows and owners")
    func renamedEntity() throws {
        let url = try Fixtures.copyStore("stores/alemar11-CoreDataPlus/SampleModel_V1.sqlite")
        let bundle = try XcodeModelReader.readBundle(at: Fixtures.url("models/alemar11-CoreDataPlus/SampleModel.xcdatamodeld"))
        let v1 = try Self.sourceVersion(url, bundle)
        #expect(v1.versionName == "SampleModel")
        let v2 = try #require(bundle.version(named: "SampleModel2"))
        let plan = try SQLiteMigration.migrateStore(at: url, from: v1, to: v2)
        #expect(plan.lines.contains("LuxuryCar: renamed (from ExpensiveSportCar)"))
        #expect(try Self.count("Car", url, v2) == 125)
        #expect(try Self.count("SportCar", url, v2) == 10)
        #expect(try Self.count("LuxuryCar", url, v2) == 5)
        #expect(try Self.count("Person", url, v2) == 20)
        #expect(try RawSQLite.scalar("SELECT COUNT(*) FROM ZCAR WHERE ZOWNER IS NOT NULL", in: url) == 118)
        #expect(try SQLiteStore.entities(at: url).first { $0.name == "Car" }?.maxPrimaryKey == 125)
    }

    @Test("progressive migration walks a bundle's versions from the store's own; a store at the current version is left alone")
    func progressive() throws {
        let url = try Fixtures.copyStore("stores/alemar11-CoreDataPlus/SampleModel_V1.sqlite")
        let read = try XcodeModelReader.readBundle(at: Fixtures.url("models/alemar11-CoreDataPlus/SampleModel.xcdatamodeld"))
        #expect(read.versions.map(\.versionName) == ["SampleModel", "SampleModel2", "SampleModel3"])
        // The bundle's current version is its first; migrate as if the app shipped SampleModel3.
        let bundle = ManagedObjectModelBundle(name: read.name, versions: read.versions, currentVersion: read.versions[2])
        let steps = try SQLiteMigration.migrateStore(at: url, to: bundle)
        #expect(steps.count == 2)
        #expect(steps.first?.lines.contains("LuxuryCar: renamed (from ExpensiveSportCar)") == true)
        let current = try SQLiteStore.open(url: url, bundle: bundle, readOnly: false)
        #expect(current.model === bundle.currentVersion)
        #expect(steps.last?.lines.contains("Maker: added") == true)
        #expect(try Self.count("Car", url, bundle.currentVersion) == 125)
        #expect(try Self.count("LuxuryCar", url, bundle.currentVersion) == 5)
        #expect(try SQLiteMigration.migrateStore(at: url, to: bundle).isEmpty)
    }

    @Test("CoreDataPlus SampleModel2 V1 → V2, both models read from the stores' own caches")
    func sampleModel2FromCaches() throws {
        let url = try Fixtures.copyStore("stores/alemar11-CoreDataPlus/SampleModel2_V1.sqlite")
        let v1 = try #require(try SQLiteStore.storedModel(at: url))
        let v2 = try #require(try SQLiteStore.storedModel(at: try Fixtures.copyStore("stores/alemar11-CoreDataPlus/SampleModel2_V2.sqlite")))
        let counts = try ["Book", "GraphicNovel", "Feedback", "Page", "Writer", "Author"].map { try Self.count($0, url, v1) }
        let covers = try RawSQLite.scalar("SELECT COUNT(*) FROM ZBOOK WHERE ZCOVER IS NOT NULL", in: url)
        let plan = try SQLiteMigration.migrateStore(at: url, from: v1, to: v2)
        #expect(plan.lines == ["Book.frontCover: renamed (from cover)", "Author.siteURL: removed"])
        #expect(try ["Book", "GraphicNovel", "Feedback", "Page", "Writer", "Author"].map { try Self.count($0, url, v2) } == counts)
        #expect(try RawSQLite.scalar("SELECT COUNT(*) FROM ZPAGE WHERE ZBOOK IS NOT NULL", in: url) == 4970)
        #expect(covers > 0)
        #expect(try RawSQLite.scalar("SELECT COUNT(*) FROM ZBOOK WHERE ZFRONTCOVER IS NOT NULL", in: url) == covers)
    }

    @Test("a change lightweight migration cannot infer fails with the entity, property and why, and the store is untouched")
    func notInferable() throws {
        let v1 = try ManagedObjectModel { EntityDescription("Post") { AttributeDescription("date", .string) } }
        let v2 = try ManagedObjectModel { EntityDescription("Post") { AttributeDescription("date", .date) } }
        let url = try Fixtures.temporaryFolder().appendingPathComponent("posts.sqlite")
        do { _ = try SQLiteStore(url: url, model: v1) }
        let before = try Data(contentsOf: url)
        #expect(throws: MigrationError(entity: "Post", property: "date", reason: "String cannot become Date without code")) {
            try SQLiteMigration.migrateStore(at: url, from: v1, to: v2)
        }
        let v3 = try ManagedObjectModel {
            EntityDescription("Post") {
                AttributeDescription("date", .string)
                AttributeDescription("title", .string, isOptional: false)
            }
        }
        #expect(throws: MigrationError(entity: "Post", property: "title", reason: "a required attribute is added without a default value")) {
            try SQLiteMigration.plan(from: v1, to: v3)
        }
        #expect(try Data(contentsOf: url) == before)
    }

    @Test("a migration that fails while copying (a uniqueness constraint the rows break) leaves the store as it was and no file behind")
    func failureWhileCopying() throws {
        let v1 = try ManagedObjectModel { EntityDescription("Tag") { AttributeDescription("name", .string) } }
        let v2 = try ManagedObjectModel {
            EntityDescription("Tag", uniquenessConstraints: [["name"]]) { AttributeDescription("name", .string) }
        }
        let folder = try Fixtures.temporaryFolder()
        let url = folder.appendingPathComponent("tags.sqlite")
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: v1)
            try coordinator.addPersistentStore(try SQLiteStore(url: url, model: v1))
            let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
            try context.performAndWait {
                for _ in 0..<2 { try context.insertObject(forEntityName: "Tag").setValue("same", forKey: "name") }
                try context.save()
            }
            coordinator.removePersistentStore()
        }
        let rows = try RawSQLite.run("SELECT Z_PK, ZNAME FROM ZTAG ORDER BY Z_PK", in: url).count
        #expect(rows == 2)
        #expect(throws: CoreStackError.self) { try SQLiteMigration.migrateStore(at: url, from: v1, to: v2) }
        #expect(try Self.count("Tag", url, v1) == 2)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(!left.contains { $0.contains("migrating") })
    }

    @Test("renaming identifiers and numeric widening are inferred")
    func renameAndWiden() throws {
        let v1 = try ManagedObjectModel {
            EntityDescription("Note") {
                AttributeDescription("text", .string)
                AttributeDescription("stars", .integer16)
            }
        }
        let v2 = try ManagedObjectModel {
            EntityDescription("Note") {
                AttributeDescription("body", .string, renamingIdentifier: "text")
                AttributeDescription("stars", .integer64)
            }
        }
        let url = try Fixtures.temporaryFolder().appendingPathComponent("notes.sqlite")
        do {
            let store = try SQLiteStore(url: url, model: v1)
            let coordinator = PersistentStoreCoordinator(managedObjectModel: v1)
            try coordinator.addPersistentStore(store)
            let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
            try context.performAndWait {
                let note = try context.insertObject(forEntityName: "Note")
                try note.setValue("hello", forKey: "text")
                try note.setValue(4, forKey: "stars")
                try context.save()
            }
            coordinator.removePersistentStore()
        }
        let plan = try SQLiteMigration.migrateStore(at: url, from: v1, to: v2)
        #expect(Set(plan.lines) == ["Note.body: renamed (from text)", "Note.stars: retyped (from Integer 16 to Integer 64)"])
        #expect(try RawSQLite.run("SELECT ZBODY, ZSTARS FROM ZNOTE", in: url).map { "\($0["ZBODY"] ?? "")|\($0["ZSTARS"] ?? "")" } == ["hello|4"])
    }
}
