import Foundation

extension PersistentStoreManager {
    /// Runs `block` on a new private-queue child of the main context, on that child's queue, and
    /// waits: saves the child if the block changed something (which merges the changes into the
    /// main context), and reports any error with the descriptor ("Error saving context during the
    /// fetching of photo objects: …") in the log and in the result.
    ///
    /// ```swift
    /// manager.performBlockOnChildContext({ context, descriptor in
    ///     let photo = try context.insertObject(forEntityName: "Photo")
    ///     try photo.setValue(url.absoluteString, forKey: "url")
    /// }, loggingDescriptor: "fetching of photo objects")
    /// ```
    ///
    /// The original ran the block on the caller's thread, breaking the rule that a context is used
    /// on its own queue; this runs it on the child's queue and stays synchronous for the caller.
    /// The main context is not saved to disk here: call ``saveContextAndCleanUpOldObjects()`` or
    /// rely on the saves at suspension and termination.
    @discardableResult
    public func performBlockOnChildContext(
        _ block: (ManagedObjectContext, String) throws -> Void, loggingDescriptor: String
    ) -> Result<Void, StackError> {
        let child = makeChildContext(loggingDescriptor)
        do {
            try child.performAndWait {
                try block(child, loggingDescriptor)
                if child.hasChanges { try child.save() }
            }
            return .success(())
        } catch {
            return .failure(report(error, loggingDescriptor))
        }
    }

    /// The async form of ``performBlockOnChildContext(_:loggingDescriptor:)``: does not block the
    /// caller's thread, and throws ``StackError/childContextFailed(descriptor:reason:)`` (after logging it).
    ///
    /// ```swift
    /// try await manager.performBlockOnChildContext(loggingDescriptor: "import of albums") { context, _ in
    ///     try context.insertObject(forEntityName: "Album").setValue("Blue", forKey: "title")
    /// }
    /// ```
    public func performBlockOnChildContext(
        loggingDescriptor: String, _ block: @escaping @Sendable (ManagedObjectContext, String) throws -> Void
    ) async throws {
        let child = makeChildContext(loggingDescriptor)
        do {
            try await child.perform {
                try block(child, loggingDescriptor)
                if child.hasChanges { try child.save() }
            }
        } catch {
            throw report(error, loggingDescriptor)
        }
    }

    private func makeChildContext(_ descriptor: String) -> ManagedObjectContext {
        let child = ManagedObjectContext(
            concurrencyType: .privateQueue, parent: managedObjectContext, name: "PersistentStoreManager.child (\(descriptor))")
        child.mergePolicy = .mergeByPropertyObjectTrump
        return child
    }

    private func report(_ error: any Error, _ descriptor: String) -> StackError {
        let failure = StackError.childContextFailed(descriptor: descriptor, reason: StoreLocation.describe(error))
        configuration.log(failure.description)
        return failure
    }
}
