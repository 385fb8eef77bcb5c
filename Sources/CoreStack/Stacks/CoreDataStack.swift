import Foundation

/// The nested stack: a private-queue root context that owns the coordinator and writes to disk,
/// a main-queue child of it for UI work, and worker children of the main context. Saving any
/// context of the stack makes the change reach the store by itself: each save triggers its
/// parent's save, up the chain.
///
/// ```swift
/// let stack = try await CoreDataStack.constructSQLiteStack(model: model)
/// let worker = stack.newChildContext(name: "import")
/// try await worker.perform {
///     let author = try worker.insertObject(forEntityName: "Author")
///     try author.setValue("Ursula", forKey: "firstName")
///     try worker.save()          // → main context → private context → disk, on their queues
/// }
/// await stack.waitForPendingSaves()
/// ```
///
/// Contexts: ``privateQueueContext`` (root, merge policy ``MergePolicy/mergeByPropertyStoreTrump``),
/// ``mainQueueContext`` (its child on the main queue, same merge policy), ``newChildContext(concurrency:name:)``
/// (children of the main context) and ``newBatchOperationContext(name:)`` (a separate coordinator over
/// the same file). Saves bubble up asynchronously on each parent's queue; on Linux the main
/// queue only runs while the main thread services it (`dispatchMain()`, a run loop, the main
/// actor), so a program that never services it never sees its changes leave the main context.
///
/// This follows Big Nerd Ranch's CoreDataStack (2015–2017) with these changes: construction is
/// `async throws` (plus a `Result` callback on a queue you choose); the store location is checked
/// before opening and fails with ``StackError/storeLocationUnavailable(path:reason:)`` instead of
/// failing deep in SQLite; ``resetStore()`` waits for saves still bubbling up instead of racing
/// them, and removes the `-wal` and `-shm` files along with the store.
///
/// `@unchecked Sendable`: the mutable fields (contexts, observers, batch coordinators) are read
/// and written only under `lock`; contexts are used on their own queues.
public final class CoreDataStack: @unchecked Sendable {
    /// Where the stack keeps its store.
    public enum StoreType: Sendable, Equatable {
        /// An SQLite file.
        case sqlite(URL)
        /// Memory only: gone when the stack is.
        case inMemory
    }

    /// Options for construction.
    ///
    /// ```swift
    /// var options = CoreDataStack.Options()
    /// options.applicationName = "Notes"
    /// options.log = { message in logger.info("\(message)") }
    /// ```
    public struct Options: Sendable {
        /// The folder name under the user's data folder, for the default store location.
        public var applicationName: String
        /// The environment read for `XDG_DATA_HOME` and `HOME` (nil: the process's).
        public var environment: [String: String]?
        /// Where the stack reports errors of the saves it triggers by itself (default: standard error).
        public var log: @Sendable (String) -> Void
        /// How the SQLite store is opened. Automatic lightweight migration is on by default, as in
        /// Apple's container: a store of an earlier version (of the model bundle, or the model the
        /// store carries) is migrated when the stack is built, if the mapping can be inferred.
        ///
        /// ```swift
        /// options.storeOptions.shouldMigrateStoreAutomatically = false  // throw migrationRequired instead
        /// ```
        public var storeOptions = PersistentStoreOptions(shouldMigrateStoreAutomatically: true)

        /// Options with the given application name, environment and log.
        public init(
            applicationName: String = StoreLocation.defaultApplicationName,
            environment: [String: String]? = nil,
            log: @escaping @Sendable (String) -> Void = CoreDataStack.logToStandardError
        ) {
            self.applicationName = applicationName
            self.environment = environment
            self.log = log
        }
    }

