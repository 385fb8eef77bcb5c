import Foundation

/// One committed save as persistent history records it (a row of `ATRANSACTION` and its changes).
///
/// ```swift
/// let transactions = try coordinator.execute(.fetchHistory(after: lastToken)).transactions
/// for t in transactions {
///     print(t.transactionNumber, t.author ?? "-", t.processID ?? "-", t.changes.count)
///     context.performAndWait { context.mergeChanges(from: t) }
///     lastToken = t.token
/// }
/// ```
public struct PersistentHistoryTransaction: Sendable, Hashable {
    /// The transaction's number (`ATRANSACTION.Z_PK`), increasing with each commit.
    public var transactionNumber: Int64
    /// The UUID of the store.
    public var storeIdentifier: String
    /// When it was committed.
    public var timestamp: Date
    /// The saving context's ``ManagedObjectContext/transactionAuthor``.
    public var author: String?
    /// The saving context's ``ManagedObjectContext/name``.
    public var contextName: String?
    /// The bundle identifier of the process (Apple); CoreStack records the executable's name.
    public var bundleID: String?
    /// The process: Apple's Core Data records the process name, CoreStack the numeric process ID.
    public var processID: String?
    /// The objects it changed, in change order.
    public var changes: [PersistentHistoryChange]

    /// A transaction; history reads make these.
    ///
    /// ```swift
    /// let t = PersistentHistoryTransaction(transactionNumber: 1, storeIdentifier: id, timestamp: Date(), changes: [])
    /// ```
    public init(
        transactionNumber: Int64, storeIdentifier: String, timestamp: Date, author: String? = nil, contextName: String? = nil,
        bundleID: String? = nil, processID: String? = nil, changes: [PersistentHistoryChange]
    ) {
        self.transactionNumber = transactionNumber
        self.storeIdentifier = storeIdentifier
        self.timestamp = timestamp
        self.author = author
        self.contextName = contextName
        self.bundleID = bundleID
        self.processID = processID
        self.changes = changes
    }

    /// The token of this transaction: history fetched after it starts with the next one.
    public var token: PersistentHistoryToken {
        PersistentHistoryToken(storeIdentifier: storeIdentifier, transactionNumber: transactionNumber)
    }

    /// The IDs of the objects it inserted, updated and deleted (changes read without a model,
    /// which have no ``PersistentHistoryChange/changedObjectID``, are left out), for
    /// ``ManagedObjectContext/mergeChanges(from:)-(SavedObjectIDs)``.
    ///
    /// ```swift
    /// context.perform { context.mergeChanges(from: transaction.objectIDs) }
    /// ```
    public var objectIDs: SavedObjectIDs {
        var ids = SavedObjectIDs()
        for c in changes {
            guard let id = c.changedObjectID else { continue }
            switch c.changeType {
            case .insert: ids.inserted.insert(id)
            case .update: ids.updated.insert(id)
            case .delete: ids.deleted.insert(id)
            }
        }
        return ids
    }
}
