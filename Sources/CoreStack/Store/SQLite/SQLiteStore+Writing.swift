import Foundation
import GRDB
import GRDBSQLite

extension SQLiteStore {
    /// The gap between the order keys (`Z_FOK_…`) of consecutive members of an ordered relationship.
    static let orderKeyStep: Int64 = 1024

    /// Reserves `count` keys by raising `Z_PRIMARYKEY.Z_MAX` of the entity's root, in a transaction of its own.
    public func newPrimaryKeys(for entity: EntityDescription, count: Int) throws -> [Int64] {
        guard count > 0 else { return [] }
        let root = try schema.mapping(for: entity.rootEntity)
        return try write { db in
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = IFNULL(Z_MAX, 0) + ? WHERE Z_ENT = ?", arguments: [count, root.number])
            if db.changesCount == 0 {
                try db.execute(
                    sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, 0, ?)",
                    arguments: [root.number, root.entity.name, count])
            }
            let max = try Self.primaryKeyMax(db, entityNumber: root.number, path: path) ?? Int64(count)
            guard max >= Int64(count), max < Int64.max - Int64(count) else {
                throw CoreStackError.storeCorrupted(
                    path: path, reason: "Z_PRIMARYKEY.Z_MAX of the row Z_ENT = \(root.number) holds \(max), out of range")
            }
            return Array((max - Int64(count) + 1)...max)
        }
    }

    private func plan(for id: ManagedObjectID) throws -> EntityPlan {
        let mapping = try schema.mapping(for: id.entity)
        guard let plan = entityPlans[mapping.number] else { throw CoreStackError.unknownEntity(id.entity.name) }
        return plan
    }

    private func key(_ id: ManagedObjectID) throws -> Int64 {
        guard let pk = id.primaryKey else {
            throw CoreStackError.objectNotFound("\(id) is temporary: a store saves permanent IDs only")
        }
        return pk
    }

    /// Binds the values of an insert or update onto `h` from parameter `start`, in the plan's
    /// column order, and returns the next parameter index.
    private func bindColumns(_ change: StoreRowChange, plan: EntityPlan, to h: SQLiteStatement, from start: Int32) throws -> Int32 {
        var i = start
        for (slot, type) in plan.writtenAttributes {
            SQLiteRawBinding.bind(h, i, slot < change.values.count ? change.values[slot] : .null, type: type)
            i += 1
        }
        for (slot, hasEntityColumn) in plan.writtenToOnes {
            if slot < change.toOne.count, let dest = change.toOne[slot] {
                SQLiteRawBinding.bind(h, i, try key(dest))
                if hasEntityColumn {
                    i += 1
                    SQLiteRawBinding.bind(h, i, Int64(try schema.mapping(for: dest.entity).number))
                }
            } else {
                SQLiteRawBinding.bindNull(h, i)
                if hasEntityColumn {
                    i += 1
                    SQLiteRawBinding.bindNull(h, i)
                }
            }
            i += 1
        }
        return i
    }

    /// The version a save writes for `change`: one more than the version read.
    private func nextVersion(_ change: StoreRowChange) throws -> Int64 {
        let (next, overflow) = change.expectedVersion.addingReportingOverflow(1)
        guard !overflow else {
            throw CoreStackError.storeCorrupted(
                path: path, reason: "\(change.objectID) has version \(change.expectedVersion), the largest integer: it cannot be saved again")
        }
        return next
    }

    private func currentVersion(_ db: Database, table: String, pk: Int64) throws -> Int64 {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT Z_OPT FROM \(table) WHERE Z_PK = ?"), arguments: [pk]) else {
            return 0
        }
        return try StoreFileDecoder(path: path, table: table).integer(row, 0, column: "Z_OPT", row: "Z_PK = \(pk)") ?? 0
    }

    /// Writes one save in one transaction: inserts with `Z_OPT` 1, updates and deletes guarded by `Z_OPT`, join-table and order-key changes, `Z_MAX`; throws ``CoreStackError/mergeConflict(_:)`` listing every stale row and writes nothing then.
    public func save(_ request: StoreSaveRequest) throws -> [ManagedObjectID: Int64] {
        if request.isEmpty { return [:] }
        return try write { db in
            historyTracker?.beginSave(request) { try? schema.mapping(for: $0).number }
            var conflicts: [MergeConflict] = []
            var maxKeys: [Int: Int64] = [:]

            // One plan and statement lookup per entity, not per row (both hash strings).
            var insertPlans: [ObjectIdentifier: (EntityPlan, Statement)] = [:]
            for change in request.inserted {
                let entityKey = ObjectIdentifier(change.objectID.entity)
                let plan: EntityPlan
                let statement: Statement
                if let memo = insertPlans[entityKey] {
                    (plan, statement) = memo
                } else {
                    plan = try self.plan(for: change.objectID)
                    statement = try db.cachedStatement(sql: plan.insertSQL)
                    insertPlans[entityKey] = (plan, statement)
                }
                let pk = try key(change.objectID)
                let version = try nextVersion(change)
                let h = statement.sqliteStatement
                SQLiteRawBinding.bind(h, 1, pk)
                SQLiteRawBinding.bind(h, 2, Int64(plan.mapping.number))
                SQLiteRawBinding.bind(h, 3, version)
                _ = try bindColumns(change, plan: plan, to: h, from: 4)
                try SQLiteRawBinding.step(statement, in: db)
                let root = plan.rootNumber
                maxKeys[root] = max(maxKeys[root] ?? 0, pk)
            }

            var updatePlans: [ObjectIdentifier: (EntityPlan, Statement)] = [:]
            for change in request.updated {
                let entityKey = ObjectIdentifier(change.objectID.entity)
                let plan: EntityPlan
                let statement: Statement
                if let memo = updatePlans[entityKey] {
                    (plan, statement) = memo
                } else {
                    plan = try self.plan(for: change.objectID)
                    statement = try db.cachedStatement(sql: plan.updateSQL)
                    updatePlans[entityKey] = (plan, statement)
                }
                let pk = try key(change.objectID)
                let version = try nextVersion(change)
                let h = statement.sqliteStatement
                var i = try bindColumns(change, plan: plan, to: h, from: 1)
                SQLiteRawBinding.bind(h, i, version); i += 1
                SQLiteRawBinding.bind(h, i, pk); i += 1
                SQLiteRawBinding.bind(h, i, change.expectedVersion)
                try SQLiteRawBinding.step(statement, in: db)
                if db.changesCount == 0 {
                    conflicts.append(MergeConflict(
                        objectID: change.objectID, expectedVersion: change.expectedVersion,
                        storeVersion: try currentVersion(db, table: plan.mapping.table, pk: pk)))
                }
            }

            // By index, without concatenating: a copy of each change retains its arrays.
            for changes in [request.inserted, request.updated] {
                for i in changes.indices where !changes[i].toMany.isEmpty {
                    try writeToMany(db, changes[i])
                }
            }

            for deletion in request.deleted {
                let plan = try plan(for: deletion.objectID)
                let pk = try key(deletion.objectID)
                try db.cachedStatement(sql: "DELETE FROM \(plan.mapping.table) WHERE Z_PK = ? AND Z_OPT = ?")
                    .execute(arguments: [pk, deletion.expectedVersion])
                if db.changesCount == 0 {
                    conflicts.append(MergeConflict(
                        objectID: deletion.objectID, expectedVersion: deletion.expectedVersion,
                        storeVersion: try currentVersion(db, table: plan.mapping.table, pk: pk)))
                    continue
                }
                for ref in plan.mapping.joinReferences {
                    let table = schema.joinTables[ref.table].table.name
                    try db.cachedStatement(sql: "DELETE FROM \(table) WHERE \(ref.column) = ?").execute(arguments: [pk])
                }
            }

            if !conflicts.isEmpty { throw CoreStackError.mergeConflict(conflicts) }

            for (root, maxKey) in maxKeys {
                try db.cachedStatement(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ? AND IFNULL(Z_MAX, 0) < ?")
                    .execute(arguments: [maxKey, root, maxKey])
            }
            // Every written row got expectedVersion + 1, which callers assume: nothing to list.
            return [:]
        }
    }

    /// Writes the to-many changes of one inserted or updated row.
    private func writeToMany(_ db: Database, _ change: StoreRowChange) throws {
        let plan = try plan(for: change.objectID)
        let pk = try key(change.objectID)
        for toMany in change.toMany {
            guard toMany.slot >= 0, toMany.slot < plan.mapping.toMany.count,
                let mapping = plan.mapping.toMany[toMany.slot]
            else { continue }
            if toMany.writesDestinationKeys, case let .foreignKey(table, column, orderColumn) = mapping {
                try writeDestinationKeys(db, table: table, column: column, orderColumn: orderColumn, source: change.objectID, change: toMany)
                continue
            }
            try writeToMany(db, mapping: mapping, source: pk, change: toMany)
        }
    }

    /// Points the foreign keys (and the destination-entity column, and order keys when ordered) of
    /// `change.current` at `source`, bumping their versions: a batch insert's one-to-many.
    private func writeDestinationKeys(
        _ db: Database, table: String, column: String, orderColumn: String?, source: ManagedObjectID, change: ToManyChange
    ) throws {
        let entity = source.entity
        guard let inverseSlot = entity.inverseSlots[change.slot] else { return }
        let entityColumn = try schema.mapping(for: entity.destinations[change.slot]).toOne[inverseSlot]?.entityColumn
        var assignments = ["\(column) = ?"]
        var arguments: [DatabaseValueConvertible] = [try key(source)]
        if let entityColumn {
            assignments.append("\(entityColumn) = ?")
            arguments.append(Int64(try schema.mapping(for: entity).number))
        }
        if let orderColumn { assignments.append("\(orderColumn) = ?") }
        let statement = try db.cachedStatement(
            sql: "UPDATE \(table) SET \(assignments.joined(separator: ", ")), Z_OPT = IFNULL(Z_OPT, 0) + 1 WHERE Z_PK = ?")
        for (i, dest) in change.current.enumerated() {
            var values = arguments
            if orderColumn != nil { values.append(Int64(i + 1) * Self.orderKeyStep) }
            values.append(try key(dest))
            try statement.execute(arguments: StatementArguments(values))
        }
    }

    private func writeToMany(_ db: Database, mapping: SQLiteSchema.ToManyMapping, source: Int64, change: ToManyChange) throws {
        switch mapping {
        case let .foreignKey(table, _, orderColumn):
            // The foreign keys arrive as the destinations' own row changes; only order keys are ours.
            guard let orderColumn else { return }
            let statement = try db.cachedStatement(sql: "UPDATE \(table) SET \(orderColumn) = ? WHERE Z_PK = ?")
            for (i, dest) in change.current.enumerated() {
                try statement.execute(arguments: [Int64(i + 1) * Self.orderKeyStep, try key(dest)])
            }
        case let .join(index, src, dst, orderColumn):
            let table = schema.joinTables[index].table.name
            if !change.removed.isEmpty {
                let statement = try db.cachedStatement(sql: "DELETE FROM \(table) WHERE \(src) = ? AND \(dst) = ?")
                for dest in change.removed { try statement.execute(arguments: [source, try key(dest)]) }
            }
            if !change.added.isEmpty {
                let statement = try db.cachedStatement(sql: "INSERT OR IGNORE INTO \(table) (\(src), \(dst)) VALUES (?, ?)")
                for dest in change.added { try statement.execute(arguments: [source, try key(dest)]) }
            }
            if let orderColumn {
                let statement = try db.cachedStatement(sql: "UPDATE \(table) SET \(orderColumn) = ? WHERE \(src) = ? AND \(dst) = ?")
                for (i, dest) in change.current.enumerated() {
                    try statement.execute(arguments: [Int64(i + 1) * Self.orderKeyStep, source, try key(dest)])
                }
            }
        }
    }
}
