import Foundation

/// A coordinator's remote-change observers, and the monitor that watches its store file when the
/// store was opened with ``PersistentStoreOptions/remoteChangeNotifications``.
///
/// How commits are noticed: SQLite's `PRAGMA data_version`, read on the store's own connection on
/// a timer (every ``PersistentStoreOptions/remoteChangePollInterval``, 20 ms by default). It
/// changes exactly when another connection commits (never for the store's own commits), costs a
/// read of the shared-memory WAL index and no file read, and works for every writer of the file.
/// File-system notifications on the `-wal` were not used: they fire on the store's own writes and
/// on checkpoints too, say nothing of commits, and miss writers in rollback-journal mode.
///
/// `@unchecked Sendable`: `observers`, `nextID` and `monitor` are read and written only under
/// `lock`; the queues are `let`s.
final class RemoteChangeCenter: @unchecked Sendable {
    private let lock = NSLock()
    private var nextID = 0
    private var observers: [(id: Int, queue: DispatchQueue, block: @Sendable (RemoteStoreChange) -> Void)] = []
    private var monitor: RemoteChangeMonitor?
    /// Where observers without a queue of their own are called, in order.
    let defaultQueue = DispatchQueue(label: "CoreStack.remoteChange.observers")
    /// Where ``Foundation/Notification/Name/persistentStoreRemoteChange`` is posted, in order:
    /// its `queue: nil` observers run here, apart from the poll and the observers above.
    let notificationQueue = DispatchQueue(label: "CoreStack.remoteChange.notifications")

    func addObserver(queue: DispatchQueue?, _ block: @escaping @Sendable (RemoteStoreChange) -> Void) -> Int {
        lock.withLock {
            nextID += 1
            observers.append((nextID, queue ?? defaultQueue, block))
            return nextID
        }
    }

    func removeObserver(_ id: Int) {
        lock.withLock { observers.removeAll { $0.id == id } }
    }

    func start(store: any PersistentStore, coordinator: PersistentStoreCoordinator) throws {
        guard let store = store as? SQLiteStore, store.options.remoteChangeNotifications else { return }
        let monitor = try RemoteChangeMonitor(store: store, coordinator: coordinator)
        // The old monitor is stopped after unlocking: its poll may be posting, which takes the lock.
        let replaced = lock.withLock {
            let old = self.monitor
            self.monitor = monitor
            return old
        }
        replaced?.stop()
        monitor.start(interval: store.options.remoteChangePollInterval)
    }

    func stop() {
        let m = lock.withLock {
            let m = monitor
            monitor = nil
            return m
        }
        m?.stop()
    }

    /// Calls every observer with `change`, each on its queue.
    func post(_ change: RemoteStoreChange) {
        let targets = lock.withLock { observers }
        for o in targets {
            let block = o.block
            o.queue.async { block(change) }
        }
    }

    deinit { monitor?.stop() }
}
