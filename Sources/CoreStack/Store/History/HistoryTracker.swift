import Foundation
import GRDB

/// Records a store's commits in Core Data's history tables, in each commit's own SQL transaction.
///
/// Temporary triggers on the store's connection note every row written to an entity table (so
/// saves, batch requests and any other write through the store are all recorded); at the end of
/// each write transaction ``flush(_:)`` turns the noted rows into one `ATRANSACTION` row and its
/// `ACHANGE` rows, coalescing several writes of one object (insert then update is an insert,
/// insert then delete is nothing).
///
/// `@unchecked Sendable`: `saveInfo`, `ownTransactions` and `recordsOwn` are read and written
/// only under `lock`; the rest is `let`, and the triggers' state lives in the store's
/// connection, which GRDB's queue serialises.
final class HistoryTracker: @unchecked Sendable {
    let layout: HistoryLayout

    /// What the save being written adds to the noted rows.
    struct SaveInfo {
        var author: String?
        var contextName: String?
        /// Relationship bits of to-many changes (no column of the object's own row changes for those).
        var toMany: [Key: [Int]] = [:]
    }

    struct Key: Hashable {
        var entity: Int
        var pk: Int64
    }

    private struct Event {
        var table: Int
        var kind: PersistentHistoryChange.ChangeType
        var masks: [Int64]
        var tombstones: [DatabaseValue]
        var extraBits: Set<Int> = []
    }

    private let lock = NSLock()
    private var saveInfo: SaveInfo?
    /// Transactions this store committed, not yet seen by the remote-change monitor (kept only
    /// while one watches, see ``recordsOwnTransactions``).
    private var ownTransactions: Set<Int64> = []
    private var recordsOwn = false

    /// The executable's name, recorded as the bundle ID (Linux has no bundles).
    static let bundleID = ProcessInfo.processInfo.processName
    /// The process ID, as text.
    static let processID = String(ProcessInfo.processInfo.processIdentifier)

    /// The store file (for errors).
    let path: String

    init(layout: HistoryLayout, path: String) {
        self.layout = layout
        self.path = path
    }

    /// Creates the history tables (when missing) and the connection's triggers.
    func install(_ db: Database) throws {
        try layout.installTables(db)
        for sql in layout.temporaryStatements { try db.execute(sql: sql) }
    }

    /// Notes the author, context name and to-many changes of the save about to be written.
    func beginSave(_ request: StoreSaveRequest, number: (EntityDescription) -> Int?) {
        var info = SaveInfo(author: request.transactionAuthor, contextName: request.contextName)
        for change in request.updated where !change.toMany.isEmpty {
            guard let pk = change.objectID.primaryKey, let n = number(change.objectID.entity) else { continue }
            let attributeCount = change.objectID.entity.allAttributes.count
            info.toMany[Key(entity: n, pk: pk), default: []].append(contentsOf: change.toMany.map { attributeCount + $0.slot })
        }
        lock.withLock { saveInfo = info }
    }

    /// Whether a transaction was committed by this store (and forgets it).
    func takeOwn(_ number: Int64) -> Bool {
        lock.withLock { ownTransactions.remove(number) != nil }
    }

    /// Starts keeping the numbers of the transactions this store commits, for a remote-change
    /// monitor to tell them from other connections' (it takes each one back with ``takeOwn(_:)``).
    func recordOwnTransactions() {
        lock.withLock { recordsOwn = true }
    }

    /// Drops the save info of a write that failed, and the transaction it did not commit.
    func abandon(_ number: Int64?) {
        lock.withLock {
            saveInfo = nil
            if let number { ownTransactions.remove(number) }
        }
    }

