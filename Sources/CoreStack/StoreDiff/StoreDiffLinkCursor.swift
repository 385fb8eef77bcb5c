import GRDB

/// Reads the links of one join-table relationship of one store as (source key, destination key)
/// pairs in that order, a chunk at a time (keyset paging on the pair), like ``StoreDiffCursor``.
final class StoreDiffLinkCursor {
    private let store: SQLiteStore?
    private let source: String
    private let destination: String
    private let select: String
    private let chunkSize: Int
    private var buffer: [(DatabaseValue, DatabaseValue)] = []
    private var position = 0
    private var last: (DatabaseValue, DatabaseValue)?
    private var exhausted: Bool

    /// A cursor over the pairs `SELECT source, destination FROM from WHERE condition`; a nil store yields nothing.
    init(store: SQLiteStore?, source: String, destination: String, from: String, condition: String, chunkSize: Int) {
        self.store = store
        self.source = source
        self.destination = destination
        self.select = "SELECT \(source), \(destination) FROM \(from) WHERE \(condition)"
            + " AND \(source) IS NOT NULL AND \(destination) IS NOT NULL"
        self.chunkSize = chunkSize
        self.exhausted = store == nil
    }

    /// The next pair, or nil at the end.
    func next() throws -> (source: DatabaseValue, destination: DatabaseValue)? {
        if position == buffer.count {
            guard !exhausted, let store else { return nil }
            var sql = select
            var arguments: StatementArguments = []
            if let last {
                sql += " AND (\(source), \(destination)) > (?, ?)"
                arguments = [last.0, last.1]
            }
            sql += " ORDER BY \(source), \(destination) LIMIT \(chunkSize)"
            let rows = try store.readStatement { db in try Row.fetchAll(db, sql: sql, arguments: arguments) }
            buffer = rows.map { ($0[0], $0[1]) }
            position = 0
            if buffer.count < chunkSize { exhausted = true }
            last = buffer.last
            if buffer.isEmpty { return nil }
        }
        defer { position += 1 }
        return buffer[position]
    }
}
