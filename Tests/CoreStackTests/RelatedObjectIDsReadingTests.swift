import Foundation
import GRDB
import GRDBSQLite
import Testing

@testable import CoreStack

/// The to-many reads behind prefetching and faulting (`relatedObjectIDs`, `rows(for:)`): keys
/// bound straight onto the statement in queries of 500, destination IDs read from the handle
/// with the store-file checks.
@Suite struct RelatedObjectIDsReadingTests {
    /// A library store with `books` books (in one save), book `i` having `i % 3` chapters, in
    /// the order inserted; and those chapters' IDs per book.
    static func library(books: Int) throws -> (LibraryStore, [ManagedObjectID], [ManagedObjectID: [ManagedObjectID]]) {
        let lib = try LibraryStore()
        let book = lib.entity("Book"), chapter = lib.entity("Chapter")
        let bookKeys = try lib.store.newPrimaryKeys(for: book, count: books)
        let bookIDs = bookKeys.map { ManagedObjectID(entity: book, storeIdentifier: lib.store.identifier, primaryKey: $0) }
        var changes = bookIDs.enumerated().map { i, id in lib.change(id, ["title": .string("Book \(i)")]) }
        var chapters: [ManagedObjectID: [ManagedObjectID]] = [:]
        let count = bookIDs.indices.reduce(0) { $0 + $1 % 3 }
        var keys = try lib.store.newPrimaryKeys(for: chapter, count: count)[...]
        for (i, b) in bookIDs.enumerated() {
            var ids: [ManagedObjectID] = []
            for j in 0..<(i % 3) {
                guard let pk = keys.popFirst() else { break }
                let id = ManagedObjectID(entity: chapter, storeIdentifier: lib.store.identifier, primaryKey: pk)
                changes.append(lib.change(id, ["title": .string("Chapter \(j)")], toOne: ["book": b]))
                ids.append(id)
            }
            chapters[b] = ids
        }
        for (i, b) in bookIDs.enumerated() {
            let slot = book.relationshipSlots["chapters"] ?? 0
            if let ids = chapters[b], !ids.isEmpty {
                changes[i].toMany = [ToManyChange(slot: slot, current: ids, added: ids, removed: [])]
            }
        }
        _ = try lib.store.save(StoreSaveRequest(inserted: changes))
        return (lib, bookIDs, chapters)
    }

    /// Runs `sql` on the store file through a connection of its own.
    static func damage(_ lib: LibraryStore, _ sql: String) throws {
        let queue = try DatabaseQueue(path: lib.url.path)
        try queue.write { try $0.execute(sql: sql) }
        try queue.close()
    }

