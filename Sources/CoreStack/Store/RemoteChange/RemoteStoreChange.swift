import Foundation

/// What another connection committed to a coordinator's store file: posted to
/// ``PersistentStoreCoordinator/addRemoteChangeObserver(queue:_:)`` observers and, as
/// ``Foundation/Notification/Name/persistentStoreRemoteChange``, to `NotificationCenter.default`.
///
/// ```swift
/// let observation = coordinator.addRemoteChangeObserver { change in
///     for t in change.transactions { print(t.processID ?? "?", t.author ?? "-", t.changes.count) }
/// }
/// ```
public struct RemoteStoreChange: Sendable, Hashable {
    /// The store file.
    public var storeURL: URL?
    /// The store's UUID.
    public var storeIdentifier: String
    /// The token of the last transaction now in the store's history; nil when the file keeps no history.
    public var historyToken: PersistentHistoryToken?
    /// The transactions other connections committed since the previous event, oldest first
    /// (empty when the file keeps no history).
    public var transactions: [PersistentHistoryTransaction]
    /// When the coordinator noticed the commit.
    public var noticedAt: Date

    /// A change event.
    ///
    /// ```swift
    /// let change = RemoteStoreChange(storeURL: url, storeIdentifier: id, historyToken: nil, transactions: [], noticedAt: Date())
    /// ```
    public init(
        storeURL: URL?, storeIdentifier: String, historyToken: PersistentHistoryToken?, transactions: [PersistentHistoryTransaction],
        noticedAt: Date
    ) {
        self.storeURL = storeURL
        self.storeIdentifier = storeIdentifier
        self.historyToken = historyToken
        self.transactions = transactions
        self.noticedAt = noticedAt
    }
}
