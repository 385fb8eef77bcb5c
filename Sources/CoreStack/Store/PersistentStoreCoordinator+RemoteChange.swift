import Foundation

extension PersistentStoreCoordinator {
    /// Calls `block` each time another connection (another process, another coordinator of this
    /// process) commits to the store, when the store was opened with
    /// ``PersistentStoreOptions/remoteChangeNotifications``. Noticed within
    /// ``PersistentStoreOptions/remoteChangePollInterval`` (20 ms by default).
    ///
    /// `block` runs on `queue`, or when nil on a serial queue of the coordinator (events in commit
    /// order). Before it runs, the row cache has dropped the rows the change touched (every row
    /// when the store keeps no history), and contexts with
    /// ``ManagedObjectContext/automaticallyMergesChangesFromParent`` have been handed the
    /// transactions to merge on their queues. On a store with history, an event carries the new
    /// transactions and comes only for commits that added some; without history it carries none.
    ///
    /// ```swift
    /// let observation = coordinator.addRemoteChangeObserver { change in
    ///     print("\(change.transactions.count) transactions, now at \(change.historyToken?.description ?? "-")")
    /// }
    /// ```
    /// Keep the returned observation: the observer goes when it is released.
    public func addRemoteChangeObserver(
        queue: DispatchQueue? = nil, _ block: @escaping @Sendable (RemoteStoreChange) -> Void
    ) -> RemoteChangeObservation {
        RemoteChangeObservation(id: remoteChanges.addObserver(queue: queue, block), center: remoteChanges)
    }

    /// Removes a remote-change observer.
    ///
    /// ```swift
    /// coordinator.removeRemoteChangeObserver(observation)
    /// ```
    public func removeRemoteChangeObserver(_ observation: RemoteChangeObservation) {
        remoteChanges.removeObserver(observation.id)
    }

    /// Drops stale rows, has auto-merging contexts merge, then posts the event.
    func deliverRemoteChange(_ change: RemoteStoreChange, historyKnown: Bool) {
        if historyKnown {
            for t in change.transactions {
                forgetRows(t.changes.lazy.compactMap { $0.changeType == .insert ? nil : $0.changedObjectID })
            }
        } else {
            invalidateRowCache()
        }
        if !change.transactions.isEmpty {
            var targets: [ManagedObjectContext] = []
            for root in contexts {
                if root.automaticallyMergesChangesFromParent { targets.append(root) }
                root.childrenLock.lock()
                targets.append(contentsOf: root.children.compactMap(\.context).filter(\.automaticallyMergesChangesFromParent))
                root.childrenLock.unlock()
            }
            let transactions = change.transactions
            for target in targets {
                target.perform { for t in transactions { target.mergeChanges(from: t) } }
            }
        }
        remoteChanges.post(change)
        // Posted from a serial queue of the coordinator's, not from the poll: an observer
        // registered with `queue: nil` runs there and cannot hold up polling, and notifications
        // stay in commit order.
        remoteChanges.notificationQueue.async { [self] in
            var info: [AnyHashable: Any] = [RemoteChangeKey.storeUUID: change.storeIdentifier, RemoteChangeKey.change: change]
            if let url = change.storeURL { info[RemoteChangeKey.storeURL] = url }
            if let token = change.historyToken { info[RemoteChangeKey.historyToken] = token }
            NotificationCenter.default.post(name: .persistentStoreRemoteChange, object: self, userInfo: info)
        }
    }
}
