import GRDB

/// Reads one entity's rows of one store in match-key order, a chunk at a time (keyset paging:
/// each chunk starts after the last key and primary key read), so memory stays bounded by the
/// chunk size whatever the table's size.
final class StoreDiffCursor {
    private let store: SQLiteStore?
    private let keyExpression: String
    private let select: String
    private let chunkSize: Int
    private var buffer: [StoreDiffRow] = []
    private var position = 0
    private var last: (key: DatabaseValue, primaryKey: Int64)?
    private var exhausted: Bool

    /// A cursor over `table`'s rows of entity `number`; `keyExpression` nil orders by `Z_PK`.
    /// A nil store (the entity is missing on that side) yields nothing.
    init(store: SQLiteStore?, table: String, number: Int, keyExpression: String?, valueExpressions: [String], chunkSize: Int) {
        self.store = store
        self.keyExpression = keyExpression ?? "t.Z_PK"
        let values = valueExpressions.isEmpty ? "" : ", " + valueExpressions.joined(separator: ", ")
        self.select = "SELECT t.Z_PK, \(self.keyExpression)\(values) FROM \(table) t WHERE t.Z_ENT = \(number)"
            + (keyExpression == nil ? "" : " AND \(self.keyExpression) IS NOT NULL")
        self.chunkSize = chunkSize
        self.exhausted = store == nil
    }

    /// The next row in key order, or nil at the end.
    func next() throws -> StoreDiffRow? {
        if position == buffer.count {
            guard !exhausted else { return nil }
            try refill()
            if buffer.isEmpty { return nil }
        }
        defer { position += 1 }
        return buffer[position]
    }

    /// The next chunk's tail of a `SELECT … FROM table t WHERE …` over rows in (`keyExpression`,
    /// `t.Z_PK`) order: the condition after `last` (keyset paging), the order and the limit.
    static func nextChunk(
        keyExpression: String, after last: (key: DatabaseValue, primaryKey: Int64)?, chunkSize: Int
    ) -> (sql: String, arguments: StatementArguments) {
        let byPrimaryKey = keyExpression == "t.Z_PK"
        var sql = ""
        var arguments: StatementArguments = []
        if let last {
            sql = byPrimaryKey ? " AND t.Z_PK > ?" : " AND (\(keyExpression), t.Z_PK) > (?, ?)"
            arguments = byPrimaryKey ? [last.primaryKey] : [last.key, last.primaryKey]
        }
        sql += (byPrimaryKey ? " ORDER BY t.Z_PK" : " ORDER BY \(keyExpression), t.Z_PK") + " LIMIT \(chunkSize)"
        return (sql, arguments)
    }

    private func refill() throws {
        guard let store else { return }
        let (tail, arguments) = Self.nextChunk(keyExpression: keyExpression, after: last, chunkSize: chunkSize)
        let sql = select + tail
        let rows = try store.readStatement { db in try Row.fetchAll(db, sql: sql, arguments: arguments) }
        buffer = rows.map { row in
            let pk: DatabaseValue = row[0]
            return StoreDiffRow(
                primaryKey: Int64.fromDatabaseValue(pk) ?? 0, key: row[1],
                values: (2..<row.count).map { row[$0] })
        }
        position = 0
        if buffer.count < chunkSize { exhausted = true }
        if let end = buffer.last { last = (end.key, end.primaryKey) }
    }
}
