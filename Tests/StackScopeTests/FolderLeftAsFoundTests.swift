import CoreStack
import Foundation
import StackScope
import Testing

/// `info` and `dump` leave a store's folder as they found it: no `-wal` or `-shm` file left
/// behind, though SQLite makes them for a read-only connection to a WAL-mode store.
@Suite struct FolderLeftAsFoundTests {
    static let stores = [
        ("stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite", "models/wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld", "Book"),
        ("stores/bnr-CoreDataStack/TestModel.sqlite", "models/bnr-CoreDataStack-2015/TestModel.xcdatamodeld", "Book"),
    ]

    @Test("info and dump of a WAL-mode store (with and without a -wal) leave the folder's files and bytes as they were", arguments: [0, 1])
    func infoAndDumpLeaveTheFolder(_ index: Int) throws {
        let (store, model, _) = Self.stores[index]
        let folder = try TestSupport.temporaryDirectory()
        let source = TestSupport.fixture(store)
        let url = folder.appendingPathComponent(source.lastPathComponent)
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: source.path + suffix) {
            try FileManager.default.copyItem(atPath: source.path + suffix, toPath: url.path + suffix)
        }
        func state() throws -> [String: UInt64] {
            var files: [String: UInt64] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
                files[name] = try TestSupport.checksum(folder.appendingPathComponent(name))
            }
            return files
        }
        let before = try state()
        let modelPath = TestSupport.fixture(model).path
        let info = try InfoCommand.info(storePath: url.path, modelPath: modelPath)
        #expect(!info.entities.isEmpty)
        let entity = try #require(info.entities.first?.name)
        _ = try DumpCommand.dump(storePath: url.path, modelPath: modelPath, query: DumpQuery(entityName: entity, limit: 5))
        #expect(try state() == before)
    }
}
