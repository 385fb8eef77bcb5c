import Foundation
import GRDB

extension SQLiteStore {
    /// Whether this store records history (opened with ``PersistentStoreOptions/persistentHistoryTracking``, writable).
    ///
    /// ```swift
    /// let store = try SQLiteStore(url: url, model: model, options: .init(persistentHistoryTracking: true))
    /// store.tracksPersistentHistory // true
    /// ```
    public var tracksPersistentHistory: Bool { historyTracker != nil }

    /// Whether the file holds Core Data's history tables (written by Core Data or by a CoreStack
    /// store that tracks history), whatever this store's options.
    ///
    /// ```swift
    /// if try store.hasPersistentHistory() { print(try store.execute(.fetchHistory(after: nil)).transactions.count) }
    /// ```
    public func hasPersistentHistory() throws -> Bool {
        try read { db in try HistoryReader.hasHistory(db) }
    }

    /// Runs a history request: fetches transactions with their changes, or deletes them.
    ///
    /// ```swift
    /// let recent = try store.execute(.fetchHistory(after: Date().addingTimeInterval(-60))).transactions
    /// let gone = try store.execute(.deleteHistory(before: recent.last?.token)).deletedCount
    /// ```
    /// - Throws: ``CoreStackError/invalidFetchRequest(_:)`` for a token of another store,
    ///   ``CoreStackError/readOnlyStore(_:)`` for a delete on a read-only store,
    ///   ``CoreStackError/storeCorrupted(path:reason:)`` for history rows holding values of the wrong type.
    public func execute(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        let reader = HistoryReader(path: path, storeIdentifier: identifier, layout: historyLayout, externalDataFolder: externalDataFolder)
        if request.isDelete {
            return .deleted(try write { db in try reader.delete(db, request) })
        }
        return .transactions(try read { db in try reader.fetch(db, request) })
    }

    /// The token of the last transaction in the store's history (transaction number 0 when there
    /// is none): fetch after it to see only what comes next.
    ///
    /// ```swift
    /// let start = try store.currentPersistentHistoryToken()
    /// ```
    public func currentPersistentHistoryToken() throws -> PersistentHistoryToken {
        PersistentHistoryToken(storeIdentifier: identifier, transactionNumber: try read { db in try HistoryReader.lastTransactionNumber(db) })
    }

    /// SQLite's `PRAGMA data_version` on the store's own connection: it changes when another
    /// connection (another process, another store object on the file) commits, never for this one's commits.
    func dataVersion() throws -> Int64 {
        try readStatement { db in try Self.dataVersion(db) }
    }

    /// `PRAGMA data_version` inside a read already open (0 when it reads as no integer).
    static func dataVersion(_ db: Database) throws -> Int64 {
        if case let .int64(v)? = try DatabaseValue.fetchOne(db, sql: "PRAGMA data_version")?.storage { return v }
        return 0
    }

    /// What the remote-change monitor reads after the data version moved, in one read
    /// transaction so that all of it is of one snapshot: the data version, the transactions after
    /// `number` with their changes and the number of the last one (transactions this store
    /// committed count for the number but are left out of the list) and the key fingerprint.
    /// Read apart, a save committing between the history read and the key read made its own key
    /// reservation look like another tool's write.
    func remoteChangeSnapshot(
        transactionsAfter number: Int64
    ) throws -> (version: Int64, transactions: [PersistentHistoryTransaction], last: Int64, keys: StoreKeyFingerprint) {
        let reader = HistoryReader(path: path, storeIdentifier: identifier, layout: historyLayout, externalDataFolder: externalDataFolder)
        let tables = schema.entityTables.map(\.name)
        let (version, all, keys) = try read { db -> (Int64, [PersistentHistoryTransaction], StoreKeyFingerprint) in
            let all = try reader.fetch(db, conditions: ["t.Z_PK > ?"], arguments: [number])
            return (try Self.dataVersion(db), all, try StoreKeyFingerprint(db, tables: tables, path: path))
        }
        let last = all.last?.transactionNumber ?? number
        guard let tracker = historyTracker else { return (version, all, last, keys) }
        return (version, all.filter { !tracker.takeOwn($0.transactionNumber) }, last, keys)
    }
}
