import Foundation
import Testing

@testable import CoreStack

/// Values a custom stage's `willMigrate` reads for its `didMigrate`, shared across their queues.
final class StageValues: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String: String] = [:]

    subscript(key: String) -> String? {
        get { lock.withLock { values[key] } }
        set { lock.withLock { values[key] = newValue } }
    }
    var count: Int { lock.withLock { values.count } }
}

/// Staged migration (`NSStagedMigrationManager`): custom stages with code, lightweight stages.
@Suite("staged migration")
struct StagedMigrationTests {
    static let store = "stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_2.sqlite"

    /// wibosco's versions, with v4 as the current one.
    static func versions() throws -> (bundle: ManagedObjectModelBundle, v2: ManagedObjectModel, v3: ManagedObjectModel, v4: ManagedObjectModel) {
        let read = try XcodeModelReader.readBundle(at: Fixtures.url(MigrationTests.wibosco))
        let v2 = try #require(read.version(named: "CoreDataMigration_Example 2"))
        let v3 = try #require(read.version(named: "CoreDataMigration_Example 3"))
        let v4 = try #require(read.version(named: "CoreDataMigration_Example 4"))
        return (ManagedObjectModelBundle(name: read.name, versions: read.versions, currentVersion: v4), v2, v3, v4)
    }

    /// The v2 → v3 stage the wibosco project writes as a mapping model with code: each post's
    /// `hexColor` string becomes a `Color` object (`#` + lowercase hex, `colorID` the post's ID)
    /// linked by the new required to-one `Post.color`.
    static func colorStage(_ v2: ManagedObjectModel, _ v3: ManagedObjectModel, fill: Bool = true) -> MigrationStage {
        let hexes = StageValues()
        return .custom(
            from: v2, to: v3,
            willMigrate: { context in
                for post in try context.fetch(FetchRequest<ManagedObject>(entityName: "Post")) {
                    guard let id = try post.value(forKey: "postID") as? String else { continue }
                    hexes[id] = try post.value(forKey: "hexColor") as? String
                }
            },
            didMigrate: { context in
                guard fill else { return }
                for post in try context.fetch(FetchRequest<ManagedObject>(entityName: "Post")) {
                    guard let id = try post.value(forKey: "postID") as? String else { continue }
                    let color = try context.insertObject(forEntityName: "Color")
                    try color.setValue(hexes[id].map { "#" + $0.lowercased() }, forKey: "hex")
                    try color.setValue(id, forKey: "colorID")
                    try post.setValue(color, forKey: "color")
                }
            })
    }

    @Test("a custom stage turns wibosco v2's Post.hexColor into linked Color objects (not inferable), then a lightweight stage adds Post.hide")
    func customThenLightweight() throws {
        let url = try Fixtures.copyStore(Self.store)
        let (bundle, v2, v3, v4) = try Self.versions()
        let before = try RawSQLite.run("SELECT Z_PK, ZPOSTID, ZHEXCOLOR FROM ZPOST ORDER BY Z_PK", in: url)
        #expect(before.count == 5979)
        let manager = StagedMigrationManager(stages: [Self.colorStage(v2, v3), .lightweight(from: [v3], to: v4)])
        let options = PersistentStoreOptions(shouldMigrateStoreAutomatically: true, stagedMigrationManager: manager)

        let store = try SQLiteStore.open(url: url, bundle: bundle, readOnly: false, options: options)
        #expect(store.model === v4)
        #expect(store.migrationsOnOpen.count == 2)
        #expect(store.migrationsOnOpen.first?.lines.contains("Color: added") == true)
        #expect(store.migrationsOnOpen.last?.lines == ["Post.hide: added (default false)"])

        let after = try RawSQLite.run(
            "SELECT ZPOST.Z_PK AS PK, ZPOSTID, ZHEX, ZCOLORID, ZCOLOR.ZPOST AS BACK FROM ZPOST JOIN ZCOLOR ON ZPOST.ZCOLOR = ZCOLOR.Z_PK ORDER BY ZPOST.Z_PK",
            in: url)
        #expect(after.count == 5979)
        #expect(try RawSQLite.scalar("SELECT COUNT(*) FROM ZCOLOR", in: url) == 5979)
        let expected = before.map { "\($0["Z_PK"] ?? "")|\($0["ZPOSTID"] ?? "")|#\("\($0["ZHEXCOLOR"] ?? "")".lowercased())|\($0["ZPOSTID"] ?? "")|\($0["Z_PK"] ?? "")" }
        #expect(after.map { "\($0["PK"] ?? "")|\($0["ZPOSTID"] ?? "")|\($0["ZHEX"] ?? "")|\($0["ZCOLORID"] ?? "")|\($0["BACK"] ?? "")" } == expected)
        #expect(try RawSQLite.scalar("SELECT COUNT(*) FROM ZPOST WHERE ZHIDE = 0", in: url) == 5979)
        let left = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        #expect(!left.contains { $0.contains("migrating") })
    }

