import Foundation
import StackScope
import Testing

/// The browser says when it reads a store without SQLite's usual side files (issue 35 and the
/// read-only places of issue 31): a store with a `-wal` and no `-shm`, opened read-only, is read
/// from a private snapshot copy, and the status notes say so.
@Suite struct BrowserReadAccessTests {
    @Test("a read-only browser on a store with a -wal and no -shm reads a snapshot copy, says so in its notes, and leaves the folder as found")
    func snapshotIsNoted() throws {
        let folder = try TestSupport.temporaryDirectory()
        let source = TestSupport.fixture("stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite")
        let url = folder.appendingPathComponent(source.lastPathComponent)
        for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: source.path + suffix, toPath: url.path + suffix) }
        let model = TestSupport.fixture("models/wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld").path
        do {
            let session = try BrowserSession.open(storePath: url.path, modelPath: model, readOnly: true)
            #expect(session.notes.contains { $0.hasPrefix("read-only snapshot") }, "\(session.notes)")
            session.close()
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [url.lastPathComponent, url.lastPathComponent + "-wal"])
    }
}
