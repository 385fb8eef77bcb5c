import Foundation

/// What a ``PersistentHistoryChangeRequest`` returned: the transactions fetched, or how many were
/// deleted.
///
/// ```swift
/// let result = try coordinator.execute(.fetchHistory(after: nil))
/// print(result.transactions.count)
/// ```
public enum PersistentHistoryResult: Sendable, Hashable {
    /// The transactions a fetch found, oldest first, with their changes.
    case transactions([PersistentHistoryTransaction])
    /// The number of transactions a delete removed.
    case deleted(Int)

    /// The fetched transactions (empty for a delete).
    public var transactions: [PersistentHistoryTransaction] {
        if case let .transactions(t) = self { return t }
        return []
    }

    /// The number of transactions deleted (0 for a fetch).
    public var deletedCount: Int {
        if case let .deleted(n) = self { return n }
        return 0
    }
}
