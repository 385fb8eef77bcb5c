import Foundation
import GRDB
import GRDBSQLite
import Testing

@testable import CoreStack

/// Strings and blobs handed to GRDB's statements (predicate arguments, history strings, …) are
/// checked against the connection's length limit before GRDB binds them, and a batch update binds
/// its values as a save does: GRDB's `Statement.setArguments` calls `fatalError` when a
/// `sqlite3_bind_*` call fails (`SQLITE_TOOBIG`), so each of these (but the batch insert, written
/// as a save) stopped the test process before. Each test lowers the store connection's
/// `SQLITE_LIMIT_LENGTH` (to 100 bytes, as `SQLiteBindingLimitTests` does) and expects
/// ``CoreStackError/sqlite(path:message:)``, the store unchanged and still usable.
@Suite struct GRDBArgumentLimitTests {
    static let big = String(repeating: "x", count: 200)

    /// A stack on a new SQLite library store whose connection's length limit is lowered.
    static func limitedStack() throws -> (TestStack, URL) {
        let url = try Fixtures.temporaryFolder().appendingPathComponent("Library.sqlite")
        var opened: SQLiteStore?
        let stack = try TestStack(model: try LibraryStore.model()) { model in
            let s = try SQLiteStore(url: url, model: model)
            opened = s
            return s
        }
        lowerLimit(try #require(opened))
        return (stack, url)
    }

    /// Lowers the length limit of the store's connection to `limit` bytes (100 by default).
    static func lowerLimit(_ store: SQLiteStore, to limit: Int32 = 100) {
        store.dbQueue.inDatabase { db in _ = sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_LENGTH, limit) }
    }

    /// Whether `error` is the typed error a value of `bytes` bytes (200 by default), too long to bind, gets.
    static func isTooBig(_ error: any Error, bytes: Int) -> Bool {
        guard case let .sqlite(_, message)? = error as? CoreStackError else { return false }
        return message.contains("cannot bind a value of \(bytes) bytes")
    }

    static func isTooBig(_ error: any Error) -> Bool { isTooBig(error, bytes: 200) }

    /// A library store holding the book "Dune", its connection limited to 100 bytes.
    static func limitedLibrary() throws -> LibraryStore {
        let lib = try LibraryStore()
        _ = try lib.insert("Book", ["title": "Dune", "pages": 412])
        lowerLimit(lib.store)
        return lib
    }

    static func titles(_ lib: LibraryStore) throws -> [String] {
        try RawSQLite.run("SELECT ZTITLE AS t FROM ZBOOK ORDER BY Z_PK", in: lib.url).compactMap { $0["t"] as? String }
    }

    @Test("a fetch, count or object-ID fetch whose predicate holds a string longer than the limit throws instead of stopping the process")
    func fetchPredicate() throws {
        let lib = try Self.limitedLibrary()
        let book = lib.entity("Book")
        let request = StoreFetchRequest(entity: book, predicate: .key("title") == .string(Self.big))
        #expect(performing: { _ = try lib.store.fetch(request) }, throws: Self.isTooBig)
        #expect(performing: { _ = try lib.store.count(request) }, throws: Self.isTooBig)
        #expect(performing: { _ = try lib.store.fetchObjectIDs(request) }, throws: Self.isTooBig)
        // A blob argument too.
        let blob = StoreFetchRequest(entity: book, predicate: .key("blurb") == .data(Data(count: 200)))
        #expect(performing: { _ = try lib.store.fetch(blob) }, throws: Self.isTooBig)
        // The store still answers.
        #expect(try lib.titles("Book", .key("title") == "Dune") == ["Dune"])
    }

    @Test("a batch update whose value is longer than the limit throws and changes no row; a short one then works")
    func batchUpdateValue() throws {
        let lib = try Self.limitedLibrary()
        let book = lib.entity("Book")
        let title = try #require(book.attributeSlots["title"])
        let all = StoreFetchRequest(entity: book)
        #expect(performing: { _ = try lib.store.executeBatchUpdate(all, values: [title: .string(Self.big)]) }, throws: Self.isTooBig)
        #expect(try Self.titles(lib) == ["Dune"])
        #expect(try RawSQLite.scalar("SELECT Z_OPT FROM ZBOOK", in: lib.url) == 1)
        // A predicate too long for the limit, on a batch update and a batch delete.
        let long = StoreFetchRequest(entity: book, predicate: .key("title") != .string(Self.big))
        #expect(performing: { _ = try lib.store.executeBatchUpdate(long, values: [title: "Emma"]) }, throws: Self.isTooBig)
        #expect(performing: { _ = try lib.store.executeBatchDelete(matching: long, objectIDs: []) }, throws: Self.isTooBig)
        #expect(try Self.titles(lib) == ["Dune"])
        _ = try lib.store.executeBatchUpdate(all, values: [title: "Emma"])
        #expect(try Self.titles(lib) == ["Emma"])
    }

