import Foundation
import GRDB

extension SQLiteStore {
    /// Runs a batch update as one SQL `UPDATE` (bumping `Z_OPT`) and returns the IDs it changed.
    ///
    /// The values are bound as a save binds them (`SQLiteRawBinding`), not through GRDB: a
    /// string keeps the bytes after a NUL character (GRDB binds a string up to its first NUL), and
    /// a value SQLite refuses is an error, not GRDB's `fatalError`.
    ///
    /// - Throws: ``CoreStackError/sqlite(path:message:)`` for a value (or a predicate's) longer than
    ///   the connection can bind; nothing is changed then.
    public func executeBatchUpdate(_ request: StoreFetchRequest, values: [Int: AttributeValue]) throws -> [ManagedObjectID] {
        let mapping = try schema.mapping(for: request.entity)
        let entity = mapping.entity
        var sets: [String] = []
        var stored: [(value: AttributeValue, type: AttributeType)] = []
        for (slot, value) in values.sorted(by: { $0.key < $1.key }) {
            guard slot >= 0, slot < mapping.attributeColumns.count, let column = mapping.attributeColumns[slot] else {
                throw CoreStackError.invalidFetchRequest("batch update: attribute slot \(slot) of \(entity.name) is not stored")
            }
            sets.append("\(column) = ?")
            let encoded = entity.externalBinarySlots.contains(slot) ? SQLiteExternalBinaryData.encode(value) : value
            stored.append((encoded, entity.attributeTypes[slot]))
        }
        sets.append("Z_OPT = Z_OPT + 1")
        return try write { db in
            // The rows are chosen and changed in the same transaction.
            let ids = try objectIDs(db, request)
            try forEachChunk(ids.compactMap(\.primaryKey)) { keys in
                let sql = "UPDATE \(mapping.table) SET \(sets.joined(separator: ", ")) WHERE Z_PK IN (\(SQLiteRawBinding.placeholders(keys.count)))"
                let statement = try db.cachedStatement(sql: sql)
                let h = statement.sqliteStatement
                var i: Int32 = 1
                for (value, type) in stored {
                    try SQLiteRawBinding.bind(h, i, value, type: type)
                    i += 1
                }
                SQLiteRawBinding.bind(h, from: i, keys)
                try SQLiteRawBinding.step(statement, in: db)
            }
            return ids
        }
    }

    /// Runs a batch delete in SQL, applying the delete rules, and returns the deleted IDs and those whose relationships were nullified.
    public func executeBatchDelete(matching request: StoreFetchRequest?, objectIDs given: [ManagedObjectID]) throws -> SavedObjectIDs {
        try write { db in
            let ids = try request.map { try objectIDs(db, $0) } ?? given.filter { !$0.isTemporaryID }
            guard let first = ids.first else { return SavedObjectIDs() }
            let table = try schema.mapping(for: first.entity).table
            var byEntity: [ObjectIdentifier: (entity: EntityDescription, keys: [Int64])] = [:]
            for id in ids {
                guard let pk = id.primaryKey else { continue }
                guard try schema.mapping(for: id.entity).table == table else {
                    throw CoreStackError.invalidFetchRequest("batch delete: \(id) is not in the entity tree of \(first.entity.name)")
                }
                byEntity[ObjectIdentifier(id.entity), default: (id.entity, [])].keys.append(pk)
            }
            var updated = Set<ManagedObjectID>()
            for (entity, keys) in byEntity.values {
                for (slot, r) in entity.allRelationships.enumerated() where !r.isTransient {
                    updated.formUnion(try applyDeleteRule(db, entity: entity, slot: slot, keys: keys))
                }
            }
            try forEachChunk(ids.compactMap(\.primaryKey)) { keys in
                try db.execute(sql: "DELETE FROM \(table) WHERE Z_PK IN (\(SQLiteRawBinding.placeholders(keys.count)))", arguments: StatementArguments(keys))
            }
            let deleted = Set(ids)
            return SavedObjectIDs(updated: updated.subtracting(deleted), deleted: deleted)
        }
    }

