import Foundation

/// A request on a store's persistent history: fetch the transactions after a token or a date,
/// or delete the ones up to a token or before a date (Core Data's `NSPersistentHistoryChangeRequest`).
///
/// ```swift
/// var request = PersistentHistoryChangeRequest.fetchHistory(after: lastToken)
/// request.author = "importer"                     // only this author's transactions
/// let transactions = try coordinator.execute(request).transactions
/// _ = try coordinator.execute(.deleteHistory(before: transactions.last?.token))
/// ```
public struct PersistentHistoryChangeRequest: Sendable, Hashable {
    /// What the request does.
    public enum Kind: Sendable, Hashable {
        /// The transactions after a token (all of them for nil).
        case fetchAfterToken(PersistentHistoryToken?)
        /// The transactions committed after a date.
        case fetchAfterDate(Date)
        /// Deletes the transactions up to and including a token's (all of them for nil).
        case deleteBeforeToken(PersistentHistoryToken?)
        /// Deletes the transactions committed before a date.
        case deleteBeforeDate(Date)
    }

    /// What the request does.
    public var kind: Kind
    /// Only transactions with this author (fetches only).
    public var author: String?
    /// Only transactions saved by a context of this name (fetches only).
    public var contextName: String?
    /// At most this many transactions, oldest first (0: no limit; fetches only).
    public var fetchLimit: Int = 0

    /// A request of a kind.
    ///
    /// ```swift
    /// let request = PersistentHistoryChangeRequest(kind: .fetchAfterDate(.now.addingTimeInterval(-3600)))
    /// ```
    public init(kind: Kind, author: String? = nil, contextName: String? = nil) {
        self.kind = kind
        self.author = author
        self.contextName = contextName
    }

    /// The transactions after `token`, oldest first (every transaction for nil).
    public static func fetchHistory(after token: PersistentHistoryToken?) -> Self { Self(kind: .fetchAfterToken(token)) }
    /// The transactions committed after `date`, oldest first.
    public static func fetchHistory(after date: Date) -> Self { Self(kind: .fetchAfterDate(date)) }
    /// Deletes the transactions up to and including `token`'s (all of them for nil).
    public static func deleteHistory(before token: PersistentHistoryToken?) -> Self { Self(kind: .deleteBeforeToken(token)) }
    /// Deletes the transactions committed before `date`.
    public static func deleteHistory(before date: Date) -> Self { Self(kind: .deleteBeforeDate(date)) }

    /// Whether the request deletes history.
    public var isDelete: Bool {
        switch kind {
        case .deleteBeforeToken, .deleteBeforeDate: true
        case .fetchAfterToken, .fetchAfterDate: false
        }
    }
}
