import Foundation
import GRDB
import GRDBSQLite

/// One value of one row of a store's file, read a range at a time through SQLite's incremental
/// blob I/O (`sqlite3_blob_open`, `sqlite3_blob_read`): a 100 MB blob is never loaded whole.
/// Made by ``SQLiteStore/storedValue(of:attribute:)`` and ``SQLitePlainTable/storedValue(column:rowID:)``.
///
/// Each read opens the blob on the store's connection, reads the range and closes it, so a
/// value is read as the file holds it at that moment (a row deleted meanwhile throws).
///
/// ```swift
/// let value = try store.storedValue(of: photoID, attribute: "image")
/// try value?.bytes.bytes(in: 0..<16)   // the first row of its hex dump
/// ```
public struct SQLiteBlob: ValueBytes {
    /// The store whose file is read.
    let store: SQLiteStore
    /// The table, as the file spells it.
    public let table: String
    /// The column, as the file spells it.
    public let column: String
    /// The row's `rowid`.
    public let rowID: Int64
    /// Bytes skipped at the start: 1 for an *Allows External Storage* value kept inline (its
    /// `0x01` marker), else 0.
    public let skip: Int
    /// The value's size (less the bytes skipped).
    public let count: Int

    /// Opens the value to learn its size.
    ///
    /// - Throws: ``ValueReadError`` when SQLite cannot open it (no such row, a value that is
    ///   neither text nor a blob).
    init(store: SQLiteStore, table: String, column: String, rowID: Int64, skip: Int = 0) throws {
        self.store = store
        self.table = table
        self.column = column
        self.rowID = rowID
        self.skip = max(0, skip)
        let size = try Self.withBlob(store: store, table: table, column: column, rowID: rowID) { blob in Int(sqlite3_blob_bytes(blob)) }
        count = max(0, size - self.skip)
    }

    /// The bytes in `range`, clamped to the value.
    ///
    /// - Throws: ``ValueReadError`` when the row is gone or SQLite cannot read it.
    public func bytes(in range: Range<Int>) throws -> Data {
        let lower = min(max(0, range.lowerBound), count)
        let upper = min(max(lower, range.upperBound), count)
        guard upper > lower else { return Data() }
        return try Self.withBlob(store: store, table: table, column: column, rowID: rowID) { blob in
            // The value may have shrunk since the size was read.
            let size = Int(sqlite3_blob_bytes(blob)) - skip
            let end = min(upper, size)
            guard end > lower else { return Data() }
            var out = Data(count: end - lower)
            let rc = out.withUnsafeMutableBytes { raw in
                sqlite3_blob_read(blob, raw.baseAddress, Int32(end - lower), Int32(lower + skip))
            }
            guard rc == SQLITE_OK else {
                throw ValueReadError(what: description, path: store.path, reason: String(cString: sqlite3_errstr(rc)))
            }
            return out
        }
    }

    /// `TABLE.COLUMN of row N`.
    var description: String { "\(table).\(column) of row \(rowID)" }

    /// Runs `body` with the value's blob handle open (read-only) on the store's connection.
    private static func withBlob<T>(
        store: SQLiteStore, table: String, column: String, rowID: Int64, _ body: (OpaquePointer) throws -> T
    ) throws -> T {
        try store.readStatement { db in try withBlob(db, path: store.path, table: table, column: column, rowID: rowID, body) }
    }

    /// Runs `body` with a blob handle open (read-only) on `db`.
    private static func withBlob<T>(
        _ db: Database, path: String, table: String, column: String, rowID: Int64, _ body: (OpaquePointer) throws -> T
    ) throws -> T {
        guard let connection = db.sqliteConnection else {
            throw ValueReadError(what: "\(table).\(column) of row \(rowID)", path: path, reason: "the store is closed")
        }
        var blob: OpaquePointer?
        let rc = sqlite3_blob_open(connection, "main", table, column, rowID, 0, &blob)
        guard rc == SQLITE_OK, let blob else {
            let message = String(cString: sqlite3_errmsg(connection))
            if let blob { sqlite3_blob_close(blob) }
            throw ValueReadError(what: "\(table).\(column) of row \(rowID)", path: path, reason: message)
        }
        defer { sqlite3_blob_close(blob) }
        return try body(blob)
    }

    /// The first `count` bytes (at most) of a blob or text value, read through blob I/O on `db`:
    /// SQL's `substr()` would load the whole value first.
    static func prefix(_ db: Database, path: String, table: String, column: String, rowID: Int64, count: Int) throws -> Data {
        try withBlob(db, path: path, table: table, column: column, rowID: rowID) { blob in
            let n = min(max(0, count), Int(sqlite3_blob_bytes(blob)))
            var out = Data(count: n)
            guard n > 0 else { return out }
            let rc = out.withUnsafeMutableBytes { raw in sqlite3_blob_read(blob, raw.baseAddress, Int32(n), 0) }
            guard rc == SQLITE_OK else {
                throw ValueReadError(what: "\(table).\(column) of row \(rowID)", path: path, reason: String(cString: sqlite3_errstr(rc)))
            }
            return out
        }
    }
}
