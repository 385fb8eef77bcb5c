import Foundation

/// What another connection committed to a coordinator's store file: posted to
/// ``PersistentStoreCoordinator/addRemoteChangeObserver(queue:_:)`` observers and, as
/// ``Foundation/NSNotification/Name/persistentStoreRemoteChange``, to `NotificationCenter.default`.
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
    /// What the change is when it carries no history transaction of its own.
    ///
    /// ```swift
    /// switch change.kind {
    /// case .commit: merge(change.transactions)          // empty when the store keeps no history
    /// case .commitWithoutHistory: refetchEverything()    // e.g. `sqlite3 Books.sqlite "UPDATE …"`
    /// case .fileReplaced: reopenTheStore()               // another process put a new file at the path
    /// }
    /// ```
    public var kind: RemoteStoreChangeKind

    /// A change as the coordinator reports it (``kind`` ``RemoteStoreChangeKind/commit`` unless said).
    ///
    /// ```swift
    /// let change = RemoteStoreChange(storeURL: url, storeIdentifier: id, historyToken: nil, transactions: [], noticedAt: Date())
    /// ```
    public init(
        storeURL: URL?, storeIdentifier: String, historyToken: PersistentHistoryToken?, transactions: [PersistentHistoryTransaction],
        noticedAt: Date, kind: RemoteStoreChangeKind = .commit
    ) {
        self.storeURL = storeURL
        self.storeIdentifier = storeIdentifier
        self.historyToken = historyToken
        self.transactions = transactions
        self.noticedAt = noticedAt
        self.kind = kind
    }
}
