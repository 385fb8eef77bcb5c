import Foundation

/// The bytes of one cell of a plain table found by its position in a query's order, read a range
/// at a time with `SELECT substr(…)`: how a value of a table without `rowid` (`WITHOUT ROWID`,
/// virtual), whose values SQLite's blob I/O cannot open, is inspected and saved in bounded pieces.
///
/// ```swift
/// let table = try store.plainTable(named: "KV")
/// if let cell = try table.cellBytes(column: "V", at: 0) {
///     cell.count                         // the value's size
///     try cell.bytes(in: 0..<16)         // its first 16 bytes
/// }
/// ```
public struct SQLitePlainCellBytes: ValueBytes {
    /// The table read.
    public let table: SQLitePlainTable
    /// The column read.
    public let column: String
    /// The row's position in ``query``'s order (0 is the first).
    public let offset: Int
    /// The order and filter the position counts in.
    public let query: SQLitePlainTableQuery
    /// The value's size in bytes (when it was found).
    public let count: Int

    /// The bytes in `range`, clamped to the value.
    ///
    /// - Throws: what ``SQLitePlainTable/value(column:at:in:bytes:)`` throws (the row gone meanwhile).
    public func bytes(in range: Range<Int>) throws -> Data {
        let lower = Swift.min(Swift.max(0, range.lowerBound), count)
        let upper = Swift.min(Swift.max(lower, range.upperBound), count)
        guard upper > lower else { return Data() }
        return try table.value(column: column, at: offset, in: query, bytes: lower..<upper)?.bytes ?? Data()
    }
}

extension SQLitePlainTable {
    /// The value of `column` in the `offset`-th row of `query`, to read a range at a time with
    /// plain `SELECT`s (nil when it is NULL); see ``SQLitePlainCellBytes``.
    ///
    /// ```swift
    /// let bytes = try table.cellBytes(column: "V", at: 3)
    /// ```
    /// - Throws: what ``value(column:at:in:bytes:)`` throws.
    public func cellBytes(column: String, at offset: Int, in query: SQLitePlainTableQuery = SQLitePlainTableQuery()) throws -> SQLitePlainCellBytes? {
        guard let first = try value(column: column, at: offset, in: query, bytes: 0..<0) else { return nil }
        return SQLitePlainCellBytes(table: self, column: column, offset: offset, query: query, count: first.count)
    }
}