    /// Writes the history of the rows the triggers noted since the last call, as one transaction;
    /// returns its number, or nil when no entity row was written. Runs inside the write transaction.
    func flush(_ db: Database) throws -> Int64? {
        let info = lock.withLock {
            let i = saveInfo
            saveInfo = nil
            return i
        }
        let pending = HistoryLayout.pendingTable
        var order: [Key] = []
        var ordered: Set<Key> = []
        var events: [Key: Event] = [:]
        let maskCount = layout.maskChunks, tombCount = layout.tombstoneWidth
        let select = "SELECT tbl, ent, pk, kind" + (0..<maskCount).map { ", m\($0)" }.joined()
            + (0..<tombCount).map { ", t\($0)" }.joined() + " FROM \(pending) ORDER BY seq"
        let rows = try Row.fetchAll(db.cachedStatement(sql: select))
        if rows.isEmpty { return nil }
        try db.execute(sql: "DELETE FROM \(pending)")
        for row in rows {
            let values = Array(row.databaseValues)
            guard case let .int64(table) = values[0].storage, case let .int64(ent) = values[1].storage,
                case let .int64(pk) = values[2].storage, case let .int64(k) = values[3].storage,
                let kind = PersistentHistoryChange.ChangeType(rawValue: Int(k))
            else { continue }
            let key = Key(entity: Int(ent), pk: pk)
            var masks: [Int64] = []
            for i in 0..<maskCount {
                if case let .int64(m) = values[4 + i].storage { masks.append(m) } else { masks.append(0) }
            }
            let tombs = Array(values[(4 + maskCount)...])
            let event = Event(table: Int(table), kind: kind, masks: masks, tombstones: tombs)
            guard var old = events[key] else {
                events[key] = event
                if ordered.insert(key).inserted { order.append(key) }
                continue
            }
            switch (old.kind, kind) {
            case (.insert, .update): continue
            case (.insert, .delete): events[key] = nil
            case (.update, .update):
                old.masks = zip(old.masks, masks).map { $0 | $1 }
                events[key] = old
            case (_, .delete): events[key] = event
            case (.delete, .insert): events[key] = Event(table: Int(table), kind: .update, masks: [], tombstones: [])
            default: events[key] = event
            }
        }
        for (key, bits) in info?.toMany ?? [:] {
            if events[key] == nil {
                guard let e = layout.entities[key.entity] else { continue }
                events[key] = Event(table: e.table, kind: .update, masks: [], tombstones: [])
                if ordered.insert(key).inserted { order.append(key) }
            }
            events[key]?.extraBits.formUnion(bits)
        }
        let live = order.filter { events[$0] != nil }
        if live.isEmpty { return nil }

        let transaction = try reserve(db, entity: HistoryLayout.transactionEntity, table: "ATRANSACTION", count: 1)
        let authorTS = try intern(db, info?.author)
        let contextTS = try intern(db, info?.contextName)
        let bundleTS = try intern(db, Self.bundleID)
        let processTS = try intern(db, Self.processID)
        try db.cachedStatement(
            sql: "INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP) VALUES (?, ?, NULL, ?, ?, ?, ?, ?)"
        ).execute(arguments: [
            transaction, HistoryLayout.transactionEntity, authorTS, bundleTS, contextTS, processTS,
            Date().timeIntervalSinceReferenceDate,
        ])
        var firstChange = try reserve(db, entity: HistoryLayout.changeEntity, table: "ACHANGE", count: Int64(live.count))
        let tombColumns = (0..<layout.changeTombstones).map { ", ZTOMBSTONE\($0)" }.joined()
        let insert = try db.cachedStatement(
            sql: "INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(tombColumns)) VALUES (?, ?, NULL, ?, ?, ?, ?, ?"
                + String(repeating: ", ?", count: layout.changeTombstones) + ")")
        for key in live {
            guard let event = events[key] else { continue }
            let entity = layout.entities[key.entity]
            var columns: DatabaseValue = .null
            var tombstones = [DatabaseValue](repeating: .null, count: layout.changeTombstones)
            switch event.kind {
            case .update:
                var bits = event.extraBits
                if let entity {
                    for (chunk, mask) in event.masks.enumerated() where mask != 0 {
                        for b in 0..<HistoryLayout.chunkBits where mask & (Int64(1) << Int64(b)) != 0 {
                            let column = chunk * HistoryLayout.chunkBits + b
                            if column < entity.bits.count, let bit = entity.bits[column] { bits.insert(bit) }
                        }
                    }
                }
                columns = HistoryLayout.columnsData(bits: bits, bitCount: entity?.bitCount ?? 0).databaseValue
            case .delete:
                for (k, t) in (entity?.tombstones ?? []).enumerated() where t.source < event.tombstones.count {
                    tombstones[k] = event.tombstones[t.source]
                }
            case .insert:
                break
            }
            try insert.execute(
                arguments: SQLiteRawBinding.arguments(
                    [
                        firstChange.databaseValue, HistoryLayout.changeEntity.databaseValue, event.kind.rawValue.databaseValue,
                        key.entity.databaseValue, key.pk.databaseValue, transaction.databaseValue, columns,
                    ] + tombstones, in: db))
            firstChange += 1
        }
        // Noted before the commit: the monitor reads on this same connection, so not before it ends.
        lock.withLock { if recordsOwn { ownTransactions.insert(transaction) } }
        return transaction
    }

    /// Reserves `count` keys of a history entity; returns the first.
    private func reserve(_ db: Database, entity: Int, table: String, count: Int64) throws -> Int64 {
        try db.cachedStatement(
            sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = MAX(IFNULL(Z_MAX, 0), IFNULL((SELECT MAX(Z_PK) FROM \(table)), 0)) + ? WHERE Z_ENT = ?"
        ).execute(arguments: [count, entity])
        let value = try DatabaseValue.fetchOne(
            db.cachedStatement(sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?"), arguments: [entity])
        guard case let .int64(max)? = value?.storage else {
            throw CoreStackError.storeCorrupted(path: path, reason: "Z_PRIMARYKEY.Z_MAX of the row Z_ENT = \(entity) is not an integer")
        }
        return max - count + 1
    }

    /// The `ATRANSACTIONSTRING` key of a string, added when new; nil for nil.
    private func intern(_ db: Database, _ string: String?) throws -> Int64? {
        guard let string else { return nil }
        // The author and context name come from the caller: checked before GRDB binds them.
        try SQLiteRawBinding.checkLengths([string.databaseValue], in: db)
        // Bound whole: GRDB would bind a string holding NUL up to the NUL.
        let whole = SQLiteWholeText.argument(string)
        let found = try DatabaseValue.fetchOne(
            db.cachedStatement(sql: "SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = \(SQLiteWholeText.parameter)"),
            arguments: [whole])
        if case let .int64(pk)? = found?.storage { return pk }
        let pk = try reserve(db, entity: HistoryLayout.stringEntity, table: "ATRANSACTIONSTRING", count: 1)
        try db.cachedStatement(
            sql: "INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, NULL, \(SQLiteWholeText.parameter))"
        ).execute(arguments: [pk, HistoryLayout.stringEntity, whole])
        return pk
    }
}
