import Foundation
import GRDB

// A cell of a row found by its position in a query's order, read with a plain SELECT: for the
// tables whose values SQLite's blob I/O cannot read (WITHOUT ROWID and virtual tables).
extension SQLitePlainTable {
    /// The bytes `range` (clamped to the value) of `column` in the `offset`-th row of `query`
    /// (0 is the first, in the order of ``rows(_:offset:limit:)``), read with `SELECT substr(…)`,
    /// and the value's whole size; nil when it is NULL. Only the range is handed back (SQLite
    /// reads the value to cut it, so a large one is read a range at a time by calling this
    /// again). Text is given as its UTF-8 bytes, a number as its text. Works on every table, with
    /// or without `rowid` (``storedValue(column:rowID:)`` reads a table's with `rowid` through blob I/O).
    ///
    /// ```swift
    /// let table = try store.plainTable(named: "KV")          // CREATE TABLE KV(K TEXT PRIMARY KEY, V BLOB) WITHOUT ROWID
    /// let cell = try table.value(column: "V", at: 3, bytes: 0..<(16 << 20))
    /// cell?.bytes.count  // at most 16 MiB
    /// cell?.count        // the value's size in bytes
    /// ```
    /// - Throws: ``CoreStackError/unknownKey(entity:key:)`` for a column the table does not have,
    ///   ``CoreStackError/objectNotFound(_:)`` when the query has no row at `offset`,
    ///   ``CoreStackError/sqlite(path:message:)`` when SQLite fails.
    public func value(
        column: String, at offset: Int, in query: SQLitePlainTableQuery = SQLitePlainTableQuery(), bytes range: Range<Int>
    ) throws -> (bytes: Data, count: Int)? {
        let quoted = try quotedColumn(column)
        let (condition, arguments) = try whereClause(query.filter)
        let orderBy = try orderClause(query)
        let bytes = "CAST(\(quoted) AS BLOB)"
        let sql = """
            SELECT typeof(\(quoted)), length(\(bytes)), substr(\(bytes), \(max(0, range.lowerBound) + 1), \(max(0, range.count))) \
            FROM \(quotedName)\(condition)\(orderBy) LIMIT 1 OFFSET \(max(0, offset))
            """
        let row = try read { db in try GRDB.Row.fetchOne(db, sql: sql, arguments: arguments) }
        guard let row else { throw CoreStackError.objectNotFound("row \(offset + 1) of table \(name) in \(store.path)") }
        let type: String = row[0]
        guard type != "null" else { return nil }
        let data: Data = row[2] ?? Data()
        let count: Int = row[1] ?? data.count
        return (data, count)
    }
}
