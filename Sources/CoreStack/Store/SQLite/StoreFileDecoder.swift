import Foundation
import GRDB
import GRDBSQLite

/// Reads values of a store file's own tables (`Z_PRIMARYKEY`, `Z_METADATA`, …) with checks.
///
/// A file can hold anything: a damaged page, another program's writes, a hostile file. GRDB's
/// typed row subscripts (`row[0] as Int64?`) trap on a value of another type, so every value
/// read from a file for bookkeeping goes through here instead: a value of the wrong type is a
/// ``CoreStackError/storeCorrupted(path:reason:)`` naming the table, the column and the row.
///
/// ```swift
/// let decoder = StoreFileDecoder(path: path, table: "Z_PRIMARYKEY")
/// let max = try decoder.integer(row, 3, column: "Z_MAX", row: "Z_ENT = 2") ?? 0
/// ```
struct StoreFileDecoder {
    /// The store file (for the error).
    let path: String
    /// The table the rows come from (for the error).
    let table: String

    /// Column `index` of `row` as an integer; nil for NULL. A REAL holding a whole number counts
    /// (SQLite's own conversions can leave one); text, blobs and fractions do not.
    func integer(_ row: Row, _ index: Int, column: String, row rowLabel: @autoclosure () -> String) throws -> Int64? {
        try integer(try databaseValue(row, index, column: column, row: rowLabel()), column: column, row: rowLabel())
    }

    /// Column `index` of the statement's current row as an integer, with ``integer(_:_:column:row:)``'s
    /// checks, read straight from the handle (for loops over many rows: no `Row` is made; an
    /// integer, the usual case, is read without making a `DatabaseValue`).
    func integer(_ h: SQLiteStatement, _ index: Int32, column: String, row rowLabel: @autoclosure () -> String) throws -> Int64? {
        guard index >= 0, index < sqlite3_column_count(h) else {
            throw corrupted(column, rowLabel(), "is missing (the row has \(sqlite3_column_count(h)) columns)")
        }
        if let v = sqlite3_column_value(h, index), sqlite3_value_type(v) == SQLITE_INTEGER { return sqlite3_value_int64(v) }
        return try integer(DatabaseValue(sqliteStatement: h, index: index), column: column, row: rowLabel())
    }

    /// `value` as an integer: see ``integer(_:_:column:row:)``.
    private func integer(_ value: DatabaseValue, column: String, row rowLabel: @autoclosure () -> String) throws -> Int64? {
        switch value.storage {
        case .null: return nil
        case let .int64(i): return i
        case let .double(d):
            if d.isFinite, d == d.rounded(.towardZero), let i = Int64(exactly: d) { return i }
            throw corrupted(column, rowLabel(), "holds the real number \(d), not an integer")
        case let .string(s): throw corrupted(column, rowLabel(), "holds the text \(Self.quote(s)), not an integer")
        case let .blob(d): throw corrupted(column, rowLabel(), "holds a blob of \(d.count) bytes, not an integer")
        }
    }

    /// Column `index` of `row` as an integer that must be present and fit an `Int`.
    func requiredInteger(_ row: Row, _ index: Int, column: String, row rowLabel: @autoclosure () -> String) throws -> Int {
        guard let value = try integer(row, index, column: column, row: rowLabel()) else {
            throw corrupted(column, rowLabel(), "is NULL")
        }
        guard let int = Int(exactly: value) else { throw corrupted(column, rowLabel(), "holds \(value), out of range") }
        return int
    }

    /// Column `index` of `row` as text; nil for NULL. Blobs and numbers are refused.
    func text(_ row: Row, _ index: Int, column: String, row rowLabel: @autoclosure () -> String) throws -> String? {
        let value = try databaseValue(row, index, column: column, row: rowLabel())
        switch value.storage {
        case .null: return nil
        case let .string(s): return s
        case let .int64(i): throw corrupted(column, rowLabel(), "holds the integer \(i), not text")
        case let .double(d): throw corrupted(column, rowLabel(), "holds the real number \(d), not text")
        case let .blob(d): throw corrupted(column, rowLabel(), "holds a blob of \(d.count) bytes, not text")
        }
    }

    /// Column `index` of `row` as bytes; nil for NULL. Text is taken as its UTF-8 bytes (Core Data
    /// never writes text there, but SQLite's affinity can turn a blob into text); numbers are refused.
    func blob(_ row: Row, _ index: Int, column: String, row rowLabel: @autoclosure () -> String) throws -> Data? {
        let value = try databaseValue(row, index, column: column, row: rowLabel())
        switch value.storage {
        case .null: return nil
        case let .blob(d): return d
        case let .string(s): return Data(s.utf8)
        case let .int64(i): throw corrupted(column, rowLabel(), "holds the integer \(i), not a blob")
        case let .double(d): throw corrupted(column, rowLabel(), "holds the real number \(d), not a blob")
        }
    }

    /// The error for `column` of the row `rowLabel`.
    func corrupted(_ column: String, _ rowLabel: String, _ what: String) -> CoreStackError {
        .storeCorrupted(path: path, reason: "\(table).\(column) of the row \(rowLabel) \(what)")
    }

    private func databaseValue(_ row: Row, _ index: Int, column: String, row rowLabel: @autoclosure () -> String) throws -> DatabaseValue {
        guard index >= 0, index < row.count else {
            throw corrupted(column, rowLabel(), "is missing (the row has \(row.count) columns)")
        }
        // Never traps: every database value converts to `DatabaseValue`.
        return row[index] as DatabaseValue
    }

    /// `s` quoted, cut to 40 characters (a hostile file's text can be megabytes long).
    static func quote(_ s: String) -> String {
        let cut = s.count > 40 ? String(s.prefix(40)) + "…" : s
        return "\"" + cut.replacingOccurrences(of: "\n", with: "\\n") + "\""
    }
}
