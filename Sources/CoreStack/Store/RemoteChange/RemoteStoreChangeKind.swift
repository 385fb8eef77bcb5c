import Foundation

/// What a ``RemoteStoreChange`` reports.
///
/// ```swift
/// coordinator.addRemoteChangeObserver { change in
///     if change.kind != .commit || change.transactions.isEmpty { print("re-read the store") }
/// }
/// ```
public enum RemoteStoreChangeKind: Sendable, Hashable {
    /// Another connection committed; with persistent history, ``RemoteStoreChange/transactions``
    /// holds its transactions (empty in a store that keeps no history).
    case commit
    /// Another connection committed to a store that keeps persistent history, but added no history
    /// transaction: a tool that knows nothing of history wrote it (`sqlite3`, a script). What
    /// changed is not known; the coordinator's row cache was emptied, and observers should read
    /// again what they show. Core Data does not report such commits.
    case commitWithoutHistory
    /// The file at the store's path is no longer the file the store opened (another process
    /// replaced or deleted it: a new inode or device, or no file). The store goes on reading the
    /// file it opened; open the store again to see the new one. Reported once per replacement.
    case fileReplaced
}
