import Foundation
import Testing

@testable import CoreStack

/// Reading a store read-only leaves its folder as it was found, by SQLite's own means
/// (``SQLiteReadAccess``): a store with no side files is read through a connection that refuses
/// writes, so SQLite removes the `-wal` and `-shm` it makes at the last close of any process; a
/// store with a `-wal` and no `-shm` is read from a private snapshot copy. CoreStack itself never
/// removes a side file.
@Suite struct ReadOnlySideFilesTests {
    private func names(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    @Test("a read-only store of a WAL-mode file, with and without a -wal, leaves no -wal or -shm behind when released", arguments: [
        "wibosco-CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite", "bnr-CoreDataStack/TestModel.sqlite",
    ])
    func readOnlyStoreLeavesTheFolderAsFound(_ fixture: String) throws {
        let url = try Fixtures.copyStore("stores/" + fixture)
        let folder = url.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: folder) }
        let before = try names(folder)
        let bundle = try XcodeModelReader.readBundle(at: Fixtures.url(
            fixture.hasPrefix("bnr") ? "models/bnr-CoreDataStack-2015/TestModel.xcdatamodeld"
                : "models/wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld"))
        do {
            let store = try SQLiteStore.open(url: url, bundle: bundle, readOnly: true)
            for entity in store.model.entities { _ = try store.fetch(StoreFetchRequest(entity: entity)) }
            if before.contains(url.lastPathComponent + "-wal") {
                // A -wal with commits and no -shm: read from a copy, nothing made beside the store.
                guard case let .snapshot(copy) = store.readAccess else {
                    Issue.record("expected a snapshot, got \(store.readAccess)")
                    return
                }
                #expect(FileManager.default.fileExists(atPath: copy))
                #expect(try names(folder) == before, "nothing is made beside the store")
                #expect(!store.model.entities.isEmpty)
            } else {
                #expect(store.readAccess == .queryOnly)
                #expect(try names(folder).contains(url.lastPathComponent + "-shm"), "SQLite made a -shm while reading")
            }
        }
        #expect(try names(folder) == before)
    }

    @Test("a -shm another process still uses (its connection holds the lock) stays when a read-only store that created it goes away")
    func sideFilesAnotherProcessUsesStay() throws {
        let url = try Fixtures.copyStore("stores/bnr-CoreDataStack/TestModel.sqlite")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let shm = url.path + "-shm"
        #expect(!FileManager.default.fileExists(atPath: shm))
        let bundle = try XcodeModelReader.readBundle(at: Fixtures.url("models/bnr-CoreDataStack-2015/TestModel.xcdatamodeld"))
        let other = Process()
        other.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        other.arguments = [url.path]
        let input = Pipe(), output = Pipe()
        other.standardInput = input
        other.standardOutput = output
        do {
            let store = try SQLiteStore.open(url: url, bundle: bundle, readOnly: true)
            _ = try store.storeEntities()
            #expect(store.readAccess == .queryOnly)
            #expect(FileManager.default.fileExists(atPath: shm))
            // The other process's connection, open on the same -shm until its input closes.
            try other.run()
            input.fileHandleForWriting.write(Data("SELECT count(*) FROM Z_PRIMARYKEY;\n".utf8))
            _ = output.fileHandleForReading.availableData
        }
        #expect(FileManager.default.fileExists(atPath: shm), "the -shm in use by the other process was removed")
        try input.fileHandleForWriting.close()
        other.waitUntilExit()
    }

    @Test("while a writing store of the same file is open, a read-only store leaves its -wal and -shm alone")
    func sideFilesInUseStay() throws {
        let lib = try LibraryStore()
        _ = try lib.insert("Author", ["name": "Le Guin"])
        do {
            let reader = try SQLiteStore(url: lib.url, model: lib.model, readOnly: true)
            #expect(try reader.count(StoreFetchRequest(entity: lib.entity("Author"))) == 1)
        }
        #expect(FileManager.default.fileExists(atPath: lib.url.path + "-shm"))
        #expect(FileManager.default.fileExists(atPath: lib.url.path + "-wal"))
        _ = try lib.insert("Author", ["name": "Butler"])
        #expect(try lib.store.count(StoreFetchRequest(entity: lib.entity("Author"))) == 2)
    }
}
