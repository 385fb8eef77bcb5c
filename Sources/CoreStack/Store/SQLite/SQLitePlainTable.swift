import Foundation
import GRDB

/// A table of a store's file read as plain rows and columns: for the tables that are neither the
/// model's nor Core Data's own (``SQLiteStoreSchemaReport/unexplainedTables``), which a browser
/// lists as "Other tables". Reads pages of rows sorted by a column and filtered by a text, by
/// offset or by `rowid`; a blob comes with its first bytes only, and ``storedValue(column:rowID:)``
/// reads it through SQLite's blob I/O. Reads only: nothing here writes to the file.
///
/// ```swift
/// let table = try store.plainTable(named: "NOTES")
/// table.columns.map(\.name)                         // ["ID", "TITLE", "BODY"]
/// let query = SQLitePlainTableQuery(sort: [.init(column: "TITLE")])
/// let count = try table.count(query)
/// let page = try table.rows(query, offset: 0, limit: 50)
/// let next = try table.rows(afterRowID: page.last?.rowID, limit: 50)
/// ```
public struct SQLitePlainTable: Sendable {
    /// A column as the table declares it.
    public struct Column: Sendable, Hashable {
        /// The column's name, as the file spells it.
        public var name: String
        /// Its declared type (`TEXT`, `INTEGER`, `BLOB`, empty when none).
        public var declaredType: String
        /// Creates a column.
        ///
        /// ```swift
        /// let title = SQLitePlainTable.Column(name: "TITLE", declaredType: "TEXT")
        /// ```
        public init(name: String, declaredType: String) {
            self.name = name
            self.declaredType = declaredType
        }
    }

    /// One row: its `rowid` (nil in a `WITHOUT ROWID` or virtual table) and a value per column.
    public struct Row: Sendable, Hashable {
        /// The row's `rowid`, nil when the table has none.
        public var rowID: Int64?
        /// One value per column of ``SQLitePlainTable/columns``.
        public var values: [SQLitePlainValue]
    }

    /// How many first bytes of a blob a row brings.
    public static let blobPrefix = 4096
    /// How many first characters of a text a row brings.
    public static let textPrefix = 1024

    let store: SQLiteStore
    /// The table's name, as the file spells it.
    public let name: String
    /// Its columns, in the table's order.
    public let columns: [Column]
    /// Whether its rows have a `rowid` (not a `WITHOUT ROWID` or virtual table): only then are
    /// blobs read in ranges and rows paged by `rowid`.
    public let hasRowID: Bool

    init(store: SQLiteStore, name: String, columns: [Column], hasRowID: Bool) {
        self.store = store
        self.name = name
        self.columns = columns
        self.hasRowID = hasRowID
    }

