import Foundation
import Testing

@testable import CoreStack

/// Files that are not stores are refused and left byte-for-byte untouched; read-only stores
/// neither change their file nor accept writes.
@Suite struct SQLiteStoreFileSafetyTests {
    private func sha(_ url: URL) throws -> Data {
        SHA256Digest.hash(try Data(contentsOf: url))
    }

    private func expectNotAStore(_ url: URL, model: ManagedObjectModel, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = try sha(url)
        for readOnly in [true, false] {
            #expect(sourceLocation: sourceLocation) {
                try SQLiteStore(url: url, model: model, readOnly: readOnly)
            } throws: { error in
                switch error {
                case let CoreStackError.notAStore(path, _), let CoreStackError.storeCorrupted(path, _): return path == url.path
                default: return false
                }
            }
            #expect(throws: CoreStackError.self, sourceLocation: sourceLocation) {
                try SQLiteStore.open(url: url, bundle: ManagedObjectModelBundle(model: model), readOnly: readOnly)
            }
        }
        #expect(throws: CoreStackError.self, sourceLocation: sourceLocation) { try SQLiteStore.metadata(at: url) }
        #expect(try sha(url) == before, "the file changed", sourceLocation: sourceLocation)
        let siblings = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        #expect(siblings == [url.lastPathComponent], "extra files: \(siblings)", sourceLocation: sourceLocation)
    }

    @Test func textFileIsNotAStore() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("notes.sqlite")
        try Data(String(repeating: "This is not a database.\n", count: 300).utf8).write(to: url)
        try expectNotAStore(url, model: try LibraryStore.model())
    }

    @Test func emptyFileIsNotAStore() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("empty.sqlite")
        try Data().write(to: url)
        try expectNotAStore(url, model: try LibraryStore.model())
    }

    @Test func sqliteDatabaseWithoutCoreDataTablesIsNotAStore() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("app.sqlite")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        p.arguments = [url.path, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('hi');"]
        try p.run()
        p.waitUntilExit()
        try expectNotAStore(url, model: try LibraryStore.model())
    }

    @Test func corruptStoreIsNotAStore() throws {
        let url = try Fixtures.copyStore("stores/alemar11-CoreDataPlus/SampleModel_V1.sqlite")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        // Overwrite every page after the first (sqlite_master stays readable on page 1 only if it fits:
        // garbage from page 2 on makes SQLite report corruption).
        var bytes = [UInt8](try Data(contentsOf: url))
        for i in 4096..<bytes.count { bytes[i] = UInt8(truncatingIfNeeded: i &* 31 &+ 7) }
        try Data(bytes).write(to: url)
        let bundle = try XcodeModelReader.readBundle(at: Fixtures.url("models/alemar11-CoreDataPlus/SampleModel.xcdatamodeld"))
        try expectNotAStore(url, model: bundle.currentVersion)
        // A truncated header is refused too.
        try Data(bytes.prefix(50)).write(to: url)
        try expectNotAStore(url, model: bundle.currentVersion)
    }

    @Test func readOnlyStoreRefusesWritesAndKeepsTheFile() throws {
        let lib = try LibraryStore()
        let id = try lib.insert("Book", ["title": "Dune"])
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Copy the store after a checkpoint so the copy is a single file.
        let source = lib.url
        try lib.store.dbQueue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        let url = folder.appendingPathComponent("copy.sqlite")
        try FileManager.default.copyItem(at: source, to: url)
        let before = try sha(url)
        do {
            let store = try SQLiteStore(url: url, model: try LibraryStore.model(), readOnly: true)
            #expect(store.isReadOnly)
            let book = try store.model.requireEntity("Book")
            #expect(try store.count(StoreFetchRequest(entity: book)) == 1)
            #expect(throws: CoreStackError.readOnlyStore(url.path)) { try store.newPrimaryKeys(for: book, count: 1) }
            let row = try #require(try store.rows(for: [ManagedObjectID(entity: book, storeIdentifier: store.identifier, primaryKey: id.primaryKey ?? 0)]).first)
            #expect(throws: CoreStackError.readOnlyStore(url.path)) {
                try store.save(StoreSaveRequest(deleted: [StoreRowDeletion(objectID: row.objectID, expectedVersion: 1)]))
            }
        }
        #expect(try sha(url) == before)
        #expect(throws: CoreStackError.notAStore(path: folder.appendingPathComponent("missing.sqlite").path, reason: "the file does not exist")) {
            try SQLiteStore(url: folder.appendingPathComponent("missing.sqlite"), model: try LibraryStore.model(), readOnly: true)
        }
    }

    @Test func appleFixturesOpenedReadOnlyStayUnchanged() throws {
        let cases = [
            ("stores/bnr-CoreDataStack/TestModel.sqlite", "models/bnr-CoreDataStack-2015/TestModel.xcdatamodeld"),
            ("stores/apple-iPhoneCoreDataRecipes-2018/Recipes.sqlite", "models/apple-iPhoneCoreDataRecipes-2018/Recipes.xcdatamodeld"),
            ("stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite", "models/wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld"),
        ]
        for (store, model) in cases {
            let url = try Fixtures.copyStore(store)
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            let before = try sha(url)
            let bundle = try XcodeModelReader.readBundle(at: Fixtures.url(model))
            do {
                let s = try SQLiteStore.open(url: url, bundle: bundle, readOnly: true)
                for e in s.model.entities { _ = try s.fetch(StoreFetchRequest(entity: e)) }
            }
            #expect(try sha(url) == before, "\(store) changed")
        }
    }

    @Test("a batch delete that meets a destination row whose Z_ENT holds text (a damaged or foreign file) throws storeCorrupted naming the column, instead of trapping")
    func batchDeleteOverTextEntityColumn() throws {
        let library = try LibraryStore()
        let publisher = try library.insert("Publisher", ["name": .string("Pub")])
        try library.insert("Book", ["title": .string("Odd")], toOne: ["publisher": publisher])
        library.store.close()
        try StoreDamage.sqlite3(library.url, "UPDATE ZBOOK SET Z_ENT = 'x';")
        let store = try SQLiteStore(url: library.url, model: library.model)
        do {
            _ = try store.executeBatchDelete(matching: nil, objectIDs: [publisher])
            Issue.record("the batch delete went through")
        } catch let CoreStackError.storeCorrupted(path, reason) {
            #expect(path == library.url.path)
            #expect(reason.contains("Z_ENT"), "\(reason)")
        }
    }
}
