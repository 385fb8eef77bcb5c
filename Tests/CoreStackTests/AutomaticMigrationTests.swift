import Foundation
import Testing

@testable import CoreStack

/// Automatic lightweight migration when a store is opened (`NSMigratePersistentStoresAutomaticallyOption`).
@Suite("automatic migration on open")
struct AutomaticMigrationTests {
    static let v1Notes: @Sendable () throws -> ManagedObjectModel = {
        try ManagedObjectModel(versionName: "Notes 1") {
            EntityDescription("Note") {
                AttributeDescription("text", .string)
                AttributeDescription("stars", .integer16)
            }
        }
    }
    static let v2Notes: @Sendable () throws -> ManagedObjectModel = {
        try ManagedObjectModel(versionName: "Notes 2") {
            EntityDescription("Note") {
                AttributeDescription("body", .string, renamingIdentifier: "text")
                AttributeDescription("stars", .integer64)
                AttributeDescription("pinned", .boolean, defaultValue: false)
            }
        }
    }

    /// A store of `model` at a new path with `count` notes ("note 0", …).
    static func notesStore(_ model: ManagedObjectModel, count: Int = 3) throws -> URL {
        let url = try Fixtures.temporaryFolder().appendingPathComponent("notes.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(try SQLiteStore(url: url, model: model))
        defer { coordinator.removePersistentStore() }
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait {
            for i in 0..<count {
                let note = try context.insertObject(forEntityName: "Note")
                try note.setValue("note \(i)", forKey: "text")
                try note.setValue(i, forKey: "stars")
            }
            try context.save()
        }
        return url
    }

    /// The notes' bodies, in primary-key order, read with `model`.
    static func bodies(_ url: URL, _ model: ManagedObjectModel) throws -> [String] {
        try RawSQLite.run("SELECT ZBODY FROM ZNOTE ORDER BY Z_PK", in: url).map { "\($0["ZBODY"] ?? "")" }
    }

    @Test("SQLiteStore migrates a store of an earlier model it carries (Z_MODELCACHE) only with the option, keeping rows and store UUID")
    func sqliteStoreOption() throws {
        let v1 = try Self.v1Notes(), v2 = try Self.v2Notes()
        let url = try Self.notesStore(v1)
        let uuid = try SQLiteStore.metadata(at: url).storeUUID
        let before = try Data(contentsOf: url)
        // Without the option: the mismatch, and the file as it was.
        #expect(throws: CoreStackError.self) { _ = try SQLiteStore(url: url, model: v2) }
        // Read-only stores are never migrated, option or not.
        #expect(throws: CoreStackError.self) {
            _ = try SQLiteStore(url: url, model: v2, readOnly: true, options: PersistentStoreOptions(shouldMigrateStoreAutomatically: true))
        }
        #expect(try Data(contentsOf: url) == before)

        let store = try SQLiteStore(url: url, model: v2, options: PersistentStoreOptions(shouldMigrateStoreAutomatically: true))
        #expect(store.migrationsOnOpen.map { Set($0.lines) } == [
            ["Note.body: renamed (from text)", "Note.stars: retyped (from Integer 16 to Integer 64)", "Note.pinned: added (default false)"]
        ])
        #expect(store.identifier == uuid)
        #expect(try SQLiteStore.metadata(at: url).versionHashes == v2.entityVersionHashes)
        #expect(try Self.bodies(url, v2) == ["note 0", "note 1", "note 2"])
        #expect(try RawSQLite.scalar("SELECT SUM(ZSTARS) FROM ZNOTE WHERE ZPINNED = 0", in: url) == 3)
        // Opened again, nothing more to do.
        let again = try SQLiteStore(url: url, model: v2, options: PersistentStoreOptions(shouldMigrateStoreAutomatically: true))
        #expect(again.migrationsOnOpen.isEmpty)
    }

    @Test("open(url:bundle:) migrates wibosco v3 to the current v4, and CoreDataPlus SampleModel V1 through two versions")
    func bundleVersions() throws {
        let options = PersistentStoreOptions(shouldMigrateStoreAutomatically: true)
        let url = try Fixtures.copyStore("stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_3.sqlite")
        let read = try XcodeModelReader.readBundle(at: Fixtures.url(MigrationTests.wibosco))
        let v4 = try #require(read.version(named: "CoreDataMigration_Example 4"))
        let bundle = ManagedObjectModelBundle(name: read.name, versions: read.versions, currentVersion: v4)
        // Without the option the older version needs migrating.
        #expect(throws: CoreStackError.self) { _ = try SQLiteStore.open(url: url, bundle: bundle, readOnly: false) }
        let store = try SQLiteStore.open(url: url, bundle: bundle, readOnly: false, options: options)
        #expect(store.model === v4)
        #expect(store.migrationsOnOpen.map(\.lines) == [["Post.hide: added (default false)"]])
        #expect(try MigrationTests.count("Post", url, v4) == 7995)
        #expect(try MigrationTests.count("Color", url, v4) == 7995)

        let plus = try Fixtures.copyStore("stores/alemar11-CoreDataPlus/SampleModel_V1.sqlite")
        let sample = try XcodeModelReader.readBundle(at: Fixtures.url("models/alemar11-CoreDataPlus/SampleModel.xcdatamodeld"))
        let three = ManagedObjectModelBundle(name: sample.name, versions: sample.versions, currentVersion: sample.versions[2])
        let opened = try SQLiteStore.open(url: plus, bundle: three, readOnly: false, options: options)
        #expect(opened.model === three.currentVersion)
        #expect(opened.migrationsOnOpen.count == 2)
        #expect(try MigrationTests.count("LuxuryCar", plus, three.currentVersion) == 5)
    }

    @Test("a store whose migration cannot be inferred fails to open with MigrationError naming Post.color, and is untouched")
    func notInferableOnOpen() throws {
        let url = try Fixtures.copyStore("stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_1.sqlite")
        let read = try XcodeModelReader.readBundle(at: Fixtures.url(MigrationTests.wibosco))
        let v4 = try #require(read.version(named: "CoreDataMigration_Example 4"))
        let bundle = ManagedObjectModelBundle(name: read.name, versions: read.versions, currentVersion: v4)
        let before = try Data(contentsOf: url)
        #expect(throws: MigrationError(entity: "Post", property: "color", reason: "a required relationship is added")) {
            _ = try SQLiteStore.open(url: url, bundle: bundle, readOnly: false, options: PersistentStoreOptions(shouldMigrateStoreAutomatically: true))
        }
        #expect(try Data(contentsOf: url) == before)
        let left = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        #expect(!left.contains { $0.contains("migrating") })
    }

    @Test("a store of an unrelated model (no entity in common) is not migrated on open, though inference would drop and add entities")
    func unrelatedModel() throws {
        let url = try Self.notesStore(try Self.v1Notes())
        let before = try Data(contentsOf: url)
        let photos = try ManagedObjectModel(versionName: "Photos") { EntityDescription("Photo") { AttributeDescription("url", .string) } }
        #expect(throws: MigrationError.self) {
            _ = try SQLiteStore(url: url, model: photos, options: PersistentStoreOptions(shouldMigrateStoreAutomatically: true))
        }
        #expect(try Data(contentsOf: url) == before)
    }

    @Test("with mapping inference off and no staged migration manager, opening refuses to migrate and leaves the store")
    func inferenceOff() throws {
        let url = try Self.notesStore(try Self.v1Notes())
        let before = try Data(contentsOf: url)
        let options = PersistentStoreOptions(shouldMigrateStoreAutomatically: true, shouldInferMappingModelAutomatically: false)
        #expect(throws: MigrationError.self) { _ = try SQLiteStore(url: url, model: try Self.v2Notes(), options: options) }
        #expect(try Data(contentsOf: url) == before)
    }

    @Test("PersistentContainer migrates by default; with the option off it reports the mismatch")
    func container() async throws {
        let v1 = try Self.v1Notes(), v2 = try Self.v2Notes()
        let url = try Self.notesStore(v1)
        let strict = PersistentContainer(name: "Notes", model: v2)
        strict.storeDescription = .init(url: url)
        strict.storeDescription.options.shouldMigrateStoreAutomatically = false
        await #expect(throws: CoreStackError.self) { try await strict.loadPersistentStores() }

        let container = PersistentContainer(name: "Notes", model: v2)
        #expect(container.storeDescription.options.shouldMigrateStoreAutomatically)
        container.storeDescription = .init(url: url)
        try await container.loadPersistentStores()
        let bodies = try await container.performBackgroundTask { context in
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Note", sortDescriptors: [SortDescriptor("body")]))
                .map { try $0.value(forKey: "body") as? String ?? "" }
        }
        #expect(bodies == ["note 0", "note 1", "note 2"])
    }

    @Test("CoreDataStack migrates a store of an earlier model by default")
    func coreDataStack() async throws {
        let v1 = try Self.v1Notes(), v2 = try Self.v2Notes()
        let url = try Self.notesStore(v1)
        let stack = try await CoreDataStack.constructSQLiteStack(model: v2, at: url)
        let context = stack.mainQueueContext
        let count = try await context.perform { try context.count(for: FetchRequest<ManagedObject>(entityName: "Note")) }
        #expect(count == 3)
        #expect(try Self.bodies(url, v2) == ["note 0", "note 1", "note 2"])
    }

    @Test("PersistentStoreManager migrates a migratable cache store instead of quarantining it; a non-migratable one is still moved aside")
    func manager() throws {
        let v1 = try Self.v1Notes(), v2 = try Self.v2Notes()
        let url = try Self.notesStore(v1)
        let logged = Recorder<String>()
        var configuration = PersistentStoreManager.Configuration(model: v2, storeURL: url, savesOnTermination: false)
        configuration.log = { logged.append($0) }
        do {
            let manager = try PersistentStoreManager(configuration: configuration)
            #expect(!manager.dataStoreWasResetOrCreatedOnLoad)
            #expect(manager.quarantinedStoreURL == nil)
            #expect(manager.migrationsOnLoad.count == 1)
            let context = manager.managedObjectContext
            let count = try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Note")) }
            #expect(count == 3)
            manager.persistentStoreCoordinator.removePersistentStore()
        }
        #expect(logged.values.contains { $0.contains("migrated the store") })

        // v2 → a Date where v2 had a String: not inferable, so the cache is reset as before.
        let v3 = try ManagedObjectModel(versionName: "Notes 3") {
            EntityDescription("Note") {
                AttributeDescription("body", .date)
                AttributeDescription("stars", .integer64)
                AttributeDescription("pinned", .boolean, defaultValue: false)
            }
        }
        configuration.model = v3
        let reset = try PersistentStoreManager(configuration: configuration)
        #expect(reset.dataStoreWasResetOrCreatedOnLoad)
        #expect(reset.quarantinedStoreURL != nil)
        #expect(reset.migrationsOnLoad.isEmpty)
        #expect(reset.resetReason?.contains("cannot migrate Note.body") == true)
        reset.persistentStoreCoordinator.removePersistentStore()
    }
}
