import Foundation
import GRDB
import GRDBSQLite
import Testing

@testable import CoreStack

/// The row decoder's column reads (`SQLiteRawBinding.column`, `int64`, `text(_:_:equals:)`, one
/// `sqlite3_column_value` per column) against GRDB's own reading of the same row: any column of a
/// Core Data file can hold any storage class, and each must read as the attribute's type says.
@Suite struct SQLiteColumnReadingTests {
    /// One column of each storage class, and texts and reals that convert.
    static let select = """
        SELECT NULL, 42, -7, 2.5, 3.0, 'plain text', '17', '4.25', '00112233-4455-6677-8899-AABBCCDDEEFF',
               'https://example.com/a', X'0102FF', X'00112233445566778899AABBCCDDEEFF', '', X'', 9007199254740993, 1e300
        """

    @Test("every storage class in a column reads, for every attribute type, as GRDB's value converted by the codec")
    func everyStorageClassForEveryType() throws {
        let queue = try DatabaseQueue()
        try queue.inDatabase { db in
            let expected = try #require(try Row.fetchOne(db, sql: Self.select))
            let statement = try db.makeStatement(sql: Self.select)
            let h = statement.sqliteStatement
            #expect(sqlite3_step(h) == SQLITE_ROW)
            var compared = 0
            for i in 0..<expected.count {
                let dbValue: DatabaseValue = expected[i]
                for type in AttributeType.allCases {
                    let read = SQLiteRawBinding.column(h, Int32(i), type: type)
                    let viaGRDB = SQLiteValueCodec.value(dbValue, type: type)
                    #expect(read == viaGRDB, "column \(i) (\(dbValue)) as \(type)")
                    compared += 1
                }
            }
            #expect(compared == 16 * AttributeType.allCases.count)
            sqlite3_reset(h)
            withExtendedLifetime(statement) {}
        }
    }

    @Test("int64 reads an integer, a real truncated toward zero, and nil for text, a blob, NULL or a real beyond Int64")
    func integerKeys() throws {
        let queue = try DatabaseQueue()
        try queue.inDatabase { db in
            let statement = try db.makeStatement(sql: "SELECT 42, 3.0, -2.5, '17', X'01', NULL, -9223372036854775808, 1e300")
            let h = statement.sqliteStatement
            #expect(sqlite3_step(h) == SQLITE_ROW)
            #expect(SQLiteRawBinding.int64(h, 0) == 42)
            #expect(SQLiteRawBinding.int64(h, 1) == 3)
            #expect(SQLiteRawBinding.int64(h, 2) == -2)
            #expect(SQLiteRawBinding.int64(h, 3) == nil)
            #expect(SQLiteRawBinding.int64(h, 4) == nil)
            #expect(SQLiteRawBinding.int64(h, 5) == nil)
            #expect(SQLiteRawBinding.int64(h, 6) == Int64.min)
            #expect(SQLiteRawBinding.int64(h, 7) == nil)
            sqlite3_reset(h)
            withExtendedLifetime(statement) {}
        }
    }

    @Test("text(_:_:equals:) compares a text column's bytes, and is false for other storage classes")
    func textEquals() throws {
        let queue = try DatabaseQueue()
        try queue.inDatabase { db in
            let statement = try db.makeStatement(sql: "SELECT 'Dune', '', 17, X'44756E65', NULL")
            let h = statement.sqliteStatement
            #expect(sqlite3_step(h) == SQLITE_ROW)
            #expect(SQLiteRawBinding.text(h, 0, equals: "Dune"))
            #expect(!SQLiteRawBinding.text(h, 0, equals: "Dun"))
            #expect(!SQLiteRawBinding.text(h, 0, equals: "Dunes"))
            #expect(SQLiteRawBinding.text(h, 1, equals: ""))
            #expect(!SQLiteRawBinding.text(h, 2, equals: "17"))
            #expect(!SQLiteRawBinding.text(h, 3, equals: "Dune"))  // the same bytes, as a blob
            #expect(!SQLiteRawBinding.text(h, 4, equals: ""))
            sqlite3_reset(h)
            withExtendedLifetime(statement) {}
        }
    }
}