    @Test("a custom stage changes an Integer to a String (not inferable): willMigrate's saved edits reach the new file, didMigrate writes the new values")
    func typeChangeWithCode() throws {
        let v1 = try AutomaticMigrationTests.v1Notes()
        let v2 = try ManagedObjectModel(versionName: "Notes 2 (stars as text)") {
            EntityDescription("Note") {
                AttributeDescription("text", .string)
                AttributeDescription("stars", .string, isOptional: false)
            }
        }
        #expect(throws: MigrationError(entity: "Note", property: "stars", reason: "Integer 16 cannot become String without code")) {
            try SQLiteMigration.plan(from: v1, to: v2)
        }
        let url = try AutomaticMigrationTests.notesStore(v1)
        let stars = StageValues()
        let stage = MigrationStage.custom(
            from: v1, to: v2,
            willMigrate: { context in
                for note in try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")) {
                    let text = try note.value(forKey: "text") as? String ?? ""
                    stars[text.uppercased()] = String(repeating: "★", count: try note.value(forKey: "stars").flatMap { Int("\($0)") } ?? 0)
                    try note.setValue(text.uppercased(), forKey: "text")  // saved into the copy, then copied
                }
            },
            didMigrate: { context in
                for note in try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")) {
                    try note.setValue(stars[try note.value(forKey: "text") as? String ?? ""] ?? "", forKey: "stars")
                }
            })
        let plans = try StagedMigrationManager(stages: [stage]).migrateStore(at: url, to: v2)
        #expect(plans.map(\.lines) == [["Note.stars: retyped (from Integer 16 to String, by the stage's code)"]])
        let rows = try RawSQLite.run("SELECT ZTEXT, ZSTARS FROM ZNOTE ORDER BY Z_PK", in: url)
        #expect(rows.map { "\($0["ZTEXT"] ?? "")|\($0["ZSTARS"] ?? "")" } == ["NOTE 0|", "NOTE 1|★", "NOTE 2|★★"])
        #expect(try SQLiteStore.metadata(at: url).versionHashes == v2.entityVersionHashes)
    }

    @Test("StagedMigrationManager.migrateStore infers the steps no stage covers (v1 → v2 before the custom v2 → v3)")
    func inferredBeforeAStage() throws {
        let url = try Fixtures.copyStore("stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_1.sqlite")
        let (bundle, v2, v3, _) = try Self.versions()
        let manager = StagedMigrationManager(stages: [Self.colorStage(v2, v3)])
        let plans = try manager.migrateStore(at: url, to: v3, knownModels: bundle.versions)
        #expect(plans.count == 2)
        #expect(try MigrationTests.count("Post", url, v3) == 1001)
        #expect(try RawSQLite.scalar("SELECT COUNT(*) FROM ZPOST WHERE ZCOLOR IS NULL", in: url) == 0)
    }

    @Test("a change neither inferable nor made by a stage fails with MigrationError naming Post.color and why, the store untouched")
    func notCovered() throws {
        let url = try Fixtures.copyStore(Self.store)
        let (bundle, v2, v3, v4) = try Self.versions()
        let original = try Data(contentsOf: url)
        let options = { (manager: StagedMigrationManager) in
            PersistentStoreOptions(shouldMigrateStoreAutomatically: true, stagedMigrationManager: manager)
        }
        // Only lightweight stages: v2 → v3 adds a required relationship.
        let lightweight = StagedMigrationManager(stages: [.lightweight(from: [v2], to: v3), .lightweight(from: [v3], to: v4)])
        #expect(throws: MigrationError(entity: "Post", property: "color", reason: "a required relationship is added")) {
            _ = try SQLiteStore.open(url: url, bundle: bundle, readOnly: false, options: options(lightweight))
        }
        #expect(try Data(contentsOf: url) == original)

        // A custom stage whose code leaves the required relationship empty.
        let lazy = StagedMigrationManager(stages: [Self.colorStage(v2, v3, fill: false)])
        #expect(
            throws: MigrationError(
                entity: "Post", property: "color", reason: "required, and still empty in 5979 rows after the custom stage's didMigrate")
        ) {
            _ = try SQLiteStore.open(url: url, bundle: bundle, readOnly: false, options: options(lazy))
        }
        #expect(try Data(contentsOf: url) == original)

        // A stage whose code throws: its error, and the store as it was.
        struct Refused: Error, Equatable {}
        let refusing = StagedMigrationManager(stages: [.custom(from: v2, to: v3, willMigrate: { _ in throw Refused() })])
        #expect(throws: Refused()) { try refusing.migrateStore(at: url, to: v3) }
        #expect(try Data(contentsOf: url) == original)
        let left = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        #expect(!left.contains { $0.contains("migrating") })
    }
}