    @Test("a batch insert of a value longer than the limit throws and inserts nothing (it is written as a save is)")
    func batchInsertValue() throws {
        let (stack, url) = try Self.limitedStack()
        try stack.context.performAndWait {
            let request = BatchInsertRequest(entityName: "Book", objects: [["title": "Dune"], ["title": .string(Self.big)]])
            #expect(performing: { _ = try stack.context.execute(request) }, throws: Self.isTooBig)
            _ = try stack.context.execute(BatchInsertRequest(entityName: "Book", objects: [["title": "Emma"]]))
        }
        let titles = try RawSQLite.run("SELECT ZTITLE AS t FROM ZBOOK", in: url).compactMap { $0["t"] as? String }
        #expect(titles == ["Emma"])
    }

    @Test("a save whose uniqueness-constraint look-up holds a value longer than the limit throws and saves nothing")
    func constraintLookUp() throws {
        let (stack, url) = try Self.limitedStack()
        try stack.context.performAndWait {
            let author = try stack.context.insertObject(forEntityName: "Author")
            try author.setValue(Self.big, forKey: "name")
            #expect(performing: { try stack.context.save() }, throws: Self.isTooBig)
            try author.setValue("Herbert", forKey: "name")
            try stack.context.save()
        }
        let names = try RawSQLite.run("SELECT ZNAME AS n FROM ZAUTHOR", in: url).compactMap { $0["n"] as? String }
        #expect(names == ["Herbert"])
    }

    /// A history-tracking store with one saved note, its connection limited to 2,000 bytes (100
    /// would refuse the history tables' own rows: a row is a value too), and a 3,000-byte string.
    static func limitedHistory() throws -> (HistoryStack, String) {
        let stack = try HistoryStack(url: try HistoryStack.newURL(), model: try NoteModel.make())
        try stack.insertNotes(["first"])
        lowerLimit(stack.store, to: 2_000)
        return (stack, String(repeating: "x", count: 3_000))
    }

    @Test("a save with a transaction author longer than the limit (history on) throws and records nothing; the next save is recorded")
    func historyAuthor() throws {
        let (stack, big) = try Self.limitedHistory()
        #expect(performing: { try stack.insertNotes(["second"], author: big) }, throws: { Self.isTooBig($0, bytes: 3_000) })
        stack.context.performAndWait { stack.context.rollback() }
        #expect(try RawSQLite.scalar("SELECT COUNT(*) FROM ZNOTE", in: stack.url) == 1)
        #expect(try RawSQLite.scalar("SELECT COUNT(*) FROM ATRANSACTION", in: stack.url) == 1)
        try stack.insertNotes(["third"], author: "importer")
        #expect(try stack.history().compactMap(\.author) == ["importer"])
        #expect(try stack.noteTexts() == ["first", "third"])
    }

    @Test("a history fetch by an author longer than the limit throws; the history still reads")
    func historyFetchAuthor() throws {
        let (stack, big) = try Self.limitedHistory()
        #expect(performing: {
            _ = try stack.coordinator.execute(PersistentHistoryChangeRequest(kind: .fetchAfterToken(nil), author: big))
        }, throws: { Self.isTooBig($0, bytes: 3_000) })
        #expect(try stack.history().count == 1)
    }

    @Test("the check takes a value at the limit and refuses one byte more, counting a string's UTF-8 bytes")
    func checkBoundaries() throws {
        let queue = try DatabaseQueue()
        try queue.inDatabase { db in
            sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_LENGTH, 100)
            try SQLiteRawBinding.checkLengths([.null, 5.databaseValue, String(repeating: "é", count: 50).databaseValue], in: db)
            try SQLiteRawBinding.checkLengths([Data(count: 100).databaseValue], in: db)
            #expect(throws: CoreStackError.self) { try SQLiteRawBinding.checkLengths([Data(count: 101).databaseValue], in: db) }
            // 51 × "é" is 102 UTF-8 bytes.
            #expect(throws: CoreStackError.self) { try SQLiteRawBinding.checkLengths([String(repeating: "é", count: 51).databaseValue], in: db) }
            // A value at the limit binds through GRDB.
            _ = try Row.fetchAll(db, sql: "SELECT ?", arguments: SQLiteRawBinding.arguments([Data(count: 100).databaseValue], in: db))
        }
    }
}
