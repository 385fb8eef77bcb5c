import Foundation
import GRDB

/// Compares two SQLite stores (two copies of a store, before and after a migration, a QA session
/// or a run of an app): per entity, the objects inserted, deleted and changed, with each changed
/// attribute's old and new value, each to-one relationship that points elsewhere, the links of
/// join-table to-many relationships made and removed, and the members of ordered to-many
/// relationships that moved.
///
/// Objects are matched by primary key (`Z_PK`) when both files are the same store (the same store
/// UUID in their metadata); otherwise by an attribute: the one given in
/// ``StoreDiffOptions/keys``, else a single-attribute uniqueness constraint, else a UUID attribute,
/// else a compound uniqueness constraint (a key of several attributes, named by their values as
/// SQL literals: `'Dune', 1965`).
/// An entity with none of these is reported as ``StoreDiffMatch/unmatched(reason:)``, not guessed.
///
/// Each entity's rows are read from both stores ordered by the match key, a chunk at a time, and
/// walked side by side, so memory is bounded by the chunk size and the changes kept
/// (``StoreDiffOptions/changeLimit``), never by the size of a table. When the two models differ,
/// entities and attributes are paired by name, or by the renaming identifier the new model records.
///
/// ```swift
/// let old = try SQLiteStore(url: URL(fileURLWithPath: "before.sqlite"), model: model, readOnly: true)
/// let new = try SQLiteStore(url: URL(fileURLWithPath: "after.sqlite"), model: model, readOnly: true)
/// let report = try StoreDiff(old: old, new: new, options: StoreDiffOptions(changeLimit: 20)).run()
/// for entity in report.entities where entity.hasChanges {
///     print(entity.name, entity.insertedCount, entity.deletedCount, entity.changedCount)
/// }
/// ```
public struct StoreDiff {
    /// The store before.
    public let old: SQLiteStore
    /// The store after.
    public let new: SQLiteStore
    /// What to compare and how to match.
    public let options: StoreDiffOptions

    /// A comparison of `old` with `new` (open them read-only; neither is written).
    ///
    /// ```swift
    /// let diff = StoreDiff(old: before, new: after, options: StoreDiffOptions(keys: ["Book": "isbn"]))
    /// ```
    public init(old: SQLiteStore, new: SQLiteStore, options: StoreDiffOptions = StoreDiffOptions()) {
        self.old = old
        self.new = new
        self.options = options
    }

    /// Whether the objects are matched by primary key: same store UUID, or forced.
    public var matchesByPrimaryKey: Bool {
        options.forcePrimaryKey || old.metadata.storeUUID == new.metadata.storeUUID
    }

    /// Runs the comparison.
    ///
    /// ```swift
    /// let report = try StoreDiff(old: before, new: after).run()
    /// print(report.hasChanges)
    /// ```
    ///
    /// - Throws: ``CoreStackError/unknownEntity(_:)`` for an entity in ``StoreDiffOptions/entities``
    ///   or ``StoreDiffOptions/keys`` that neither model has; ``CoreStackError/unknownKey(entity:key:)``
    ///   for a key attribute the entity lacks (in either store); the stores' read errors.
    public func run() throws -> StoreDiffReport {
        try run(progress: { _, _, _ in })
    }

    /// Runs the comparison, calling `progress` before each entity is compared with its name, its
    /// place (from 0) and how many entities are compared; a `progress` that throws (a
    /// `CancellationError` when the user gave up) stops the comparison with that error.
    ///
    /// ```swift
    /// let report = try StoreDiff(old: before, new: after).run { entity, index, count in
    ///     print("comparing \(entity) (\(index + 1) of \(count))")
    ///     if cancelled { throw CancellationError() }
    /// }
    /// ```
    ///
    /// - Throws: what ``run()`` throws, and what `progress` throws.
    public func run(progress: (_ entity: String, _ index: Int, _ count: Int) throws -> Void) throws -> StoreDiffReport {
        let pairs = entityPairs()
        let known = Set(pairs.map(\.name))
        for name in (options.entities ?? []) + options.keys.keys.sorted() where !known.contains(name) {
            throw CoreStackError.unknownEntity(name)
        }
        var keys: [String: MatchKey] = [:]
        for pair in pairs where !matchesByPrimaryKey || options.keys[pair.name] != nil {
            // Keys given are checked even when the primary key matches (a typo is said, not ignored).
            if let k = try matchKey(pair), !matchesByPrimaryKey { keys[pair.name] = k }
        }
        let compared = pairs.filter { pair in
            if let wanted = options.entities, !wanted.contains(pair.name) { return false }
            return !((pair.old?.isAbstract ?? false) && (pair.new?.isAbstract ?? false))
        }
        var entities: [EntityDiff] = []
        for (i, pair) in compared.enumerated() {
            try progress(pair.name, i, compared.count)
            entities.append(try diff(pair, keys: keys))
        }
        return StoreDiffReport(
            oldStoreUUID: old.metadata.storeUUID, newStoreUUID: new.metadata.storeUUID,
            matchedByPrimaryKey: matchesByPrimaryKey,
            oldModelVersion: old.model.versionName ?? old.model.versionIdentifiers.first,
            newModelVersion: new.model.versionName ?? new.model.versionIdentifiers.first, entities: entities)
    }

