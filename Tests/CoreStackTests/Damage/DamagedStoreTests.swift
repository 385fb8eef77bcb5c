import Foundation
import Testing

@testable import CoreStack

/// Damaged store files give ``CoreStackError/storeCorrupted(path:reason:)`` naming what is wrong,
/// never a crash: values of the wrong type in Core Data's own tables, and pages SQLite finds
/// malformed when a fetch or save reads them. Each file is made and damaged here.
@Suite struct DamagedStoreTests {
    /// One way to put a value of the wrong type in `Z_PRIMARYKEY` or `Z_METADATA`.
    struct WrongValue: CustomTestStringConvertible, Sendable {
        var sql: String
        /// What the error's reason must name (table.column).
        var names: String
        var testDescription: String { sql }
    }

    static let wrongValues: [WrongValue] = [
        WrongValue(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = 'lots' WHERE Z_ENT = 1", names: "Z_PRIMARYKEY.Z_MAX of the row Z_ENT = 1 holds the text \"lots\""),
        WrongValue(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = X'0102' WHERE Z_ENT = 2", names: "Z_PRIMARYKEY.Z_MAX of the row Z_ENT = 2 holds a blob"),
        WrongValue(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = 2.5 WHERE Z_ENT = 2", names: "Z_PRIMARYKEY.Z_MAX of the row Z_ENT = 2 holds the real number 2.5"),
        WrongValue(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = -4 WHERE Z_ENT = 2", names: "Z_PRIMARYKEY.Z_MAX of the row Z_ENT = 2 holds -4"),
        WrongValue(sql: "UPDATE Z_PRIMARYKEY SET Z_SUPER = 'Book' WHERE Z_ENT = 3", names: "Z_PRIMARYKEY.Z_SUPER of the row Z_ENT = 3 holds the text"),
        WrongValue(sql: "UPDATE Z_PRIMARYKEY SET Z_NAME = X'00FF' WHERE Z_ENT = 4", names: "Z_PRIMARYKEY.Z_NAME of the row Z_ENT = 4 holds a blob"),
        WrongValue(sql: "UPDATE Z_PRIMARYKEY SET Z_NAME = NULL WHERE Z_ENT = 5", names: "Z_PRIMARYKEY.Z_NAME of the row Z_ENT = 5 is NULL"),
        WrongValue(sql: "UPDATE Z_METADATA SET Z_UUID = NULL", names: "Z_METADATA.Z_UUID of the row Z_VERSION = 1 is NULL or empty: the store has no UUID"),
        WrongValue(sql: "UPDATE Z_METADATA SET Z_UUID = X'01'", names: "Z_METADATA.Z_UUID of the row Z_VERSION = 1 holds a blob of 1 bytes, not text"),
        WrongValue(sql: "UPDATE Z_METADATA SET Z_PLIST = 42", names: "Z_METADATA.Z_PLIST of the row Z_VERSION = 1 holds the integer 42"),
        WrongValue(sql: "UPDATE Z_METADATA SET Z_PLIST = X'62706C6973743030FFFF'", names: "Z_METADATA.Z_PLIST of the row Z_VERSION = 1 is not a property list"),
    ]

    /// A closed library store with a few rows, as one file (no `-wal`).
    static func makeStore() throws -> URL {
        let url = try Fixtures.temporaryFolder().appendingPathComponent("Library.sqlite")
        do {
            let store = try SQLiteStore(url: url, model: try LibraryStore.model())
            let book = store.model.entity(named: "Book") ?? store.model.entities[0]
            let keys = try store.newPrimaryKeys(for: book, count: 40)
            let inserted = keys.map { pk in
                let id = ManagedObjectID(entity: book, storeIdentifier: store.identifier, primaryKey: pk)
                var values = book.allAttributes.map(\.defaultValue)
                if let slot = book.attributeSlots["title"] { values[slot] = .string("Book \(pk) " + String(repeating: "x", count: 200)) }
                return StoreRowChange(objectID: id, values: values, toOne: Array(repeating: nil, count: book.allRelationships.count), expectedVersion: 0)
            }
            _ = try store.save(StoreSaveRequest(inserted: inserted))
        }
        try StoreDamage.foldWAL(url)
        return url
    }

    @Test("a value of the wrong type in Z_PRIMARYKEY or Z_METADATA is storeCorrupted naming table, column and row; the file is left as it was", arguments: wrongValues)
    func wrongValueInBookkeeping(_ damage: WrongValue) throws {
        let url = try Self.makeStore()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        try StoreDamage.sqlite3(url, damage.sql)
        let before = try Data(contentsOf: url)
        let model = try LibraryStore.model()
        func isNamed(_ error: any Error) -> Bool {
            guard case let CoreStackError.storeCorrupted(path, reason) = error else { return false }
            return path == url.path && reason.contains(damage.names)
        }
        for readOnly in [true, false] {
            #expect(performing: { try SQLiteStore(url: url, model: model, readOnly: readOnly) }, throws: isNamed)
            #expect(performing: {
                try SQLiteStore.open(url: url, bundle: ManagedObjectModelBundle(model: model), readOnly: readOnly)
            }, throws: isNamed)
        }
        #expect(performing: { try SQLiteStore.metadata(at: url) }, throws: isNamed)
        #expect(try Data(contentsOf: url) == before, "the file changed")
        let siblings = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        #expect(siblings == [url.lastPathComponent], "files left behind: \(siblings)")
    }

    @Test("Z_PRIMARYKEY.Z_MAX holding text fails with a message that says where, in the error's description")
    func descriptionSaysWhere() throws {
        let url = try Self.makeStore()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        try StoreDamage.sqlite3(url, "UPDATE Z_PRIMARYKEY SET Z_MAX = 'many' WHERE Z_ENT = 2")
        let error = #expect(throws: CoreStackError.self) { try SQLiteStore.entities(at: url) }
        #expect(error?.description == "the store \(url.path) is damaged: Z_PRIMARYKEY.Z_MAX of the row Z_ENT = 2 holds the text \"many\", not an integer")
    }

    @Test("a data page overwritten after the store opened: the fetch, the faulting read and the save that read it throw storeCorrupted")
    func overwrittenPageSurfacesFromFetchAndSave() throws {
        let url = try Self.makeStore()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        try StoreDamage.overwriteRootPage(of: "ZBOOK", in: url)
        // Opening reads only the schema and Core Data's own tables: it succeeds.
        let store = try SQLiteStore(url: url, model: try LibraryStore.model())
        let book = store.model.entity(named: "Book") ?? store.model.entities[0]
        func isCorrupted(_ error: any Error) -> Bool {
            guard case let CoreStackError.storeCorrupted(path, reason) = error else { return false }
            return path == url.path && !reason.isEmpty
        }
        #expect(performing: { try store.fetch(StoreFetchRequest(entity: book)) }, throws: isCorrupted)
        // (A count may be answered from an index without reading the table's pages: not checked here.)
        #expect(performing: {
            let id = ManagedObjectID(entity: book, storeIdentifier: store.identifier, primaryKey: 1)
            return try store.rows(for: [id])
        }, throws: isCorrupted)
        #expect(performing: {
            let pk = try store.newPrimaryKeys(for: book, count: 1)[0]
            let id = ManagedObjectID(entity: book, storeIdentifier: store.identifier, primaryKey: pk)
            let change = StoreRowChange(
                objectID: id, values: book.allAttributes.map(\.defaultValue),
                toOne: Array(repeating: nil, count: book.allRelationships.count), expectedVersion: 0)
            return try store.save(StoreSaveRequest(inserted: [change]))
        }, throws: isCorrupted)
        // Through a context too.
        let coordinator = PersistentStoreCoordinator(managedObjectModel: store.model)
        try coordinator.addPersistentStore(store)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: "damaged")
        _ = context.performAndWait {
            #expect(performing: { try context.fetch(FetchRequest<ManagedObject>(entityName: "Book")) }, throws: isCorrupted)
        }
    }

    @Test("quickCheck finds an overwritten page, passes a sound store, and leaves the folder as it was")
    func quickCheck() throws {
        let url = try Self.makeStore()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        try SQLiteStore.quickCheck(at: url)
        try StoreDamage.overwriteRootPage(of: "ZBOOK", in: url)
        let before = try Data(contentsOf: url)
        #expect(performing: { try SQLiteStore.quickCheck(at: url) }, throws: { error in
            guard case let CoreStackError.storeCorrupted(path, reason) = error else { return false }
            return path == url.path && reason.hasPrefix("quick_check: ")
        })
        #expect(try Data(contentsOf: url) == before)
        let siblings = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        #expect(siblings == [url.lastPathComponent])
    }
}