    @Test("over more owners than one query takes (1,203 books, queries of 500): every book's chapters, in order; a book without any has []")
    func acrossQueries() throws {
        let (lib, books, chapters) = try Self.library(books: 1203)
        let slot = lib.entity("Book").relationshipSlots["chapters"] ?? 0
        let related = try lib.store.relatedObjectIDs(for: books, relationshipSlot: slot)
        #expect(related.count == books.count)
        for b in books { #expect(related[b] == chapters[b], "\(b)") }
        #expect(related.values.reduce(0) { $0 + $1.count } == 1203)  // 401 × (0 + 1 + 2)
        #expect(related[books[0]] == [])
        #expect(related[books[2]]?.count == 2)
        // The rows of those IDs, in queries of 500 too.
        let rows = try lib.store.rows(for: books)
        #expect(Set(rows.map(\.objectID)) == Set(books))
    }

    @Test("owners in runs (read by BETWEEN) and with gaps (read by IN), in any order: each owner's own chapters, none of a book left out")
    func gapsAndRuns() throws {
        let (lib, books, chapters) = try Self.library(books: 200)
        let slot = lib.entity("Book").relationshipSlots["chapters"] ?? 0
        // Runs of 40 and 30 (BETWEEN), one of 10 (shorter than a range run: IN), and lone
        // books with gaps between; given out of order.
        let picked = Array(books[100..<130]) + [books[50], books[52], books[54]] + Array(books[0..<40])
            + Array(books[60..<70]) + [books[199], books[41]]
        let related = try lib.store.relatedObjectIDs(for: Array(picked.reversed()), relationshipSlot: slot)
        #expect(Set(related.keys) == Set(picked))
        for b in picked { #expect(related[b] == chapters[b], "\(b)") }
        #expect(related[books[40]] == nil)
        #expect(related[books[101]]?.count == 2)
        #expect(related.values.reduce(0) { $0 + $1.count } == picked.reduce(0) { $0 + (chapters[$1]?.count ?? 0) })
        let split = SQLiteStore.keyRuns([1, 2, 3, 7, 9, 10, Int64.max - 1, Int64.max], minimumRun: 2)
        #expect(split.ranges == [1...3, 9...10, (Int64.max - 1)...Int64.max])
        #expect(split.loose == [7])
        #expect(SQLiteStore.keyRuns([4, 5, 6], minimumRun: 16).ranges.isEmpty)
        #expect(SQLiteStore.keyRuns([4, 5, 6], minimumRun: 16).loose == [4, 5, 6])
        #expect(SQLiteStore.keyRuns([], minimumRun: 16).loose.isEmpty)
    }

    @Test("a destination row whose Z_ENT is NULL reads as the relationship's destination entity; text there is a storeCorrupted naming the row")
    func damagedEntityNumbers() throws {
        let (lib, books, chapters) = try Self.library(books: 6)
        let slot = lib.entity("Book").relationshipSlots["chapters"] ?? 0
        let victim = try #require(chapters[books[2]]?.first?.primaryKey)
        try Self.damage(lib, "UPDATE ZCHAPTER SET Z_ENT = NULL WHERE Z_PK = \(victim)")
        let related = try lib.store.relatedObjectIDs(for: books, relationshipSlot: slot)
        #expect(related[books[2]] == chapters[books[2]])
        #expect(related[books[2]]?.first?.entity.name == "Chapter")
        try Self.damage(lib, "UPDATE ZCHAPTER SET Z_ENT = 'four' WHERE Z_PK = \(victim)")
        do {
            _ = try lib.store.relatedObjectIDs(for: books, relationshipSlot: slot)
            Issue.record("a text Z_ENT was read")
        } catch let CoreStackError.storeCorrupted(path, reason) {
            #expect(path == lib.store.path)
            #expect(reason.contains("ZCHAPTER.Z_ENT of the row Z_PK = \(victim) holds the text \"four\""), "\(reason)")
        }
    }

    @Test("keys bound straight onto a statement must match its parameters: a mismatch throws instead of reading with stale bindings")
    func keyCountChecked() throws {
        let queue = try DatabaseQueue()
        try queue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE t (k INTEGER PRIMARY KEY); INSERT INTO t VALUES (1), (2), (3)")
            let statement = try db.makeStatement(sql: "SELECT k FROM t WHERE k IN (\(SQLiteRawBinding.placeholders(2))) ORDER BY k")
            var seen: [Int64] = []
            try SQLiteRawBinding.forEachRow(statement, keys: [3, 1], in: db) { h in seen.append(sqlite3_column_int64(h, 0)) }
            #expect(seen == [1, 3])
            #expect(throws: CoreStackError.self) { try SQLiteRawBinding.forEachRow(statement, keys: [1, 2, 3], in: db) { _ in } }
            #expect(SQLiteRawBinding.placeholders(1) == "?")
            #expect(SQLiteRawBinding.placeholders(3) == "?, ?, ?")
        }
    }

    @Test("StoreFileDecoder reads an integer from a statement handle as it does from a GRDB row: the same value or the same error, for every storage class")
    func handleAndRowAgree() throws {
        let queue = try DatabaseQueue()
        try queue.inDatabase { db in
            let sql = "SELECT 7, NULL, 3.0, 2.5, 'seven', X'0102', 1e300, -9223372036854775808"
            let row = try #require(try Row.fetchOne(db, sql: sql))
            let statement = try db.makeStatement(sql: sql)
            let h = statement.sqliteStatement
            #expect(sqlite3_step(h) == SQLITE_ROW)
            let decoder = StoreFileDecoder(path: "/x.sqlite", table: "T")
            for i in 0..<(row.count + 1) {  // one past the end: "is missing" from both
                let fromRow = Result { try decoder.integer(row, i, column: "C", row: "Z_PK = 1") }
                let fromHandle = Result { try decoder.integer(h, Int32(i), column: "C", row: "Z_PK = 1") }
                switch (fromRow, fromHandle) {
                case let (.success(a), .success(b)): #expect(a == b, "column \(i)")
                case let (.failure(a), .failure(b)): #expect("\(a)" == "\(b)", "column \(i)")
                default: Issue.record("column \(i): \(fromRow) from the row, \(fromHandle) from the handle")
                }
            }
            sqlite3_reset(h)
            withExtendedLifetime(statement) {}
        }
    }
}