    /// The attributes that match an entity's objects across two stores, on each side (one, or
    /// several for a compound key), and why they (`given`, `uniqueness constraint`, `UUID attribute`).
    typealias MatchKey = (old: [AttributeDescription], new: [AttributeDescription], source: String)

    /// An entity of either model and its counterpart in the other.
    struct EntityPair {
        var name: String
        var old: EntityDescription?
        var new: EntityDescription?
    }

    /// The new model's entities paired with the old model's (by renaming identifier, else name),
    /// then the old model's entities the new one lacks.
    func entityPairs() -> [EntityPair] {
        var result: [EntityPair] = []
        var usedOld = Set<String>()
        for e in new.model.entities {
            let o = e.renamingIdentifier.flatMap { old.model.entity(named: $0) } ?? old.model.entity(named: e.name)
            if let o { usedOld.insert(o.name) }
            result.append(EntityPair(name: e.name, old: o, new: e))
        }
        for o in old.model.entities where !usedOld.contains(o.name) {
            result.append(EntityPair(name: o.name, old: o, new: nil))
        }
        return result
    }

    /// The old model's counterpart of the new model's attribute `a` (renaming identifier, else name).
    private static func counterpart(of a: AttributeDescription, in entity: EntityDescription) -> AttributeDescription? {
        a.renamingIdentifier.flatMap { entity.attribute(named: $0) } ?? entity.attribute(named: a.name)
    }

    /// The attributes that match the entity's objects across two different stores, and why they:
    /// the key given (`a` or `a,b`), else a single-attribute uniqueness constraint, else a UUID
    /// attribute, else a compound uniqueness constraint.
    func matchKey(_ pair: EntityPair) throws -> MatchKey? {
        guard let o = pair.old, let n = pair.new else { return nil }
        func both(_ names: [String]) -> ([AttributeDescription], [AttributeDescription])? {
            var olds: [AttributeDescription] = [], news: [AttributeDescription] = []
            for name in names {
                guard let na = n.attribute(named: name), !na.isTransient,
                    let oa = Self.counterpart(of: na, in: o), !oa.isTransient
                else { return nil }
                olds.append(oa)
                news.append(na)
            }
            return names.isEmpty ? nil : (olds, news)
        }
        if let given = options.keys[pair.name] {
            let names = given.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard !names.contains(where: \.isEmpty), let (oa, na) = both(names) else {
                throw CoreStackError.unknownKey(entity: pair.name, key: given)
            }
            return (oa, na, "given")
        }
        for constraint in n.uniquenessConstraints where constraint.count == 1 {
            if let (oa, na) = both(constraint) { return (oa, na, "uniqueness constraint") }
        }
        for a in n.allAttributes where a.type == .uuid {
            if let (oa, na) = both([a.name]) { return (oa, na, "UUID attribute") }
        }
        for constraint in n.uniquenessConstraints where constraint.count > 1 {
            if let (oa, na) = both(constraint) { return (oa, na, "uniqueness constraint") }
        }
        return nil
    }

