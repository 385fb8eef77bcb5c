import Foundation

extension CoreDataStack {
    /// Throws the store away and starts again empty: waits for saves still bubbling up, resets
    /// the old contexts, detaches the old coordinator (and those of batch contexts) from the
    /// store, deletes the store file with its `-wal` and `-shm` files, and builds a new
    /// coordinator, ``privateQueueContext`` and ``mainQueueContext``. In-memory stacks get a new,
    /// empty store.
    ///
    /// **Contexts obtained before the reset are stale**: the old main and private contexts, child
    /// contexts and batch contexts no longer reach any store (their saves fail with
    /// ``CoreStackError/noStore(_:)``). Read ``mainQueueContext`` again afterwards, make new
    /// children with ``newChildContext(concurrency:name:)``, and learn about resets you did not
    /// start through ``addResetObserver(_:)`` or ``didResetNotification``.
    ///
    /// ```swift
    /// try await stack.resetStore()
    /// let worker = stack.newChildContext()   // a fresh child of the new main context
    /// ```
    ///
    /// Unlike the original, which reset while saves could still be on their way to the store,
    /// this waits for them first.
    public func resetStore() async throws {
        await waitForPendingSaves()
        let (old, batches, observers) = lock.withLock {
            let o = (contexts, batchCoordinators.compactMap(\.coordinator), bubbleObservers)
            bubbleObservers.removeAll()
            batchCoordinators.removeAll()
            return o
        }
        // Stop the old chain from bubbling, and drop the old objects.
        for (weakContext, token) in observers {
            guard let context = weakContext.context else { continue }
            Self.schedule(on: context) { context.removeObserver(token) }
        }
        // The new store opens as the old one was (history, remote change notifications).
        let options = (old.coordinator.persistentStore as? SQLiteStore)?.options ?? PersistentStoreOptions()
        let oldMain = old.mainQueueContext
        let oldRoot = old.privateQueueContext
        try await oldMain.perform { oldMain.reset() }
        try await oldRoot.perform { oldRoot.reset() }
        old.coordinator.removePersistentStore()
        for c in batches { c.removePersistentStore() }

        let newContexts: Contexts = try await Self.onBackgroundQueue { [self] in
            let store: any PersistentStore
            switch storeType {
            case .inMemory:
                store = InMemoryStore(model: model)
            case let .sqlite(url):
                try StoreLocation.destroyStore(at: url)
                try StoreLocation.prepareFolder(for: url)
                store = try SQLiteStore(url: url, model: model, options: options)
            }
            return try Self.makeContexts(model: model, store: store)
        }
        let callbacks = lock.withLock {
            contexts = newContexts
            return Array(resetObservers.values)
        }
        installBubbling(from: newContexts.mainQueueContext, to: newContexts.privateQueueContext)
        for callback in callbacks { callback(self) }
        NotificationCenter.default.post(
            name: Self.didResetNotification, object: self,
            userInfo: ["privateQueueContext": newContexts.privateQueueContext, "mainQueueContext": newContexts.mainQueueContext])
    }

    /// Schedules a block on a context's queue without waiting (the non-async `perform`).
    static func schedule(on context: ManagedObjectContext, _ block: @escaping @Sendable () -> Void) {
        context.perform(block)
    }

    /// ``resetStore()`` with a completion handler, called on `callbackQueue`.
    ///
    /// ```swift
    /// stack.resetStore(callbackQueue: .main) { result in
    ///     if case let .failure(error) = result { report(error) }
    /// }
    /// ```
    ///
    /// The reset runs on a Dispatch queue of its own, not on Swift concurrency's cooperative pool:
    /// it goes ahead even while every thread of that pool is blocked by the caller's other work.
    public func resetStore(callbackQueue: DispatchQueue, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        Task(executorPreference: DispatchTaskExecutor(label: "CoreStack.CoreDataStack.resetStore")) { [self] in
            let result: Result<Void, any Error>
            do {
                try await resetStore()
                result = .success(())
            } catch {
                result = .failure(error)
            }
            callbackQueue.async { completion(result) }
        }
    }

    /// Calls `block` (on the resetting task, after the new contexts are in place) after each
    /// ``resetStore()``; returns a key for ``removeResetObserver(_:)``.
    ///
    /// ```swift
    /// let key = stack.addResetObserver { stack in
    ///     let main = stack.mainQueueContext
    ///     main.perform { reload(from: main) }
    /// }
    /// ```
    @discardableResult
    public func addResetObserver(_ block: @escaping @Sendable (CoreDataStack) -> Void) -> UUID {
        let key = UUID()
        lock.withLock { resetObservers[key] = block }
        return key
    }

    /// Stops a reset observer.
    ///
    /// ```swift
    /// stack.removeResetObserver(key)
    /// ```
    public func removeResetObserver(_ key: UUID) {
        _ = lock.withLock { resetObservers.removeValue(forKey: key) }
    }
}
