import GRDB

/// Reads the members of one ordered to-many relationship of one entity's objects in one store,
/// owner by owner in match-key order, each owner's members in the relationship's order: a chunk
/// of owners at a time (keyset paging on the owner's key and primary key, as ``StoreDiffCursor``),
/// their members joined along the foreign key's or join table's index. Memory is bounded by the
/// chunk of owners and their members.
final class StoreDiffOrderCursor {
    /// One owner and its members' keys, in order.
    struct Group {
        var key: DatabaseValue
        var primaryKey: Int64
        var members: [DatabaseValue]
    }

    private let store: SQLiteStore?
    private let ownerKey: String
    private let ownerSelect: String
    private let members: String
    private let memberExpression: String
    private let chunkSize: Int
    private var buffer: [Group] = []
    private var position = 0
    private var last: (key: DatabaseValue, primaryKey: Int64)?
    private var exhausted: Bool

    /// A cursor over the owners in `ownerTable` of entity `number` (`t` in `ownerKey`), joined with
    /// `join` (a `LEFT JOIN … m ON … = o.pk` clause) whose rows are ordered by `order` and name
    /// their member by `member`. A nil store yields nothing.
    init(
        store: SQLiteStore?, ownerTable: String, number: Int, ownerKey: String?, join: String, member: String, order: String,
        chunkSize: Int
    ) {
        self.store = store
        self.ownerKey = ownerKey ?? "t.Z_PK"
        self.ownerSelect = "SELECT t.Z_PK AS pk, \(self.ownerKey) AS k FROM \(ownerTable) t WHERE t.Z_ENT = \(number)"
            + " AND \(self.ownerKey) IS NOT NULL"
        self.members = "\(join) ORDER BY o.k, o.pk, \(order)"
        self.chunkSize = chunkSize
        self.exhausted = store == nil
        self.memberExpression = member
    }

    /// The next owner with its members, or nil at the end.
    func next() throws -> Group? {
        while position == buffer.count {
            guard !exhausted else { return nil }
            try refill()
        }
        defer { position += 1 }
        return buffer[position]
    }

    private func refill() throws {
        guard let store else { return }
        let (tail, arguments) = StoreDiffCursor.nextChunk(keyExpression: ownerKey, after: last, chunkSize: chunkSize)
        let sql = "SELECT o.pk, o.k, \(memberExpression) FROM (\(ownerSelect + tail)) o \(members)"
        let rows = try store.readStatement { db in try Row.fetchAll(db, sql: sql, arguments: arguments) }
        var groups: [Group] = []
        for row in rows {
            let pk = Int64.fromDatabaseValue(row[0] as DatabaseValue) ?? 0
            let member: DatabaseValue = row[2]
            if groups.last?.primaryKey != pk { groups.append(Group(key: row[1], primaryKey: pk, members: [])) }
            // An owner without members has one row with a null member (the LEFT JOIN); a member
            // whose key is null cannot be matched and is left out on both sides alike.
            if !member.isNull { groups[groups.count - 1].members.append(member) }
        }
        buffer = groups
        position = 0
        if groups.count < chunkSize { exhausted = true }
        if let end = groups.last { last = (end.key, end.primaryKey) }
    }
}