    /// The SQL expression reading a match key of `entity` in `store` from the row aliased `alias`:
    /// its one column, or for a compound key its columns' SQL literals joined (`'Le Guin', 1969`;
    /// null when one is null, so such objects are left out as for a single key); nil when a
    /// column is not stored.
    static func keyExpression(_ attributes: [AttributeDescription], of entity: EntityDescription, in store: SQLiteStore, alias: String = "t")
        -> String?
    {
        var columns: [String] = []
        for a in attributes {
            guard let c = column(a, of: entity, in: store, alias: alias) else { return nil }
            columns.append(c)
        }
        guard columns.count > 1 else { return columns.first }
        let anyNull = columns.map { "\($0) IS NULL" }.joined(separator: " OR ")
        return "(CASE WHEN \(anyNull) THEN NULL ELSE " + columns.map { "quote(\($0))" }.joined(separator: " || ', ' || ") + " END)"
    }

    /// The SQL expression reading attribute `a` of `entity` in `store` (nil: not stored).
    static func column(_ a: AttributeDescription, of entity: EntityDescription, in store: SQLiteStore, alias: String = "t") -> String? {
        guard let mapping = try? store.schema.mapping(for: entity),
            let slot = entity.allAttributes.firstIndex(where: { $0.name == a.name }),
            slot < mapping.attributeColumns.count, let c = mapping.attributeColumns[slot]
        else { return nil }
        return "\(alias).\(c)"
    }

    /// The SQL expression reading the match key of to-one relationship `r`'s destination, or its
    /// foreign key when matching by primary key; nil when it cannot be read.
    private func toOneExpression(
        _ r: RelationshipDescription, of entity: EntityDescription, in store: SQLiteStore,
        keys: [String: MatchKey], isOld: Bool
    ) -> String? {
        guard let mapping = try? store.schema.mapping(for: entity),
            let slot = entity.allRelationships.firstIndex(where: { $0.name == r.name }),
            slot < mapping.toOne.count, let fk = mapping.toOne[slot]?.column
        else { return nil }
        if matchesByPrimaryKey { return "t.\(fk)" }
        return destinationKey(r.destinationEntityName, foreignKey: "t.\(fk)", in: store, keys: keys, isOld: isOld)
    }

    /// The SQL expression reading the match key of the `destination` object whose primary key
    /// `foreignKey` holds; nil when its entity has no match key.
    func destinationKey(
        _ destination: String, foreignKey: String, in store: SQLiteStore,
        keys: [String: MatchKey], isOld: Bool
    ) -> String? {
        guard let dest = store.model.entity(named: destination),
            let destMapping = try? store.schema.mapping(for: dest)
        else { return nil }
        let destName = isOld ? (entityPairs().first { $0.old?.name == dest.name }?.name ?? dest.name) : dest.name
        guard let key = keys[destName],
            let keyExpression = Self.keyExpression(isOld ? key.old : key.new, of: dest, in: store, alias: "d")
        else { return nil }
        return "(SELECT \(keyExpression) FROM \(destMapping.table) d WHERE d.Z_PK = \(foreignKey))"
    }

    /// The join-table links of one relationship of `entity` in `store`: the `FROM` clause, the
    /// condition, and the source and destination key expressions; nil when not stored in a join
    /// table or when its destination cannot be matched.
    private func linkQuery(
        _ r: RelationshipDescription, of entity: EntityDescription, in store: SQLiteStore, sourceKey: String?,
        keys: [String: MatchKey], isOld: Bool
    ) -> (from: String, condition: String, source: String, destination: String)? {
        guard let mapping = try? store.schema.mapping(for: entity),
            let slot = entity.allRelationships.firstIndex(where: { $0.name == r.name }), slot < mapping.toMany.count,
            case let .join(index, src, dst, _)? = mapping.toMany[slot], index < store.schema.joinTables.count
        else { return nil }
        let table = store.schema.joinTables[index].table.name
        let destination = matchesByPrimaryKey
            ? "j.\(dst)"
            : destinationKey(r.destinationEntityName, foreignKey: "j.\(dst)", in: store, keys: keys, isOld: isOld)
        guard let destination else { return nil }
        return (
            // CROSS JOIN keeps the join table the outer loop, read along its (source, destination)
            // index in the order wanted: no sort of the whole table for each chunk.
            "\(table) j CROSS JOIN \(mapping.table) t ON t.Z_PK = j.\(src)", "t.Z_ENT = \(mapping.number)",
            sourceKey ?? "j.\(src)", destination
        )
    }

