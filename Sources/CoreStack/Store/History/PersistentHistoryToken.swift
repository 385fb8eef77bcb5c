import Foundation

/// A position in a store's persistent history: the store and the number of a transaction
/// (`ATRANSACTION.Z_PK`). History fetched after a token holds the transactions committed after it.
///
/// Codable, so an app can keep the last token it merged and carry on from there next time:
///
/// ```swift
/// let data = try JSONEncoder().encode(transaction.token)
/// let token = try JSONDecoder().decode(PersistentHistoryToken.self, from: data)
/// let newer = try coordinator.execute(.fetchHistory(after: token)).transactions
/// ```
public struct PersistentHistoryToken: Codable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The UUID of the store the history belongs to.
    public var storeIdentifier: String
    /// The number of the transaction (its `Z_PK` in `ATRANSACTION`); 0 is before the first one.
    public var transactionNumber: Int64

    /// A token for a store and a transaction number.
    ///
    /// ```swift
    /// let start = PersistentHistoryToken(storeIdentifier: store.identifier, transactionNumber: 0)
    /// ```
    public init(storeIdentifier: String, transactionNumber: Int64) {
        self.storeIdentifier = storeIdentifier
        self.transactionNumber = transactionNumber
    }

    /// Orders tokens of one store by transaction number (tokens of different stores by store UUID).
    public static func < (a: Self, b: Self) -> Bool {
        a.storeIdentifier == b.storeIdentifier ? a.transactionNumber < b.transactionNumber : a.storeIdentifier < b.storeIdentifier
    }

    /// `<store UUID>:<transaction number>`, the form `stackscope history --after` reads back.
    public var description: String { "\(storeIdentifier):\(transactionNumber)" }

    /// Reads the ``description`` form back, or a bare transaction number (for `store`); nil when
    /// `text` is neither.
    ///
    /// ```swift
    /// let token = PersistentHistoryToken(parsing: "6A1F…:12", store: store.identifier)
    /// ```
    public init?(parsing text: String, store: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 1, let n = Int64(parts[0]), n >= 0 {
            self.init(storeIdentifier: store, transactionNumber: n)
        } else if parts.count == 2, !parts[0].isEmpty, let n = Int64(parts[1]), n >= 0 {
            self.init(storeIdentifier: String(parts[0]), transactionNumber: n)
        } else {
            return nil
        }
    }
}