    /// How many rows `query`'s filter keeps.
    ///
    /// ```swift
    /// try table.count(SQLitePlainTableQuery(filter: .init(column: nil, contains: "x")))
    /// ```
    /// - Throws: ``CoreStackError/unknownKey(entity:key:)`` for a column the table does not
    ///   have, ``CoreStackError/sqlite(path:message:)`` when SQLite fails.
    public func count(_ query: SQLitePlainTableQuery = SQLitePlainTableQuery()) throws -> Int {
        let (condition, arguments) = try whereClause(query.filter)
        return try read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quotedName)\(condition)", arguments: arguments) ?? 0
        }
    }

    /// At most `limit` rows of `query` from the `offset`-th (0 is the first).
    ///
    /// ```swift
    /// let page = try table.rows(SQLitePlainTableQuery(sort: [.init(column: "ID", ascending: false)]), offset: 100, limit: 50)
    /// ```
    /// - Throws: ``CoreStackError/unknownKey(entity:key:)`` for a column the table does not
    ///   have, ``CoreStackError/sqlite(path:message:)`` or ``ValueReadError`` when SQLite fails.
    public func rows(_ query: SQLitePlainTableQuery = SQLitePlainTableQuery(), offset: Int, limit: Int) throws -> [Row] {
        let (condition, arguments) = try whereClause(query.filter)
        let orderBy = try orderClause(query)
        return try select(
            "\(condition)\(orderBy) LIMIT \(max(0, limit)) OFFSET \(max(0, offset))", arguments)
    }

    /// At most `limit` rows in `rowid` order after the row `rowID` (from the first when nil),
    /// kept by `filter`: paging that costs the same at the millionth row as at the first.
    ///
    /// ```swift
    /// var page = try table.rows(afterRowID: nil, limit: 500)
    /// while let last = page.last?.rowID { page = try table.rows(afterRowID: last, limit: 500) }
    /// ```
    /// - Throws: ``CoreStackError/invalidFetchRequest(_:)`` for a table without `rowid`, and
    ///   what ``rows(_:offset:limit:)`` throws.
    public func rows(afterRowID rowID: Int64?, limit: Int, filter: SQLitePlainTableQuery.Filter? = nil) throws -> [Row] {
        guard hasRowID else { throw CoreStackError.invalidFetchRequest("table \(name) has no rowid to page by") }
        var (condition, arguments) = try whereClause(filter)
        if let rowID {
            condition += condition.isEmpty ? " WHERE rowid > ?" : " AND rowid > ?"
            arguments += [rowID]
        }
        return try select("\(condition) ORDER BY rowid LIMIT \(max(0, limit))", arguments)
    }

    /// The value of `column` in the row `rowID`, to read a range at a time through SQLite's blob
    /// I/O (nil when it is NULL); a number is given as its text.
    ///
    /// ```swift
    /// let value = try table.storedValue(column: "BODY", rowID: 12)
    /// let inspection = try ValueInspector.inspect(reading: value!.bytes)
    /// ```
    /// - Throws: ``CoreStackError/unknownKey(entity:key:)``, ``CoreStackError/objectNotFound(_:)``
    ///   for a row not in the table, ``CoreStackError/invalidFetchRequest(_:)`` for a table without `rowid`.
    public func storedValue(column: String, rowID: Int64) throws -> SQLiteStoredValue? {
        guard hasRowID else { throw CoreStackError.invalidFetchRequest("table \(name) has no rowid to read a value by") }
        let quoted = try quotedColumn(column)
        let type = try read { db in
            try String.fetchOne(db, sql: "SELECT typeof(\(quoted)) FROM \(quotedName) WHERE rowid = ?", arguments: [rowID])
        }
        switch type {
        case nil: throw CoreStackError.objectNotFound("row \(rowID) of table \(name) in \(store.path)")
        case "null": return nil
        case "blob", "text":
            return SQLiteStoredValue(
                location: .column(table: name, column: column, rowID: rowID),
                bytes: try SQLiteBlob(store: store, table: name, column: column, rowID: rowID))
        default:
            let text = try read { db in
                try String.fetchOne(db, sql: "SELECT CAST(\(quoted) AS TEXT) FROM \(quotedName) WHERE rowid = ?", arguments: [rowID])
            }
            return SQLiteStoredValue(location: .column(table: name, column: column, rowID: rowID), bytes: Data((text ?? "").utf8))
        }
    }

    // MARK: SQL

    var quotedName: String { SQLiteSchemaInference.quoted(name) }

    /// ` ORDER BY` the query's sort keys, then `rowid` when there is one (empty when neither).
    func orderClause(_ query: SQLitePlainTableQuery) throws -> String {
        var order = try query.sort.map { "\(try quotedColumn($0.column)) \($0.ascending ? "ASC" : "DESC")" }
        if hasRowID { order.append("rowid") }
        return order.isEmpty ? "" : " ORDER BY " + order.joined(separator: ", ")
    }

    func quotedColumn(_ column: String) throws -> String {
        guard columns.contains(where: { $0.name == column }) else { throw CoreStackError.unknownKey(entity: name, key: column) }
        return SQLiteSchemaInference.quoted(column)
    }

    func whereClause(_ filter: SQLitePlainTableQuery.Filter?) throws -> (String, StatementArguments) {
        guard let filter, !filter.text.isEmpty else { return ("", []) }
        let looked = try filter.column.map { [try quotedColumn($0)] } ?? columns.map { SQLiteSchemaInference.quoted($0.name) }
        guard !looked.isEmpty else { return ("", []) }
        // Blobs never match (their text would be read whole); instr() has no wildcards to escape.
        let terms = looked.map { "(typeof(\($0)) <> 'blob' AND instr(lower(CAST(\($0) AS TEXT)), lower(?)) > 0)" }
        return (" WHERE (" + terms.joined(separator: " OR ") + ")", StatementArguments(Array(repeating: filter.text, count: terms.count)))
    }

    /// Runs `SELECT [rowid,] columns… FROM table` + `tail`: per column its type, its length and
    /// its value (a text's prefix; a blob's prefix only without rowid, else read by blob I/O).
    private func select(_ tail: String, _ arguments: StatementArguments) throws -> [Row] {
        var expressions: [String] = hasRowID ? ["rowid"] : []
        for c in columns {
            let q = SQLiteSchemaInference.quoted(c.name)
            expressions.append("typeof(\(q))")
            expressions.append("CASE typeof(\(q)) WHEN 'blob' THEN length(\(q)) WHEN 'text' THEN length(\(q)) END")
            let blob = hasRowID ? "NULL" : "substr(\(q), 1, \(Self.blobPrefix))"
            expressions.append("CASE typeof(\(q)) WHEN 'blob' THEN \(blob) WHEN 'text' THEN substr(\(q), 1, \(Self.textPrefix)) ELSE \(q) END")
        }
        let sql = "SELECT \(expressions.joined(separator: ", ")) FROM \(quotedName)\(tail)"
        var rows: [Row] = try read { db in
            try GRDB.Row.fetchAll(db, sql: sql, arguments: arguments).map { r in
                let rowID: Int64? = hasRowID ? r[0] : nil
                let base = hasRowID ? 1 : 0
                let values = columns.indices.map { i -> SQLitePlainValue in
                    let type: String = r[base + 3 * i]
                    let length: Int = r[base + 3 * i + 1] ?? 0
                    switch type {
                    case "integer": return .integer(r[base + 3 * i + 2])
                    case "real": return .real(r[base + 3 * i + 2])
                    case "text": return .text(r[base + 3 * i + 2], length: length)
                    case "blob": return .blob(prefix: r[base + 3 * i + 2] ?? Data(), count: length)
                    default: return .null
                    }
                }
                return Row(rowID: rowID, values: values)
            }
        }
        guard hasRowID else { return rows }
        for r in rows.indices {
            guard let rowID = rows[r].rowID else { continue }
            for (i, value) in rows[r].values.enumerated() {
                guard case let .blob(_, count) = value, count > 0 else { continue }
                let blob = try SQLiteBlob(store: store, table: name, column: columns[i].name, rowID: rowID)
                rows[r].values[i] = .blob(prefix: try blob.prefix(upTo: Self.blobPrefix), count: count)
            }
        }
        return rows
    }

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try store.read(body)
        } catch let error as DatabaseError {
            throw CoreStackError.sqlite(path: store.path, message: "table \(name): \(error.message ?? error.description)")
        }
    }
}

