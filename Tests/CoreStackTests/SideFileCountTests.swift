import Foundation
import TestSupportKit
import Testing

@testable import CoreStack

/// `SQLiteConnectionFiles` counts the connections open to a file, so that every connection of one
/// read-only look opens the same way (query-only on a store that had no side files) and SQLite,
/// at the last close, removes the `-wal` and `-shm` they made. A count left too high (a store whose
/// opening failed, a connection GRDB could not close) would make a later look open as the
/// earlier one did, whatever the files beside the store say by then.
@Suite struct SideFileCountTests {
    private static let fixture = "stores/bnr-CoreDataStack/TestModel.sqlite"

    private func names(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    private func bundle() throws -> ManagedObjectModelBundle {
        try XcodeModelReader.readBundle(at: Fixtures.url("models/bnr-CoreDataStack-2015/TestModel.xcdatamodeld"))
    }

    /// Opens the WAL-mode store at `url` read-only, reads every entity, closes it.
    private func readAndClose(_ url: URL) throws {
        let store = try SQLiteStore.open(url: url, bundle: try bundle(), readOnly: true)
        for entity in store.model.entities { _ = try store.fetch(StoreFetchRequest(entity: entity)) }
        store.close()
    }

    @Test("a store whose opening fails after counting its connection (its folder is missing) leaves the count exact: a later read-only store at that path, closed, leaves no -wal or -shm")
    func failedOpenIsUncounted() throws {
        let folder = try TemporaryRoot.folder("side-count").appendingPathComponent("later", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let url = folder.appendingPathComponent("TestModel.sqlite")
        #expect(throws: CoreStackError.self) { _ = try SQLiteStore(url: url, model: try bundle().currentVersion) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Fixtures.url(Self.fixture), to: url)
        try readAndClose(url)
        #expect(try names(folder) == ["TestModel.sqlite"])
    }

    @Test("a close GRDB cannot make (a statement left unfinalised) keeps the connection and its side files; the store's deinit closes it and counts it closed, so the folder ends as found and later stores clean up after themselves")
    func failedCloseIsCountedWhenTheStoreGoes() throws {
        let url = try Fixtures.copyStore(Self.fixture)
        let folder = url.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: folder) }
        let before = try names(folder)
        do {
            let store = try SQLiteStore.open(url: url, bundle: try bundle(), readOnly: true)
            var leaked: AnyObject?
            try store.readStatement { db in leaked = try db.makeStatement(sql: "SELECT count(*) FROM Z_PRIMARYKEY") }
            store.close()
            #expect(store.isClosed)
            #expect(try names(folder) != before, "the connection is still open (SQLite kept it for the statement), and so are its side files")
            leaked = nil
            _ = leaked
        }
        #expect(try names(folder) == before)
        try readAndClose(url)
        #expect(try names(folder) == before)
    }
}