    /// The links made and removed in the to-many relationships of the entity stored in join
    /// tables: for each, a merge walk of both stores' (source, destination) pairs in key order.
    private func diffLinks(
        _ pair: EntityPair, oldKey: String?, newKey: String?,
        keys: [String: MatchKey],
        into result: inout EntityDiff, notes: inout [String]
    ) throws {
        guard let o = pair.old, let n = pair.new else { return }
        let limit = options.changeLimit ?? Int.max
        for r in n.allRelationships where r.isToMany && !r.isTransient {
            guard let or = (r.renamingIdentifier.flatMap { o.relationship(named: $0) } ?? o.relationship(named: r.name)),
                or.isToMany, !or.isTransient
            else { continue }
            let oq = linkQuery(or, of: o, in: old, sourceKey: oldKey, keys: keys, isOld: true)
            let nq = linkQuery(r, of: n, in: new, sourceKey: newKey, keys: keys, isOld: false)
            guard let oq, let nq else {
                let inJoin = (try? new.schema.mapping(for: n)).flatMap { m -> Bool? in
                    guard let slot = n.allRelationships.firstIndex(where: { $0.name == r.name }), slot < m.toMany.count,
                        case .join? = m.toMany[slot]
                    else { return false }
                    return true
                } ?? false
                if inJoin {
                    notes.append("relationship \(r.name) not compared: its destination \(r.destinationEntityName) has no match key")
                }
                continue
            }
            // By primary key the pairs come along the join table's index; by match keys each chunk
            // sorts the remaining links again, so fewer, larger chunks (two values a link).
            let chunk = matchesByPrimaryKey ? options.chunkSize : options.chunkSize * 10
            let oc = StoreDiffLinkCursor(
                store: old, source: oq.source, destination: oq.destination, from: oq.from, condition: oq.condition,
                chunkSize: chunk)
            let nc = StoreDiffLinkCursor(
                store: new, source: nq.source, destination: nq.destination, from: nq.from, condition: nq.condition,
                chunkSize: chunk)
            var a = try oc.next()
            var b = try nc.next()
            func record(_ link: (source: DatabaseValue, destination: DatabaseValue), linked: Bool) {
                if linked { result.linkedCount += 1 } else { result.unlinkedCount += 1 }
                guard result.links.count < limit else { return }
                result.links.append(RelationshipLinkChange(
                    relationship: r.name, source: Self.decodeKey(link.source), destinationEntity: r.destinationEntityName,
                    destination: Self.decodeKey(link.destination), isLinked: linked))
            }
            while a != nil || b != nil {
                var order: Int
                switch (a, b) {
                case let (x?, y?):
                    order = StoreDiffKeyOrder.compare(x.source, y.source)
                    if order == 0 { order = StoreDiffKeyOrder.compare(x.destination, y.destination) }
                case (_?, nil): order = -1
                default: order = 1
                }
                if order < 0, let x = a {
                    record(x, linked: false)
                    a = try oc.next()
                } else if order > 0, let y = b {
                    record(y, linked: true)
                    b = try nc.next()
                } else {
                    a = try oc.next()
                    b = try nc.next()
                }
            }
        }
    }

