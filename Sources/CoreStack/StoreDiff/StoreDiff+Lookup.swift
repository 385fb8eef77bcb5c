import GRDB

// Finding an object of either store by the key the report names it by.
extension StoreDiff {
    /// The primary key (`Z_PK`) of the object of `entity` that the report names `key` (its
    /// primary key when the stores are matched by primary key, else its entity's match key) in
    /// one of the two stores; nil when that store has no such object, or the entity cannot be
    /// matched. A key that repeats gives the first object in primary-key order, as the diff pairs them.
    ///
    /// Reports name the objects at both ends of a link or a move by such keys; this finds them in
    /// the store that lacks the link (or has the object under another primary key).
    ///
    /// ```swift
    /// for link in bookDiff.links {
    ///     let oldBook = try diff.primaryKey(of: "Book", matching: link.source, in: .old)
    ///     let newAuthor = try diff.primaryKey(of: link.destinationEntity, matching: link.destination, in: .new)
    /// }
    /// ```
    ///
    /// - Throws: ``CoreStackError/unknownKey(entity:key:)`` for a ``StoreDiffOptions/keys`` attribute
    ///   the entity lacks; the store's read errors.
    public func primaryKey(of entity: String, matching key: AttributeValue, in side: StoreDiffSide) throws -> Int64? {
        let store = side == .old ? old : new
        guard let pair = entityPairs().first(where: { $0.name == entity || $0.old?.name == entity }),
            let e = side == .old ? pair.old : pair.new,
            let mapping = try? store.schema.mapping(for: e)
        else { return nil }
        let column: String, value: DatabaseValue
        if matchesByPrimaryKey {
            guard case let .integer(pk) = key else { return nil }
            (column, value) = ("t.Z_PK", pk.databaseValue)
        } else {
            guard let k = try matchKey(pair) else { return nil }
            let attributes = side == .old ? k.old : k.new
            guard let c = Self.keyExpression(attributes, of: e, in: store), let first = attributes.first else { return nil }
            // A compound key is the text of its columns' literals; a single one is typed as its attribute.
            (column, value) = (c, attributes.count > 1 ? key.stringValue.databaseValue : SQLiteValueCodec.databaseValue(key, type: first.type))
        }
        return try store.readStatement { db in
            try Int64.fetchOne(
                db, sql: "SELECT t.Z_PK FROM \(mapping.table) t WHERE t.Z_ENT = ? AND \(column) = ? ORDER BY t.Z_PK LIMIT 1",
                arguments: [mapping.number, value])
        }
    }
}
