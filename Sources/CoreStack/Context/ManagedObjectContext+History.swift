import Foundation

extension ManagedObjectContext {
    /// Merges a persistent-history transaction (typically another process's save) into the
    /// context, like a did-save of another context: the coordinator's row cache drops the rows it
    /// touched, updated objects are refreshed (keeping this context's unsaved changes), deleted
    /// ones leave, inserted ones are announced; fetched results controllers and entity monitors on
    /// the context report the changes. Call on the context's queue.
    ///
    /// ```swift
    /// for t in try coordinator.execute(.fetchHistory(after: lastToken)).transactions {
    ///     context.performAndWait { context.mergeChanges(from: t) }
    ///     lastToken = t.token
    /// }
    /// ```
    public func mergeChanges(from transaction: PersistentHistoryTransaction) {
        let ids = transaction.objectIDs
        persistentStoreCoordinator.forgetRows(ids.updated)
        persistentStoreCoordinator.forgetRows(ids.deleted)
        // A child's parent may hold the rows too: its objects are refreshed by its own merge.
        mergeChanges(from: ids)
    }
}
