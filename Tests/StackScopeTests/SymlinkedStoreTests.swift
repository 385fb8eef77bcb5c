import CoreStack
import Foundation
import StackScope
import Testing

/// A store reached through a symbolic link (an app container linked into a work folder, a
/// simulator's store linked by a script): SQLite puts `-wal` and `-shm` beside the link's target.
@Suite("stores through a symbolic link")
struct SymlinkedStoreTests {
    /// A copy of `name` in a folder of its own, and a link to it in another folder.
    static func linked(_ name: String) throws -> (link: URL, target: URL) {
        let target = try StoreOwnModelTests.copy([name])
        let link = try TestSupport.temporaryDirectory().appendingPathComponent("link.sqlite")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        return (link, target)
    }

    @Test("info, dump and history through a link leave the target's folder as they found it (no -wal, no -shm)")
    func readOnlyThroughLink() throws {
        let (link, target) = try Self.linked("alemar11-CoreDataPlus/SampleModel2_V1.sqlite")
        let folder = target.deletingLastPathComponent()
        let before = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        let checksum = try TestSupport.checksum(target)
        let info = try InfoCommand.info(storePath: link.path, modelPath: nil)
        #expect(info.entities.first { $0.name == "Book" }?.count == 52)
        _ = try DumpCommand.dump(storePath: link.path, query: DumpQuery(entityName: "Author"))
        _ = try HistoryCommand.run(storePath: link.path, modelPath: nil, after: nil, author: nil, json: false)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == before)
        #expect(try TestSupport.checksum(target) == checksum)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path)
    }

    @Test("migrate through a link migrates the store it points to, and the link stays a link")
    func migrateThroughLink() throws {
        let (link, target) = try Self.linked("bnr-CoreDataStack/TestModel.sqlite")
        let model = TestSupport.fixture("models/bnr-CoreDataStack/Sample.xcdatamodeld").path
        let text = try MigrateCommand.run(storePath: link.path, modelPath: model, dryRun: false)
        #expect(text.contains("to \"TestModel 2\""))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path)
        #expect(try InfoCommand.info(storePath: target.path, modelPath: model).modelVersion == "TestModel 2")
    }
}