    /// One entity's comparison: a merge walk of both stores' rows in match-key order.
    private func diff(
        _ pair: EntityPair, keys: [String: MatchKey]
    ) throws -> EntityDiff {
        let oldMapping = try pair.old.map { try old.schema.mapping(for: $0) }
        let newMapping = try pair.new.map { try new.schema.mapping(for: $0) }
        let oldCount = try count(old, oldMapping)
        let newCount = try count(new, newMapping)
        var notes: [String] = []
        let match: StoreDiffMatch
        var oldKey: String?
        var newKey: String?
        if pair.old == nil {
            match = matchesByPrimaryKey ? .primaryKey : .unmatched(reason: "only in the new model")
            notes.append("only in the new model: all its objects are inserted")
        } else if pair.new == nil {
            match = matchesByPrimaryKey ? .primaryKey : .unmatched(reason: "only in the old model")
            notes.append("only in the old model: all its objects are deleted")
        } else if matchesByPrimaryKey {
            match = .primaryKey
        } else if let key = keys[pair.name], let o = pair.old, let n = pair.new,
            let oc = Self.keyExpression(key.old, of: o, in: old), let nc = Self.keyExpression(key.new, of: n, in: new)
        {
            match = .attribute(name: key.new.map(\.name).joined(separator: ","), source: key.source)
            oldKey = oc
            newKey = nc
        } else {
            var result = EntityDiff(
                name: pair.name,
                match: .unmatched(
                    reason: "different stores, and no --key, single-attribute uniqueness constraint or UUID attribute"),
                oldCount: oldCount, newCount: newCount)
            result.notes = ["not compared: give --key \(pair.name)=ATTRIBUTE to match its objects"]
            return result
        }
        var result = EntityDiff(name: pair.name, match: match, oldCount: oldCount, newCount: newCount)
        let fields = self.fields(pair, keys: keys, notes: &notes)
        let oldCursor = StoreDiffCursor(
            store: oldMapping == nil ? nil : old, table: oldMapping?.table ?? "", number: oldMapping?.number ?? 0,
            keyExpression: oldKey, valueExpressions: fields.map { $0.oldExpression ?? "NULL" }, chunkSize: options.chunkSize)
        let newCursor = StoreDiffCursor(
            store: newMapping == nil ? nil : new, table: newMapping?.table ?? "", number: newMapping?.number ?? 0,
            keyExpression: newKey, valueExpressions: fields.map { $0.newExpression ?? "NULL" }, chunkSize: options.chunkSize)
        try walk(oldCursor, newCursor, fields: fields, into: &result, notes: &notes, byPrimaryKey: oldKey == nil)
        try diffLinks(pair, oldKey: oldKey, newKey: newKey, keys: keys, into: &result, notes: &notes)
        try diffOrders(pair, oldKey: oldKey, newKey: newKey, keys: keys, into: &result, notes: &notes)
        if !matchesByPrimaryKey, oldKey != nil {
            let oldNulls = oldCount - result.deletedCount - result.changedCount - result.unchangedCount
            let newNulls = newCount - result.insertedCount - result.changedCount - result.unchangedCount
            if oldNulls > 0 || newNulls > 0 {
                notes.append("left out, their match key is null: \(oldNulls) old, \(newNulls) new")
            }
        }
        result.notes = notes
        return result
    }

    /// The entity's own rows in `store` (not its sub-entities').
    private func count(_ store: SQLiteStore, _ mapping: SQLiteSchema.EntityMapping?) throws -> Int {
        guard let mapping else { return 0 }
        return try store.readStatement { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(mapping.table) WHERE Z_ENT = ?", arguments: [mapping.number]) ?? 0
        }
    }

    /// The attributes and to-one relationships compared, paired across the two models.
    private func fields(
        _ pair: EntityPair, keys: [String: MatchKey],
        notes: inout [String]
    ) -> [StoreDiffField] {
        var fields: [StoreDiffField] = []
        var usedOld = Set<String>()
        if let n = pair.new {
            for a in n.allAttributes where !a.isTransient {
                let oa = pair.old.flatMap { Self.counterpart(of: a, in: $0) }
                if let oa, oa.isTransient { continue }
                if let oa {
                    usedOld.insert(oa.name)
                    if oa.name != a.name { notes.append("attribute \(oa.name) renamed \(a.name)") }
                } else if pair.old != nil {
                    notes.append("attribute \(a.name) only in the new model (compared with null)")
                }
                fields.append(StoreDiffField(
                    name: a.name, kind: .attribute(old: oa?.type, new: a.type),
                    oldExpression: oa.flatMap { o in pair.old.flatMap { Self.column(o, of: $0, in: old) } },
                    newExpression: Self.column(a, of: n, in: new)))
            }
        }
        if let o = pair.old {
            for a in o.allAttributes where !a.isTransient && !usedOld.contains(a.name) {
                if pair.new != nil { notes.append("attribute \(a.name) only in the old model (compared with null)") }
                fields.append(StoreDiffField(
                    name: a.name, kind: .attribute(old: a.type, new: nil),
                    oldExpression: Self.column(a, of: o, in: old), newExpression: nil))
            }
        }
        guard let o = pair.old, let n = pair.new else { return fields }
        for r in n.allRelationships where !r.isToMany && !r.isTransient {
            guard let or = (r.renamingIdentifier.flatMap { o.relationship(named: $0) } ?? o.relationship(named: r.name)),
                !or.isToMany, !or.isTransient
            else { continue }
            let oe = toOneExpression(or, of: o, in: old, keys: keys, isOld: true)
            let ne = toOneExpression(r, of: n, in: new, keys: keys, isOld: false)
            guard let oe, let ne else {
                notes.append("relationship \(r.name) not compared: its destination \(r.destinationEntityName) has no match key")
                continue
            }
            fields.append(StoreDiffField(
                name: r.name, kind: .toOne(destination: r.destinationEntityName), oldExpression: oe, newExpression: ne))
        }
        return fields
    }

