import CoreStack
import Foundation
import StackScope
import Testing

@Suite("migrate")
struct MigrateCommandTests {
    static let model = "models/wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld"

    @Test("--dry-run shows the plan and the counts and changes nothing; then the store migrates to the current version")
    func migrateWibosco() throws {
        let url = try StoreOwnModelTests.copy(["wibosco-CoreDataMigration-Example/CoreDataMigration_Example_3.sqlite"])
        let before = try TestSupport.checksum(url)
        let model = TestSupport.fixture(Self.model).path
        let dry = try MigrateCommand.run(storePath: url.path, modelPath: model, dryRun: true)
        #expect(dry.contains("from \"CoreDataMigration_Example 3\" to \"CoreDataMigration_Example 4\" (dry run)"))
        #expect(dry.contains("  Post.hide: added (default false)"))
        #expect(try TestSupport.checksum(url) == before)

        let text = try MigrateCommand.run(storePath: url.path, modelPath: model, dryRun: false)
        #expect(text.contains("Post.hide: added (default false)"))
        let rows = text.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
        #expect(rows.contains(["Post", "7995", "7995"]))
        #expect(rows.contains(["Color", "7995", "7995"]))
        let info = try InfoCommand.info(storePath: url.path, modelPath: model)
        #expect(info.modelVersion == "CoreDataMigration_Example 4")
    }

    @Test("a store already at the current version is left alone")
    func nothingToDo() throws {
        let url = try StoreOwnModelTests.copy(["wibosco-CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite", "wibosco-CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite-wal"])
        let before = try TestSupport.checksum(url)
        let text = try MigrateCommand.run(storePath: url.path, modelPath: TestSupport.fixture(Self.model).path, dryRun: false)
        #expect(text.hasSuffix("is already at version \"CoreDataMigration_Example 4\" of CoreDataMigration_Example: nothing to migrate\n"))
        #expect(try TestSupport.checksum(url) == before)
    }
}
