import Foundation

extension PersistentStoreCoordinator {
    /// Runs a persistent-history request on the coordinator's store (an ``SQLiteStore``).
    ///
    /// ```swift
    /// var request = PersistentHistoryChangeRequest.fetchHistory(after: savedToken)
    /// request.author = "sync"
    /// for transaction in try coordinator.execute(request).transactions {
    ///     context.performAndWait { context.mergeChanges(from: transaction) }
    ///     savedToken = transaction.token
    /// }
    /// ```
    /// - Throws: ``CoreStackError/noStore(_:)`` without a store or for a store that keeps no history
    ///   (an in-memory store), and what ``SQLiteStore/execute(_:)`` throws.
    public func execute(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        guard let store = try requireStore() as? SQLiteStore else {
            throw CoreStackError.noStore("persistent history needs an SQLite store")
        }
        return try store.execute(request)
    }

    /// The token of the last transaction in the store's history; nil for a store that keeps none.
    ///
    /// ```swift
    /// let start = try coordinator.currentPersistentHistoryToken()
    /// ```
    public func currentPersistentHistoryToken() throws -> PersistentHistoryToken? {
        guard let store = try requireStore() as? SQLiteStore else { return nil }
        return try store.currentPersistentHistoryToken()
    }
}
