import Foundation

extension ModelContext {
    /// The models a descriptor selects, in its order.
    ///
    /// ```swift
    /// let books = try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.pages > 300 }))
    /// ```
    /// - Throws: ``CoreStackError/unsupportedPredicate(part:reason:)`` for what has no translation;
    ///   the store's errors.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        let request = try descriptor.fetchRequest()
        return try run { try managedObjectContext.fetch(request) }
    }

    /// How many models a descriptor selects (counted by the store, with the context's unsaved
    /// changes when the descriptor includes them).
    ///
    /// ```swift
    /// let n = try context.fetchCount(FetchDescriptor<Book>())
    /// ```
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        let request = try descriptor.fetchRequest()
        return try run { try managedObjectContext.count(for: request) }
    }

    /// The identifiers of the models a descriptor selects, without loading them.
    ///
    /// ```swift
    /// let ids = try context.fetchIdentifiers(FetchDescriptor<Book>())
    /// ```
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        let request = try descriptor.fetchRequest()
        return try run { try managedObjectContext.fetchObjectIDs(request).map(PersistentIdentifier.init) }
    }

    /// Calls `block` with each model a descriptor selects, loading `batchSize` at a time (CoreStack's
    /// ``ManagedObjectContext/fetchBatched(_:)``), so a large result is not held at once.
    ///
    /// ```swift
    /// var pages = 0
    /// try context.enumerate(FetchDescriptor<Book>(), batchSize: 500) { pages += $0.pages }
    /// ```
    public func enumerate<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int = 5000, block: (T) throws -> Void
    ) throws {
        var request = try descriptor.fetchRequest()
        request.fetchBatchSize = max(batchSize, 1)
        try run {
            for model in try managedObjectContext.fetchBatched(request) { try block(model) }
        }
    }
}