    /// The merge walk: rows only in the old store are deleted, only in the new inserted, in both compared.
    private func walk(
        _ oldCursor: StoreDiffCursor, _ newCursor: StoreDiffCursor, fields: [StoreDiffField], into result: inout EntityDiff,
        notes: inout [String], byPrimaryKey: Bool
    ) throws {
        let limit = options.changeLimit ?? Int.max
        var o = try oldCursor.next()
        var n = try newCursor.next()
        var previous: (old: DatabaseValue?, new: DatabaseValue?) = (nil, nil)
        var duplicates = (old: 0, new: 0)
        func key(_ v: DatabaseValue, _ row: StoreDiffRow, old: Bool) -> AttributeValue {
            byPrimaryKey ? .integer(row.primaryKey) : Self.decodeKey(v)
        }
        while o != nil || n != nil {
            if let orow = o, previous.old == orow.key, !byPrimaryKey { duplicates.old += 1 }
            if let nrow = n, previous.new == nrow.key, !byPrimaryKey { duplicates.new += 1 }
            let order: Int
            switch (o, n) {
            case let (orow?, nrow?): order = StoreDiffKeyOrder.compare(orow.key, nrow.key)
            case (_?, nil): order = -1
            default: order = 1
            }
            if order < 0, let orow = o {
                result.deletedCount += 1
                if result.deleted.count < limit {
                    result.deleted.append(ObjectReference(key: key(orow.key, orow, old: true), primaryKey: orow.primaryKey))
                }
                previous.old = orow.key
                o = try oldCursor.next()
            } else if order > 0, let nrow = n {
                result.insertedCount += 1
                if result.inserted.count < limit {
                    result.inserted.append(ObjectReference(key: key(nrow.key, nrow, old: false), primaryKey: nrow.primaryKey))
                }
                previous.new = nrow.key
                n = try newCursor.next()
            } else if let orow = o, let nrow = n {
                let (attributes, relationships) = Self.compare(orow, nrow, fields: fields)
                if attributes.isEmpty && relationships.isEmpty {
                    result.unchangedCount += 1
                } else {
                    result.changedCount += 1
                    if result.changed.count < limit {
                        result.changed.append(ObjectChange(
                            key: key(nrow.key, nrow, old: false), oldPrimaryKey: orow.primaryKey,
                            newPrimaryKey: nrow.primaryKey, attributes: attributes, relationships: relationships))
                    }
                }
                previous = (orow.key, nrow.key)
                o = try oldCursor.next()
                n = try newCursor.next()
            }
        }
        if duplicates.old > 0 || duplicates.new > 0 {
            notes.append(
                "match key not unique: \(duplicates.old) old and \(duplicates.new) new objects repeat a key (paired in primary key order)")
        }
    }

    /// A match key's value as read (text, numbers, blobs; UUID blobs as UUIDs).
    static func decodeKey(_ v: DatabaseValue) -> AttributeValue {
        switch v.storage {
        case .null: .null
        case let .int64(i): .integer(i)
        case let .double(d): .double(d)
        case let .string(s): .string(s)
        case let .blob(b): SQLiteValueCodec.value(blob: b, type: b.count == 16 ? .uuid : .binaryData)
        }
    }

    /// The differences between two matched rows.
    private static func compare(_ o: StoreDiffRow, _ n: StoreDiffRow, fields: [StoreDiffField]) -> ([AttributeChange], [RelationshipChange]) {
        var attributes: [AttributeChange] = []
        var relationships: [RelationshipChange] = []
        for (i, field) in fields.enumerated() {
            let ov = o.values[i], nv = n.values[i]
            if ov == nv { continue }
            switch field.kind {
            case let .attribute(oldType, newType):
                let od = oldType.map { SQLiteValueCodec.value(ov, type: $0) } ?? .null
                let nd = newType.map { SQLiteValueCodec.value(nv, type: $0) } ?? .null
                if od != nd { attributes.append(AttributeChange(name: field.name, old: od, new: nd)) }
            case let .toOne(destination):
                relationships.append(RelationshipChange(
                    name: field.name, destinationEntity: destination, old: decodeKey(ov), new: decodeKey(nv)))
            }
        }
        return (attributes, relationships)
    }
}