    /// Posted (object: the stack) after ``resetStore()`` built the new contexts; the user info's
    /// `"privateQueueContext"` and `"mainQueueContext"` keys hold them.
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: CoreDataStack.didResetNotification, object: stack, queue: nil) { _ in
    ///     reloadEverything()
    /// }
    /// ```
    public static let didResetNotification = Notification.Name("CoreStack.CoreDataStack.didReset")

    /// The model of the store and every context.
    public let model: ManagedObjectModel
    /// SQLite file or memory.
    public let storeType: StoreType
    let options: Options
    /// The model versions, when the stack was built from a model file (for opening older files read-only).
    let modelBundle: ManagedObjectModelBundle?

    struct Contexts {
        var coordinator: PersistentStoreCoordinator
        var privateQueueContext: ManagedObjectContext
        var mainQueueContext: ManagedObjectContext
    }

    let lock = NSLock()
    var contexts: Contexts
    /// Observers that make a context's save trigger its parent's save, with the context they watch.
    var bubbleObservers: [(context: WeakContext, token: ObservationToken)] = []
    /// Coordinators of batch contexts, to detach from the files on reset.
    var batchCoordinators: [WeakCoordinator] = []
    var resetObservers: [UUID: @Sendable (CoreDataStack) -> Void] = [:]
    /// Saves scheduled by the bubbling and not finished yet.
    let pendingSaves = DispatchGroup()

    /// The SQLite file (nil for in-memory stacks).
    public var storeURL: URL? {
        if case let .sqlite(url) = storeType { return url }
        return nil
    }

    /// The coordinator (replaced by ``resetStore()``).
    public var persistentStoreCoordinator: PersistentStoreCoordinator { lock.withLock { contexts.coordinator } }

    /// The root context, on a private queue: it owns the coordinator and writes to disk. Merge
    /// policy ``MergePolicy/mergeByPropertyStoreTrump``. Replaced by ``resetStore()``.
    ///
    /// ```swift
    /// let count = try await stack.privateQueueContext.perform {
    ///     try stack.privateQueueContext.count(for: FetchRequest<ManagedObject>(entityName: "Author"))
    /// }
    /// ```
    public var privateQueueContext: ManagedObjectContext { lock.withLock { contexts.privateQueueContext } }

    /// The child of ``privateQueueContext`` on the main queue, for UI work. Merge policy
    /// ``MergePolicy/mergeByPropertyStoreTrump``. Replaced by ``resetStore()``.
    ///
    /// ```swift
    /// let main = stack.mainQueueContext
    /// let titles = try await main.perform { try main.fetch(FetchRequest<Book>()).map(\.title) }
    /// ```
    public var mainQueueContext: ManagedObjectContext { lock.withLock { contexts.mainQueueContext } }

    init(model: ManagedObjectModel, storeType: StoreType, store: any PersistentStore, options: Options,
         modelBundle: ManagedObjectModelBundle?) throws {
        self.model = model
        self.storeType = storeType
        self.options = options
        self.modelBundle = modelBundle
        self.contexts = try Self.makeContexts(model: model, store: store)
        installBubbling(from: contexts.mainQueueContext, to: contexts.privateQueueContext)
    }

    static func makeContexts(model: ManagedObjectModel, store: any PersistentStore) throws -> Contexts {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(store)
        let root = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: "CoreDataStack.privateQueueContext")
        root.mergePolicy = .mergeByPropertyStoreTrump
        let main = ManagedObjectContext(concurrencyType: .mainQueue, parent: root, name: "CoreDataStack.mainQueueContext")
        main.mergePolicy = .mergeByPropertyStoreTrump
        return Contexts(coordinator: coordinator, privateQueueContext: root, mainQueueContext: main)
    }

    /// Writes a message to standard error (the default ``Options/log``).
    public static let logToStandardError: @Sendable (String) -> Void = { message in
        FileHandle.standardError.write(Data(("CoreStack: " + message + "\n").utf8))
    }

    // MARK: Child contexts

    /// A new child of ``mainQueueContext``, for work off the main queue (or, with `.mainQueue`, a
    /// scratch pad on the main queue). Its saves reach the main context and then the store by themselves.
    ///
    /// ```swift
    /// let worker = stack.newChildContext(name: "sync")
    /// try await worker.perform {
    ///     _ = try worker.insertObject(forEntityName: "Author")
    ///     try worker.save()
    /// }
    /// ```
    public func newChildContext(
        concurrency: ManagedObjectContext.ConcurrencyType = .privateQueue, name: String? = nil
    ) -> ManagedObjectContext {
        let parent = mainQueueContext
        let child = ManagedObjectContext(concurrencyType: concurrency, parent: parent, name: name ?? "CoreDataStack.childContext")
        child.mergePolicy = parent.mergePolicy
        installBubbling(from: child, to: parent)
        return child
    }

    // MARK: Bubbling saves

    /// After each save of `context`, saves `parent` on its queue (which bubbles further up).
    /// Scheduled after every did-save observer of `context` ran: otherwise the parent, on another
    /// queue, could save and post its did-save before the child's later observers saw the child's.
    func installBubbling(from context: ManagedObjectContext, to parent: ManagedObjectContext) {
        let token = context.addAfterDidSaveObserver { [weak self, weak parent] _ in
            guard let self, let parent else { return }
            self.scheduleSave(of: parent)
        }
        lock.withLock {
            bubbleObservers.removeAll { $0.context.context == nil }
            bubbleObservers.append((WeakContext(context), token))
        }
    }

    /// Saves a context asynchronously on its queue, counted in ``pendingSaves``.
    func scheduleSave(of context: ManagedObjectContext) {
        pendingSaves.enter()
        let log = options.log
        context.perform { [pendingSaves] in
            defer { pendingSaves.leave() }
            guard context.hasChanges else { return }
            do {
                try context.save()
            } catch {
                log("saving \(context.name ?? "a context") after its child saved failed: \(StoreLocation.describe(error))")
            }
        }
    }

    /// Waits until the saves the stack started by itself (a child's save triggering its parent's)
    /// have reached the store.
    ///
    /// ```swift
    /// try worker.saveContextAndWait()
    /// await stack.waitForPendingSaves()   // now on disk
    /// ```
    public func waitForPendingSaves() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            pendingSaves.notify(queue: .global()) { continuation.resume() }
        }
    }

    /// Waits, blocking the caller, until the saves the stack started by itself are done; false on timeout.
    /// Do not call it on the main thread while a save of ``mainQueueContext`` may be pending.
    ///
    /// ```swift
    /// _ = stack.waitForPendingSaves(timeout: .now() + 5)
    /// ```
    public func waitForPendingSaves(timeout: DispatchTime) -> Bool {
        pendingSaves.wait(timeout: timeout) == .success
    }
}

/// A weak reference to a coordinator.
struct WeakCoordinator {
    weak var coordinator: PersistentStoreCoordinator?
}
