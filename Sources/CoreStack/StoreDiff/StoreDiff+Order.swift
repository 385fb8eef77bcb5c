import GRDB

// Order moves of ordered to-many relationships: for each owner in both stores, its members' keys
// in each store's order, compared (StoreDiffOrderMoves).
extension StoreDiff {
    /// The ordered to-many relationships of the entity whose shared members changed order: for
    /// each relationship ordered on both sides, a merge walk of both stores' owners in key order.
    func diffOrders(
        _ pair: EntityPair, oldKey: String?, newKey: String?,
        keys: [String: MatchKey],
        into result: inout EntityDiff, notes: inout [String]
    ) throws {
        guard let o = pair.old, let n = pair.new else { return }
        let limit = options.changeLimit ?? Int.max
        for r in n.allRelationships where r.isToMany && r.isOrdered && !r.isTransient {
            guard let or = (r.renamingIdentifier.flatMap { o.relationship(named: $0) } ?? o.relationship(named: r.name)),
                or.isToMany, or.isOrdered, !or.isTransient
            else { continue }
            if !matchesByPrimaryKey, keys[r.destinationEntityName] == nil {
                notes.append("order of \(r.name) not compared: its destination \(r.destinationEntityName) has no match key")
                continue
            }
            guard let oc = orderCursor(or, of: o, in: old, ownerKey: oldKey, keys: keys, isOld: true),
                let nc = orderCursor(r, of: n, in: new, ownerKey: newKey, keys: keys, isOld: false)
            else { continue }
            var a = try oc.next()
            var b = try nc.next()
            while let x = a, let y = b {
                let order = StoreDiffKeyOrder.compare(x.key, y.key)
                if order < 0 {
                    a = try oc.next()
                } else if order > 0 {
                    b = try nc.next()
                } else {
                    let moves = StoreDiffOrderMoves.moves(old: x.members, new: y.members)
                    if !moves.isEmpty {
                        result.reorderedCount += 1
                        if result.reorders.count < limit {
                            result.reorders.append(RelationshipOrderChange(
                                relationship: r.name, source: oldKey == nil ? .integer(y.primaryKey) : Self.decodeKey(y.key),
                                oldPrimaryKey: x.primaryKey, newPrimaryKey: y.primaryKey, destinationEntity: r.destinationEntityName,
                                oldCount: x.members.count, newCount: y.members.count,
                                moves: moves.map {
                                    RelationshipOrderMove(destination: Self.decodeKey($0.member), oldIndex: $0.oldIndex, newIndex: $0.newIndex)
                                }))
                        }
                    }
                    a = try oc.next()
                    b = try nc.next()
                }
            }
        }
    }

    /// The cursor over the owners of ordered relationship `r` of `entity` in `store` and their
    /// members' keys in order; nil when it has no order column or its destination cannot be matched.
    private func orderCursor(
        _ r: RelationshipDescription, of entity: EntityDescription, in store: SQLiteStore, ownerKey: String?,
        keys: [String: MatchKey], isOld: Bool
    ) -> StoreDiffOrderCursor? {
        guard let mapping = try? store.schema.mapping(for: entity),
            let slot = entity.allRelationships.firstIndex(where: { $0.name == r.name }), slot < mapping.toMany.count
        else { return nil }
        let join: String, memberPK: String, order: String
        switch mapping.toMany[slot] {
        case let .foreignKey(table, column, orderColumn?)?:
            // The members' rows hold the owner's key and their place.
            (join, memberPK, order) = ("LEFT JOIN \(table) m ON m.\(column) = o.pk", "m.Z_PK", "m.\(orderColumn), m.Z_PK")
        case let .join(index, source, destination, orderColumn?)? where index < store.schema.joinTables.count:
            let table = store.schema.joinTables[index].table.name
            (join, memberPK, order) = ("LEFT JOIN \(table) m ON m.\(source) = o.pk", "m.\(destination)", "m.\(orderColumn), m.\(destination)")
        default:
            return nil
        }
        let member = matchesByPrimaryKey
            ? memberPK
            : destinationKey(r.destinationEntityName, foreignKey: memberPK, in: store, keys: keys, isOld: isOld)
        guard let member else { return nil }
        return StoreDiffOrderCursor(
            store: store, ownerTable: mapping.table, number: mapping.number, ownerKey: ownerKey, join: join, member: member,
            order: order, chunkSize: options.chunkSize)
    }
}
