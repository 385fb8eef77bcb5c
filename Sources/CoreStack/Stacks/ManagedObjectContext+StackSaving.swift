import Foundation

extension ManagedObjectContext {
    /// Saves on the context's queue if there are changes, and waits.
    ///
    /// ```swift
    /// try worker.saveContextAndWait()
    /// ```
    public func saveContextAndWait() throws {
        try performAndWait {
            if hasChanges { try save() }
        }
    }

    /// Saves on the context's queue if there are changes, without waiting; `completion` runs on
    /// the context's queue with the outcome.
    ///
    /// ```swift
    /// worker.saveContext { result in
    ///     if case let .failure(error) = result { print(error) }
    /// }
    /// ```
    public func saveContext(completion: (@Sendable (Result<Void, any Error>) -> Void)? = nil) {
        perform { [self] in
            do {
                if hasChanges { try save() }
                completion?(.success(()))
            } catch {
                completion?(.failure(error))
            }
        }
    }

    /// Saves this context and then every parent up to the store, each on its own queue and
    /// awaiting each: when it returns, the changes are on disk.
    ///
    /// ```swift
    /// try await worker.saveContextToStore()
    /// ```
    public func saveContextToStore() async throws {
        var context: ManagedObjectContext? = self
        while let c = context {
            try await c.perform {
                if c.hasChanges { try c.save() }
            }
            context = c.parent
        }
    }
}
