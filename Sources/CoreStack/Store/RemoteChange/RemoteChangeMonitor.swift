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

    init(store: SQLiteStore, coordinator: PersistentStoreCoordinator) throws {
        self.store = store
        self.coordinator = coordinator
        queue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(queue))
        store.historyTracker?.recordOwnTransactions()
        lastVersion = try store.dataVersion()
        lastTransaction = try store.currentPersistentHistoryToken().transactionNumber
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
        guard let version = try? store.dataVersion(), version != lastVersion else { return }
        lastVersion = version
        let noticed = Date()
        var transactions: [PersistentHistoryTransaction] = []
        var token: PersistentHistoryToken?
        let hasHistory = (try? store.hasPersistentHistory()) ?? false
        if hasHistory {
            guard let found = try? store.foreignTransactions(after: lastTransaction) else { return }
            lastTransaction = found.last
            // A commit that added no history (a key reservation before a save): nothing to report.
            if found.transactions.isEmpty { return }
            transactions = found.transactions
            token = PersistentHistoryToken(storeIdentifier: store.identifier, transactionNumber: found.last)
        }
        let change = RemoteStoreChange(
            storeURL: store.url, storeIdentifier: store.identifier, historyToken: token, transactions: transactions, noticedAt: noticed)
        coordinator.deliverRemoteChange(change, historyKnown: hasHistory)
    }
}
