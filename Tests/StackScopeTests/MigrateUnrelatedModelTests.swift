import CoreStack
import Foundation
import StackScope
import Testing

/// `stackscope migrate` with a model that is not a version of the store's model (a wrong
/// `--model` path): it must refuse, not "migrate" by dropping every entity the store holds.
@Suite("migrate refuses an unrelated model")
struct MigrateUnrelatedModelTests {
    static let store = "wibosco-CoreDataMigration-Example/CoreDataMigration_Example_1.sqlite"
    static let unrelated = "models/bnr-CoreDataStack/Sample.xcdatamodeld"

    @Test("a model sharing no entity with the store is refused, and the file is left as it was")
    func refusesUnrelatedModel() throws {
        let url = try StoreOwnModelTests.copy([Self.store])
        let before = try TestSupport.checksum(url)
        let model = TestSupport.fixture(Self.unrelated).path
        #expect(throws: StackScopeError.unrelatedModel(model: "Sample.xcdatamodeld", storeEntities: ["Post"], modelEntities: ["Author", "Book", "Publisher"])) {
            try MigrateCommand.run(storePath: url.path, modelPath: model, dryRun: false)
        }
        #expect(try TestSupport.checksum(url) == before)
        // The posts are all still there (Core Data's own rows, read with sqlite3).
        #expect(try StoreOwnModelTests.sqlite3("SELECT count(*) FROM ZPOST", url) == ["1001"])
    }

    @Test("a dry run refuses it the same way")
    func dryRunRefusesUnrelatedModel() throws {
        let url = try StoreOwnModelTests.copy([Self.store])
        let model = TestSupport.fixture(Self.unrelated).path
        let error = #expect(throws: StackScopeError.self) {
            try MigrateCommand.run(storePath: url.path, modelPath: model, dryRun: true)
        }
        let line = error.map { StackScopeErrorMessage.line(for: $0) } ?? ""
        #expect(line.contains("Sample.xcdatamodeld"))
        #expect(line.contains("no entity in common"))
        #expect(line.contains("Post"))
    }
}
