import Foundation

extension CoreDataStack {
    /// A private-queue root context on a coordinator of its own over the same store (the shared
    /// store pattern), for big imports that should not go through the main context.
    ///
    /// Its saves go straight to the store and are **not merged into the stack's contexts**:
    /// objects the main context already holds keep their old values until refreshed, and new
    /// objects appear when you fetch again. After an import, refetch:
    ///
    /// ```swift
    /// let batch = try stack.newBatchOperationContext()
    /// try await batch.perform {
    ///     for row in rows { try batch.insertObject(forEntityName: "Book").setValue(row.title, forKey: "title") }
    ///     try batch.save()
    /// }
    /// let main = stack.mainQueueContext
    /// let books = try await main.perform {
    ///     main.refreshAllObjects()                                    // drop stale values
    ///     return try main.fetch(FetchRequest<Book>()).count           // a fresh fetch sees the import
    /// }
    /// ```
    ///
    /// For in-memory stacks the new coordinator shares the stack's ``InMemoryStore``. The context
    /// is stale after ``resetStore()``.
    public func newBatchOperationContext(name: String? = nil) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        switch storeType {
        case .inMemory:
            guard let store = persistentStoreCoordinator.persistentStore else {
                throw CoreStackError.noStore("the stack's coordinator has no store")
            }
            try coordinator.addPersistentStore(store)
        case let .sqlite(url):
            try coordinator.addPersistentStore(SQLiteStore(url: url, model: model))
        }
        lock.withLock {
            batchCoordinators.removeAll { $0.coordinator == nil }
            batchCoordinators.append(WeakCoordinator(coordinator: coordinator))
        }
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: name ?? "CoreDataStack.batchContext")
        context.mergePolicy = .mergeByPropertyStoreTrump
        return context
    }
}
