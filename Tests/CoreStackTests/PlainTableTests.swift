import Foundation
import Testing

@testable import CoreStack

/// Tables no model explains, read as plain rows (SQLitePlainTable), on real SQLite files made by
/// CoreStack with extra tables written by sqlite3.
@Suite("plain tables")
struct PlainTableTests {
    /// A store of the Photo model with two tables no model explains: NOTES (rowid) and TAGS (WITHOUT ROWID).
    static func makeStore() throws -> URL {
        let url = try Fixtures.temporaryFolder().appendingPathComponent("Notes.sqlite")
        _ = try SQLiteStore(url: url, model: try ExternalBinaryDataTests.model())
        try SchemaInferenceRelationshipTests.sqlite(url, """
            CREATE TABLE NOTES (ID INTEGER PRIMARY KEY, TITLE TEXT, SCORE REAL, BODY BLOB);
            INSERT INTO NOTES VALUES (1, 'first draft', 2.5, X'DEADBEEF'), (2, 'Second', 1.0, NULL),
              (3, 'third DRAFT', NULL, randomblob(10000)), (4, 'zeta', 9, X'');
            CREATE TABLE TAGS (K TEXT PRIMARY KEY, V BLOB) WITHOUT ROWID;
            INSERT INTO TAGS VALUES ('b', X'0102'), ('a', X'03');
            """)
        return url
    }

    static func open(_ url: URL) throws -> SQLiteStore {
        try SQLiteStore(url: url, model: try ExternalBinaryDataTests.model(), readOnly: true)
    }

    @Test("the schema report lists both tables; a plain table has the columns and rows sqlite3 wrote, in rowid order")
    func columnsAndRows() throws {
        let store = try Self.open(try Self.makeStore())
        #expect(try store.schemaReport().unexplainedTables == ["NOTES", "TAGS"])
        let notes = try store.plainTable(named: "NOTES")
        #expect(notes.columns == [.init(name: "ID", declaredType: "INTEGER"), .init(name: "TITLE", declaredType: "TEXT"),
                                  .init(name: "SCORE", declaredType: "REAL"), .init(name: "BODY", declaredType: "BLOB")])
        #expect(notes.hasRowID)
        #expect(try notes.count() == 4)
        let rows = try notes.rows(offset: 0, limit: 10)
        #expect(rows.map(\.rowID) == [1, 2, 3, 4])
        #expect(rows[0].values == [.integer(1), .text("first draft", length: 11), .real(2.5), .blob(prefix: Data([0xDE, 0xAD, 0xBE, 0xEF]), count: 4)])
        #expect(rows[1].values[3] == .null)
        // A blob larger than the prefix brings its first bytes and its size.
        guard case let .blob(prefix, count) = rows[2].values[3] else { Issue.record("not a blob"); return }
        #expect(prefix.count == SQLitePlainTable.blobPrefix && count == 10000)
        #expect(rows[3].values[3] == .blob(prefix: Data(), count: 0))
    }

    @Test("sorting by a column, both ways; a filter keeps rows containing a text in any or one column, ignoring case")
    func sortAndFilter() throws {
        let notes = try Self.open(try Self.makeStore()).plainTable(named: "NOTES")
        let byTitle = try notes.rows(SQLitePlainTableQuery(sort: [.init(column: "TITLE", ascending: false)]), offset: 0, limit: 10)
        #expect(byTitle.map(\.rowID) == [4, 3, 1, 2])
        let byScore = try notes.rows(SQLitePlainTableQuery(sort: [.init(column: "SCORE")]), offset: 1, limit: 2)
        #expect(byScore.map(\.rowID) == [2, 1])  // NULL first, then 1.0, 2.5, 9
        let drafts = SQLitePlainTableQuery(filter: .init(column: nil, contains: "draft"))
        #expect(try notes.count(drafts) == 2)
        #expect(try notes.rows(drafts, offset: 0, limit: 10).map(\.rowID) == [1, 3])
        #expect(try notes.count(SQLitePlainTableQuery(filter: .init(column: "SCORE", contains: "2.5"))) == 1)
        #expect(try notes.count(SQLitePlainTableQuery(filter: .init(column: "TITLE", contains: "2.5"))) == 0)
        #expect(throws: CoreStackError.unknownKey(entity: "NOTES", key: "NOPE")) {
            try notes.rows(SQLitePlainTableQuery(sort: [.init(column: "NOPE")]), offset: 0, limit: 1)
        }
    }

    @Test("paging by rowid gives every row once, in order; a table WITHOUT ROWID is read by offset, its blobs inline")
    func paging() throws {
        let store = try Self.open(try Self.makeStore())
        let notes = try store.plainTable(named: "NOTES")
        var seen: [Int64] = []
        var page = try notes.rows(afterRowID: nil, limit: 3)
        while let last = page.last?.rowID {
            seen += page.compactMap(\.rowID)
            page = try notes.rows(afterRowID: last, limit: 3)
        }
        #expect(seen == [1, 2, 3, 4])
        #expect(try notes.rows(afterRowID: 1, limit: 5, filter: .init(column: nil, contains: "draft")).map(\.rowID) == [3])
        let tags = try store.plainTable(named: "TAGS")
        #expect(!tags.hasRowID)
        let rows = try tags.rows(SQLitePlainTableQuery(sort: [.init(column: "K")]), offset: 0, limit: 5)
        #expect(rows.map(\.values) == [[.text("a", length: 1), .blob(prefix: Data([3]), count: 1)], [.text("b", length: 1), .blob(prefix: Data([1, 2]), count: 2)]])
        #expect(throws: CoreStackError.self) { try tags.rows(afterRowID: nil, limit: 1) }
    }

    @Test("a cell's value is read in ranges through blob I/O and matches what SQLite holds; NULL is nil; a gone row is an error")
    func storedValue() throws {
        let url = try Self.makeStore()
        let store = try Self.open(url)
        let notes = try store.plainTable(named: "NOTES")
        let value = try #require(try notes.storedValue(column: "BODY", rowID: 3))
        #expect(value.count == 10000)
        #expect(value.location == .column(table: "NOTES", column: "BODY", rowID: 3))
        let whole = try #require(try Data.fetchOne(store, "SELECT BODY FROM NOTES WHERE ID = 3"))
        #expect(try value.bytes.bytes(in: 0..<10000) == whole)
        #expect(try value.bytes.bytes(in: 4090..<4110) == whole.subdata(in: 4090..<4110))
        #expect(try value.bytes.bytes(in: 9990..<20000) == whole.subdata(in: 9990..<10000))
        var streamed = Data()
        try value.bytes.forEachChunk(size: 999) { streamed.append($0) }
        #expect(streamed == whole)
        #expect(try notes.storedValue(column: "BODY", rowID: 2) == nil)
        #expect(try notes.storedValue(column: "TITLE", rowID: 2)?.bytes.bytes(in: 0..<100) == Data("Second".utf8))
        #expect(try notes.storedValue(column: "SCORE", rowID: 1)?.bytes.bytes(in: 0..<100) == Data("2.5".utf8))
        #expect(throws: CoreStackError.self) { try notes.storedValue(column: "BODY", rowID: 99) }
    }
}

extension Data {
    /// One blob read whole with SQL, to compare with what blob I/O reads.
    static func fetchOne(_ store: SQLiteStore, _ sql: String) throws -> Data? {
        try store.read { db in try Data.fetchOne(db, sql: sql) }
    }
}