extension SQLiteStore {
    /// A table of the store's file read as plain rows (see ``SQLitePlainTable``): any table,
    /// typically one of ``SQLiteStoreSchemaReport/unexplainedTables``.
    ///
    /// ```swift
    /// for name in try store.schemaReport().unexplainedTables {
    ///     let table = try store.plainTable(named: name)
    ///     print(name, try table.count())
    /// }
    /// ```
    /// - Throws: ``CoreStackError/sqlite(path:message:)`` naming a table the file does not have.
    public func plainTable(named name: String) throws -> SQLitePlainTable {
        let (columns, hasRowID): ([SQLitePlainTable.Column], Bool) = try read { db in
            guard let sql = try String.fetchOne(
                db, sql: "SELECT coalesce(sql, '') FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [name])
            else { throw CoreStackError.sqlite(path: path, message: "no table \(name) in the store") }
            let columns = try GRDB.Row.fetchAll(db, sql: "PRAGMA table_info(\(SQLiteSchemaInference.quoted(name)))").map {
                SQLitePlainTable.Column(name: $0["name"], declaredType: $0["type"] ?? "")
            }
            let upper = sql.uppercased()
            let hasRowID = !upper.hasPrefix("CREATE VIRTUAL TABLE")
                && upper.range(of: #"WITHOUT\s+ROWID\s*;?\s*$"#, options: .regularExpression) == nil
                && !columns.contains { $0.name.lowercased() == "rowid" }
            return (columns, hasRowID)
        }
        return SQLitePlainTable(store: self, name: name, columns: columns, hasRowID: hasRowID)
    }
}
