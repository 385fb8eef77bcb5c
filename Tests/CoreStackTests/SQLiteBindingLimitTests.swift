import Foundation
import GRDB
import GRDBSQLite
import Testing

@testable import CoreStack

/// Strings and blobs SQLite cannot take are refused with a typed error when they are bound: above
/// `Int32.max` bytes (the count `sqlite3_bind_text`/`sqlite3_bind_blob` take; the conversion
/// trapped) or above the connection's length limit (`SQLITE_TOOBIG`, which was ignored: the row
/// was saved without the value).
@Suite struct SQLiteBindingLimitTests {
    @Test("a byte count above Int32.max (2 GiB) throws CoreStackError.sqlite instead of trapping; Int32.max itself is taken")
    func byteCountLimit() throws {
        let queue = try DatabaseQueue()
        try queue.inDatabase { db in
            let statement = try db.makeStatement(sql: "SELECT ?")  // kept: it owns the handle
            let h = statement.sqliteStatement
            #expect(try SQLiteRawBinding.byteCount(5, h) == 5)
            #expect(try SQLiteRawBinding.byteCount(Int(Int32.max), h) == Int32.max)
            #expect(throws: CoreStackError.self) { _ = try SQLiteRawBinding.byteCount(Int(Int32.max) + 1, h) }
            withExtendedLifetime(statement) {}
        }
    }

    @Test("a string or blob longer than the connection's length limit (SQLITE_TOOBIG) throws CoreStackError.sqlite when bound", arguments: [false, true])
    func tooBigForConnection(blob: Bool) throws {
        let queue = try DatabaseQueue()
        try queue.inDatabase { db in
            sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_LENGTH, 100)
            let statement = try db.makeStatement(sql: "SELECT ?")  // kept: it owns the handle
            let h = statement.sqliteStatement
            let small: AttributeValue = blob ? .data(Data(count: 50)) : .string(String(repeating: "x", count: 50))
            let big: AttributeValue = blob ? .data(Data(count: 200)) : .string(String(repeating: "x", count: 200))
            try SQLiteRawBinding.bind(h, 1, small, type: blob ? .binaryData : .string)
            #expect(throws: CoreStackError.self) { try SQLiteRawBinding.bind(h, 1, big, type: blob ? .binaryData : .string) }
            withExtendedLifetime(statement) {}
        }
    }

    @Test("saving a value longer than the store connection's length limit throws, and writes nothing (before, the row was saved with NULL in its place)")
    func saveTooBig() throws {
        let lib = try LibraryStore()
        _ = try lib.insert("Book", ["title": "Dune"])
        lib.store.dbQueue.inDatabase { db in _ = sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_LENGTH, 100) }
        #expect(throws: CoreStackError.self) { _ = try lib.insert("Book", ["title": .string(String(repeating: "x", count: 200))]) }
        let titles = try RawSQLite.run("SELECT ZTITLE AS t FROM ZBOOK", in: lib.url).map { $0["t"] as? String }
        #expect(titles == ["Dune"])
    }
}