/// Damage in an entity table's own keys, and empty files.
@Suite struct DamagedRowTests {
    @Test("a row whose Z_ENT is text or NULL makes the fetch throw storeCorrupted naming the table, instead of a silently short result", arguments: ["'x'", "NULL"])
    func rowWithoutEntityNumber(_ value: String) throws {
        let url = try DamagedStoreTests.makeStore()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        try StoreDamage.sqlite3(url, "UPDATE ZBOOK SET Z_ENT = \(value) WHERE Z_PK = 3")
        let store = try SQLiteStore(url: url, model: try LibraryStore.model())
        let book = store.model.entity(named: "Book") ?? store.model.entities[0]
        #expect(throws: CoreStackError.storeCorrupted(path: url.path, reason: "ZBOOK.Z_ENT of the row Z_PK = 3 is NULL or not an integer")) {
            try store.fetch(StoreFetchRequest(entity: book))
        }
        let id = ManagedObjectID(entity: book, storeIdentifier: store.identifier, primaryKey: 3)
        #expect(throws: CoreStackError.self) { try store.rows(for: [id]) }
    }

    @Test("a row whose Z_OPT is the largest integer (a save would overflow it) makes the fetch throw storeCorrupted")
    func rowVersionAtTheLimit() throws {
        let url = try DamagedStoreTests.makeStore()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        try StoreDamage.sqlite3(url, "UPDATE ZBOOK SET Z_OPT = 9223372036854775807 WHERE Z_PK = 2")
        let store = try SQLiteStore(url: url, model: try LibraryStore.model())
        let book = store.model.entity(named: "Book") ?? store.model.entities[0]
        let reason = "ZBOOK.Z_OPT of the row Z_PK = 2 holds 9223372036854775807, the largest integer: not a version a save can follow"
        #expect(throws: CoreStackError.storeCorrupted(path: url.path, reason: reason)) { try store.fetch(StoreFetchRequest(entity: book)) }
        let id = ManagedObjectID(entity: book, storeIdentifier: store.identifier, primaryKey: 2)
        #expect(throws: CoreStackError.storeCorrupted(path: url.path, reason: reason)) { try store.rows(for: [id]) }
    }

    @Test("an empty file is 'empty, not an SQLite database'")
    func emptyFile() throws {
        let url = try Fixtures.temporaryFolder().appendingPathComponent("empty.sqlite")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        try Data().write(to: url)
        #expect(throws: CoreStackError.notAStore(path: url.path, reason: "the file is empty, not an SQLite database")) {
            try SQLiteStore.metadata(at: url)
        }
        #expect(throws: CoreStackError.notAStore(path: url.path, reason: "the file is empty, not an SQLite database")) {
            try SQLiteStore(url: url, model: try LibraryStore.model())
        }
    }

    @Test("an empty store file beside a -wal (found by the fuzzer: SQLite deleted the -wal as stale) is refused and the -wal kept")
    func emptyFileBesideAWAL() throws {
        let url = try Fixtures.copyStore("stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        try Data().write(to: url)
        let wal = try Data(contentsOf: URL(fileURLWithPath: url.path + "-wal"))
        let reason = "the file is empty, not an SQLite database (a -wal file beside it is left as it is)"
        #expect(throws: CoreStackError.notAStore(path: url.path, reason: reason)) { try SQLiteStore.metadata(at: url) }
        let bundle = try XcodeModelReader.readBundle(at: Fixtures.url("models/wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld"))
        for readOnly in [true, false] {
            #expect(throws: CoreStackError.notAStore(path: url.path, reason: reason)) {
                try SQLiteStore.open(url: url, bundle: bundle, readOnly: readOnly)
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: url.path + "-wal")) == wal)
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path).sorted()
            == [url.lastPathComponent, url.lastPathComponent + "-wal"])
    }
}
