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
                    arguments: SQLiteRawBinding.arguments(
                        [root.number.databaseValue, root.entity.name.databaseValue, count.databaseValue], in: db))
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
        guard let plan = entityPlan(number: mapping.number) else { throw CoreStackError.unknownEntity(id.entity.name) }
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
        let encodes = plan.entity.hasExternalBinaryData
        for (slot, type) in plan.writtenAttributes {
            let value = slot < change.values.count ? change.values[slot] : .null
            // Allows External Storage: Core Data's marker byte (entities without such slots skip it).
            if encodes, plan.entity.externalBinarySlots.contains(slot) {
                try SQLiteRawBinding.bind(h, i, SQLiteExternalBinaryData.encode(value), type: type)
            } else {
                try SQLiteRawBinding.bind(h, i, value, type: type)
            }
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

    /// The writer of `id`'s entity: `last` when it is the same entity (a run of rows of one
    /// entity looks nothing up), else the one in `writers`, else a new one with `sql`'s statement.
    private func writer(
        for id: ManagedObjectID, last: inout RowWriter?, in writers: inout [ObjectIdentifier: RowWriter], _ db: Database,
        sql: (EntityPlan) -> String
    ) throws -> RowWriter {
        let entityKey = ObjectIdentifier(id.entity)
        if let last, last.entity == entityKey { return last }
        let writer: RowWriter
        if let known = writers[entityKey] {
            writer = known
        } else {
            let plan = try self.plan(for: id)
            writer = RowWriter(entity: entityKey, plan: plan, statement: try db.cachedStatement(sql: sql(plan)))
            writers[entityKey] = writer
        }
        last = writer
        return writer
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

            // One plan and statement lookup per run of rows of one entity, not per row: the
            // lookup hashes, and each row is read in place (a copy of a change retains its arrays).
            // The order keys of members of ordered to-manys kept by foreign keys: a member inserted
            // in this save gets its key in its INSERT (and is taken out of this table); the rest
            // are written by the to-many writes below, one UPDATE each.
            var orderKeys = try pendingOrderKeys(request)
            var inserters: [ObjectIdentifier: RowWriter] = [:]
            var lastInserter: RowWriter?
            for i in request.inserted.indices {
                let writer = try self.writer(for: request.inserted[i].objectID, last: &lastInserter, in: &inserters, db) { $0.insertSQL }
                let pk = try key(request.inserted[i].objectID)
                let version = try nextVersion(request.inserted[i])
                let h = writer.statement.sqliteStatement
                SQLiteRawBinding.bind(h, 1, pk)
                SQLiteRawBinding.bind(h, 2, Int64(writer.plan.mapping.number))
                SQLiteRawBinding.bind(h, 3, version)
                var p = try bindColumns(request.inserted[i], plan: writer.plan, to: h, from: 4)
                let columns = writer.plan.insertedOrderColumns
                if !columns.isEmpty {
                    // Every order column bound, NULL when no ordered relationship holds the row
                    // (the statement is cached: an unbound parameter would keep the last row's key).
                    // Keys this insert cannot write all of stay for the UPDATEs.
                    let id = request.inserted[i].objectID
                    var keys: PendingOrderKeys?
                    if let pending = orderKeys[id], pending.allColumns({ columns.contains($0) }) {
                        keys = pending
                        orderKeys[id] = nil
                    }
                    for column in columns {
                        if let k = keys?.key(for: column) {
                            SQLiteRawBinding.bind(h, p, k)
                        } else {
                            SQLiteRawBinding.bindNull(h, p)
                        }
                        p += 1
                    }
                }
                do {
                    try SQLiteRawBinding.step(writer.statement, in: db)
                } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY {
                    // A reserved ID inserted twice (or a key another writer took): the whole save
                    // rolls back, and the error names the ID rather than SQLite's constraint.
                    throw CoreStackError.rowExists(request.inserted[i].objectID)
                }
                writer.maxKey = max(writer.maxKey, pk)
            }

            var updaters: [ObjectIdentifier: RowWriter] = [:]
            var lastUpdater: RowWriter?
            for i in request.updated.indices {
                let writer = try self.writer(for: request.updated[i].objectID, last: &lastUpdater, in: &updaters, db) { $0.updateSQL }
                let pk = try key(request.updated[i].objectID)
                let version = try nextVersion(request.updated[i])
                let h = writer.statement.sqliteStatement
                var p = try bindColumns(request.updated[i], plan: writer.plan, to: h, from: 1)
                SQLiteRawBinding.bind(h, p, version); p += 1
                SQLiteRawBinding.bind(h, p, pk); p += 1
                SQLiteRawBinding.bind(h, p, request.updated[i].expectedVersion)
                try SQLiteRawBinding.step(writer.statement, in: db)
                if db.changesCount == 0 {
                    conflicts.append(MergeConflict(
                        objectID: request.updated[i].objectID, expectedVersion: request.updated[i].expectedVersion,
                        storeVersion: try currentVersion(db, table: writer.plan.mapping.table, pk: pk)))
                }
            }

            // By index, without concatenating: a copy of each change retains its arrays.
            var joinRows = Set<JoinRow>()
            for changes in [request.inserted, request.updated] {
                for i in changes.indices where !changes[i].toMany.isEmpty {
                    try writeToMany(db, changes[i], orderKeysLeft: orderKeys, joinRows: &joinRows)
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

            var maxKeys: [Int: Int64] = [:]
            for writer in inserters.values {
                maxKeys[writer.plan.rootNumber] = max(maxKeys[writer.plan.rootNumber] ?? 0, writer.maxKey)
            }
            for (root, maxKey) in maxKeys {
                try db.cachedStatement(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ? AND IFNULL(Z_MAX, 0) < ?")
                    .execute(arguments: [maxKey, root, maxKey])
            }
            // Every written row got expectedVersion + 1, which callers assume: nothing to list.
            return [:]
        }
    }

    /// The order key each member of an ordered to-many kept by foreign keys gets in this save,
    /// by member and order column (a batch insert's destination-key writes excepted: they write
    /// their own).
    private func pendingOrderKeys(_ request: StoreSaveRequest) throws -> [ManagedObjectID: PendingOrderKeys] {
        var keys: [ManagedObjectID: PendingOrderKeys] = [:]
        for changes in [request.inserted, request.updated] {
            for i in changes.indices where !changes[i].toMany.isEmpty {
                let plan = try plan(for: changes[i].objectID)
                for toMany in changes[i].toMany where !toMany.writesDestinationKeys {
                    guard toMany.slot >= 0, toMany.slot < plan.mapping.toMany.count,
                        case let .foreignKey(_, _, orderColumn?) = plan.mapping.toMany[toMany.slot]
                    else { continue }
                    for (n, dest) in toMany.current.enumerated() {
                        let key = Int64(n + 1) * Self.orderKeyStep
                        // In place when the member has keys already; else its first, held inline.
                        if keys[dest]?.append(column: orderColumn, key: key) == nil {
                            keys[dest] = PendingOrderKeys(column: orderColumn, key: key)
                        }
                    }
                }
            }
        }
        return keys
    }

    /// Writes the to-many changes of one inserted or updated row; order keys already written
    /// with an inserted member's row (those not in `orderKeysLeft`) are not written again.
    private func writeToMany(
        _ db: Database, _ change: StoreRowChange, orderKeysLeft: [ManagedObjectID: PendingOrderKeys],
        joinRows: inout Set<JoinRow>
    ) throws {
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
            try writeToMany(db, mapping: mapping, source: pk, change: toMany, orderKeysLeft: orderKeysLeft, joinRows: &joinRows)
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
        let entityNumber: Int64? = entityColumn == nil ? nil : Int64(try schema.mapping(for: entity).number)
        if let entityColumn { assignments.append("\(entityColumn) = ?") }
        if let orderColumn { assignments.append("\(orderColumn) = ?") }
        let statement = try db.cachedStatement(
            sql: "UPDATE \(table) SET \(assignments.joined(separator: ", ")), Z_OPT = IFNULL(Z_OPT, 0) + 1 WHERE Z_PK = ?")
        let h = statement.sqliteStatement
        let sourceKey = try key(source)
        for (i, dest) in change.current.enumerated() {
            var p: Int32 = 1
            SQLiteRawBinding.bind(h, p, sourceKey)
            p += 1
            if let entityNumber {
                SQLiteRawBinding.bind(h, p, entityNumber)
                p += 1
            }
            if orderColumn != nil {
                SQLiteRawBinding.bind(h, p, Int64(i + 1) * Self.orderKeyStep)
                p += 1
            }
            SQLiteRawBinding.bind(h, p, try key(dest))
            try SQLiteRawBinding.step(statement, in: db)
        }
    }

    // Each row of a to-many write binds its integers straight onto the statement (as the row
    // writes above do): through GRDB's `execute(arguments:)`, building the arguments cost more
    // than SQLite's own work for a join-table row (W7a: ~6 % of a save in `StatementArguments`).
    private func writeToMany(
        _ db: Database, mapping: SQLiteSchema.ToManyMapping, source: Int64, change: ToManyChange,
        orderKeysLeft: [ManagedObjectID: PendingOrderKeys], joinRows: inout Set<JoinRow>
    ) throws {
        switch mapping {
        case let .foreignKey(table, _, orderColumn):
            // The foreign keys arrive as the destinations' own row changes; only order keys are
            // ours, and those of members inserted in this save went in with their rows.
            guard let orderColumn else { return }
            var statement: Statement?
            for (i, dest) in change.current.enumerated() where orderKeysLeft[dest] != nil {
                let update = try statement ?? db.cachedStatement(sql: "UPDATE \(table) SET \(orderColumn) = ? WHERE Z_PK = ?")
                statement = update
                try step(update, in: db, Int64(i + 1) * Self.orderKeyStep, try key(dest))
            }
        case let .join(index, src, dst, orderColumn):
            let table = schema.joinTables[index].table.name
            if !change.removed.isEmpty {
                let statement = try db.cachedStatement(sql: "DELETE FROM \(table) WHERE \(src) = ? AND \(dst) = ?")
                for dest in change.removed { try step(statement, in: db, source, try key(dest)) }
            }
            if !change.added.isEmpty {
                // A link of a many-to-many arrives from both ends (each object's change lists the
                // other): the row is inserted once, the second end's INSERT OR IGNORE skipped.
                let sourceFirst = src < dst
                var statement: Statement?
                for dest in change.added {
                    let d = try key(dest)
                    guard joinRows.insert(JoinRow(table: index, first: sourceFirst ? source : d, second: sourceFirst ? d : source)).inserted
                    else { continue }
                    let insert = try statement ?? db.cachedStatement(sql: "INSERT OR IGNORE INTO \(table) (\(src), \(dst)) VALUES (?, ?)")
                    statement = insert
                    try step(insert, in: db, source, d)
                }
            }
            if let orderColumn {
                let statement = try db.cachedStatement(sql: "UPDATE \(table) SET \(orderColumn) = ? WHERE \(src) = ? AND \(dst) = ?")
                for (i, dest) in change.current.enumerated() {
                    try step(statement, in: db, Int64(i + 1) * Self.orderKeyStep, source, try key(dest))
                }
            }
        }
    }

    /// Binds `values` as parameters 1… of `statement` and steps it once.
    private func step(_ statement: Statement, in db: Database, _ values: Int64...) throws {
        SQLiteRawBinding.bind(statement.sqliteStatement, from: 1, values)
        try SQLiteRawBinding.step(statement, in: db)
    }
}

/// A join-table row a save has written: the table's index and the keys in its two columns, in
/// the columns' name order (so both ends of a link name the same row).
private struct JoinRow: Hashable {
    let table: Int
    let first: Int64
    let second: Int64
}

/// The plan and statement a save writes one entity's rows with, and the largest key it wrote.
private final class RowWriter {
    let entity: ObjectIdentifier
    let plan: SQLiteStore.EntityPlan
    let statement: Statement
    var maxKey: Int64 = 0

    init(entity: ObjectIdentifier, plan: SQLiteStore.EntityPlan, statement: Statement) {
        self.entity = entity
        self.plan = plan
        self.statement = statement
    }
}