    /// Applies one relationship's delete rule for the rows `keys` of `entity` about to be
    /// deleted: nullify (and no action) clears the destinations' side and returns their IDs;
    /// deny and cascade throw when a destination exists.
    private func applyDeleteRule(_ db: Database, entity: EntityDescription, slot: Int, keys: [Int64]) throws -> [ManagedObjectID] {
        let r = entity.allRelationships[slot]
        let mapping = try schema.mapping(for: entity)
        let dest = entity.destinations[slot]
        let destMapping = try schema.mapping(for: dest)
        let inverse = entity.inverseSlots[slot]
        let token = StoreIdentifiers.token(for: identifier)
        // The destinations: (SQL selecting Z_PK, Z_ENT of destination rows for `?` keys).
        var select: String
        var nullify: [String] = []
        if let toOne = slot < mapping.toOne.count ? mapping.toOne[slot] : nil {
            select = "SELECT d.Z_PK, d.Z_ENT FROM \(destMapping.table) d WHERE d.Z_PK IN (SELECT s.\(toOne.column) FROM \(mapping.table) s WHERE s.Z_PK IN (%@))"
            // A one-to-one's other side holds a foreign key to the deleted rows.
            if let inverse, let back = inverse < destMapping.toOne.count ? destMapping.toOne[inverse] : nil {
                let columns = [back.column] + (back.entityColumn.map { [$0] } ?? [])
                nullify.append("UPDATE \(destMapping.table) SET \(columns.map { "\($0) = NULL" }.joined(separator: ", ")), Z_OPT = Z_OPT + 1 WHERE \(back.column) IN (%@)")
            }
        } else if let toMany = slot < mapping.toMany.count ? mapping.toMany[slot] : nil {
            switch toMany {
            case let .foreignKey(destTable, column, orderColumn):
                select = "SELECT d.Z_PK, d.Z_ENT FROM \(destTable) d WHERE d.\(column) IN (%@)"
                var columns = [column] + (orderColumn.map { [$0] } ?? [])
                if let inverse, let back = inverse < destMapping.toOne.count ? destMapping.toOne[inverse] : nil, let e = back.entityColumn {
                    columns.append(e)
                }
                nullify.append("UPDATE \(destTable) SET \(columns.map { "\($0) = NULL" }.joined(separator: ", ")), Z_OPT = Z_OPT + 1 WHERE \(column) IN (%@)")
            case let .join(index, src, dst, _):
                let jt = schema.joinTables[index].table.name
                select = "SELECT d.Z_PK, d.Z_ENT FROM \(jt) j JOIN \(destMapping.table) d ON d.Z_PK = j.\(dst) WHERE j.\(src) IN (%@)"
                nullify.append("DELETE FROM \(jt) WHERE \(src) IN (%@)")
            }
        } else {
            return []
        }
        var found: [ManagedObjectID] = []
        // The file's values, checked: a Z_ENT of another type is a damaged store, not a trap.
        let decoder = StoreFileDecoder(path: path, table: destMapping.table)
        try forEachChunk(keys) { chunk in
            let sql = select.replacingOccurrences(of: "%@", with: SQLiteRawBinding.placeholders(chunk.count))
            for row in try Row.fetchAll(db, sql: sql, arguments: StatementArguments(chunk)) {
                guard let pk = try decoder.integer(row, 0, column: "Z_PK", row: "?") else { continue }
                guard let n = try decoder.integer(row, 1, column: "Z_ENT", row: "Z_PK = \(pk)") else { continue }
                let e = Int(exactly: n).flatMap { schema.entity(number: $0) } ?? dest
                found.append(ManagedObjectID(entity: e, storeToken: token, primaryKey: pk))
            }
        }
        guard !found.isEmpty else { return [] }
        switch r.deleteRule {
        case .deny:
            throw CoreStackError.deleteDenied(entity: entity.name, relationship: r.name, objectID: found[0].description)
        case .cascade:
            throw CoreStackError.invalidFetchRequest(
                "batch delete cannot cascade \(entity.name).\(r.name): \(found.count) destination(s) exist (\(found[0])); delete these objects with a context")
        case .noAction:
            // The destinations keep pointing at the deleted rows, as the rule says.
            return []
        case .nullify:
            for statement in nullify {
                try forEachChunk(keys) { chunk in
                    try db.execute(sql: statement.replacingOccurrences(of: "%@", with: SQLiteRawBinding.placeholders(chunk.count)), arguments: StatementArguments(chunk))
                }
            }
            return found
        }
    }


    private func forEachChunk(_ keys: [Int64], _ body: ([Int64]) throws -> Void) throws {
        var start = 0
        while start < keys.count {
            try body(Array(keys[start..<min(start + Self.batchSize, keys.count)]))
            start += Self.batchSize
        }
    }
}
