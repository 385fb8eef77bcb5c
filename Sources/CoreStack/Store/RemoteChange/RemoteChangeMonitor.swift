import Foundation

/// Polls a store's `PRAGMA data_version` and hands each commit of another connection to the
/// coordinator (see ``RemoteChangeCenter`` for why polling).
///
/// `@unchecked Sendable`: `timer`, `lastVersion` and `lastTransaction` are used only on `queue`
/// (set up before the timer starts, then by the timer's handler and `stop()`, which runs on it).
final class RemoteChangeMonitor: @unchecked Sendable {
    private let store: SQLiteStore
    private weak var coordinator: PersistentStoreCoordinator?
    /// Serial: one poll at a time; the state below is used only on it.
    private let queue = DispatchQueue(label: "CoreStack.remoteChange.monitor")
    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()
    private var timer: (any DispatchSourceTimer)?
    private var lastVersion: Int64
    private var lastTransaction: Int64
    /// With history: the keys after the last commit seen, to tell a key reservation (no history,
    /// nothing to report) from another tool's write (no history, reported).
    private var lastKeys: StoreKeyFingerprint?
    /// The device and inode of the file at the store's path, as last seen (nil: no file).
    private var lastFile: StoreFileIdentity?
    /// ``SQLiteStore/ownWriteCount`` as last seen: this connection's own commits move the keys
    /// without moving the data version, so `lastKeys` is read again after them.
    private var lastOwnWrites = 0

    init(store: SQLiteStore, coordinator: PersistentStoreCoordinator) throws {
        self.store = store
        self.coordinator = coordinator
        queue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(queue))
        store.historyTracker?.recordOwnTransactions()
        lastVersion = try store.dataVersion()
        lastTransaction = try store.currentPersistentHistoryToken().transactionNumber
        lastOwnWrites = store.ownWriteCount.load(ordering: .relaxed)
        lastKeys = (try? store.hasPersistentHistory()) == true ? try? StoreKeyFingerprint(store) : nil
        lastFile = store.url.flatMap(StoreFileIdentity.init(url:))
    }

    func start(interval: Duration) {
        let (seconds, attoseconds) = interval.components
        let nanoseconds = max(1_000_000, Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds), leeway: .milliseconds(1))
        timer.setEventHandler { [weak self] in self?.poll() }
        queue.sync { self.timer = timer }
        timer.resume()
    }

    /// Stops polling; when it returns no poll runs any more, so once the monitor is released the
    /// store's connection closes at once (a caller removing the store can then touch the file).
    func stop() {
        let cancel = { [self] in
            timer?.cancel()
            timer = nil
        }
        if DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(queue) { cancel() } else { queue.sync(execute: cancel) }
    }

    deinit { timer?.cancel() }

    private func poll() {
        guard let coordinator else {
            timer?.cancel()
            return
        }
        // A closed store (removed from its coordinator next) has nothing more to report.
        guard !store.isClosed else { return }
        // Another process replaced (or deleted) the file at the path: the store's connection still
        // reads the old inode, whose data version never moves again. One stat(2) per poll.
        if let url = store.url {
            let file = StoreFileIdentity(url: url)
            if file != lastFile {
                lastFile = file
                let change = RemoteStoreChange(
                    storeURL: url, storeIdentifier: store.identifier, historyToken: nil, transactions: [], noticedAt: Date(),
                    kind: .fileReplaced)
                coordinator.deliverRemoteChange(change, historyKnown: false)
                return
            }
        }
        let ownWrites = store.ownWriteCount.load(ordering: .relaxed)
        let ownMoved = ownWrites != lastOwnWrites
        lastOwnWrites = ownWrites
        guard let version = try? store.dataVersion(), version != lastVersion else {
            // Only this connection committed: the keys it moved are the new baseline.
            if ownMoved, lastKeys != nil { lastKeys = try? StoreKeyFingerprint(store) }
            return
        }
        lastVersion = version
        let noticed = Date()
        var transactions: [PersistentHistoryTransaction] = []
        var token: PersistentHistoryToken?
        var kind = RemoteStoreChangeKind.commit
        var hasHistory = (try? store.hasPersistentHistory()) ?? false
        if hasHistory {
            // The history and the keys of one snapshot (only when the data version moved: a few
            // page reads per entity table); the version seen with them is the new baseline.
            guard let found = try? store.remoteChangeSnapshot(transactionsAfter: lastTransaction) else { return }
            lastVersion = found.version
            lastTransaction = found.last
            token = PersistentHistoryToken(storeIdentifier: store.identifier, transactionNumber: found.last)
            let keys: StoreKeyFingerprint? = found.keys
            defer { lastKeys = keys }
            if found.transactions.isEmpty {
                // A key reservation before a save (its history comes with the save): nothing to
                // report. When this connection also committed since the last poll, the baseline is
                // stale: any move of Z_MAX counts as a reservation then (a tool's write landing in
                // the same poll as one of this store's own saves goes unreported).
                if let keys, let earlier = lastKeys,
                    keys.isKeyReservation(after: earlier) || (ownMoved && keys.maxKeys != earlier.maxKeys)
                { return }
                // Another tool's write (sqlite3, a script): what changed is not known.
                kind = .commitWithoutHistory
                hasHistory = false
            } else {
                transactions = found.transactions
            }
        }
        let change = RemoteStoreChange(
            storeURL: store.url, storeIdentifier: store.identifier, historyToken: token, transactions: transactions, noticedAt: noticed,
            kind: kind)
        coordinator.deliverRemoteChange(change, historyKnown: hasHistory)
    }
}
