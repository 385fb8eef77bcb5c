import Foundation

/// Apple's current stack shape (`NSPersistentContainer`), for people coming from it: a
/// coordinator, a main-queue ``viewContext`` on it, and background contexts that are also
/// root contexts of the coordinator.
///
/// ```swift
/// let container = PersistentContainer(name: "Library", model: model)
/// try await container.loadPersistentStores()
/// try await container.performBackgroundTask { context in
///     _ = try context.insertObject(forEntityName: "Book")
///     try context.save()
/// }
/// ```
///
/// Differences from Apple's: one store per container (one store per coordinator in CoreStack),
/// described by ``storeDescription``; ``loadPersistentStores()`` also exists as `async throws`.
/// The default store is `<data folder>/<name>/<name>.sqlite` (`$XDG_DATA_HOME` or `~/.local/share`).
///
/// `@unchecked Sendable`: the store description and the loaded flag are read and written only
/// under `lock`; the coordinator and view context are `let`s, used on their own terms.
public final class PersistentContainer: @unchecked Sendable {
    /// What store to load, and where.
    ///
    /// ```swift
    /// container.storeDescription = .init(type: .inMemory)
    /// ```
    public struct StoreDescription: Sendable, Equatable {
        /// SQLite file or memory.
        public enum StoreType: Sendable, Equatable {
            /// An SQLite file at ``PersistentContainer/StoreDescription/url``.
            case sqlite
            /// An ``InMemoryStore``.
            case inMemory
        }

        /// SQLite file or memory.
        public var type: StoreType
        /// The SQLite file (ignored for in-memory stores).
        public var url: URL?
        /// Whether writes are refused.
        public var isReadOnly: Bool
        /// History tracking, remote change notifications and migration (Core Data's store
        /// description options). Automatic lightweight migration is on, as in Apple's
        /// `NSPersistentStoreDescription`: a store written with an earlier model that it carries
        /// (`Z_MODELCACHE`) is migrated when it is loaded, if the mapping can be inferred.
        ///
        /// ```swift
        /// container.storeDescription.options.persistentHistoryTracking = true
        /// container.storeDescription.options.shouldMigrateStoreAutomatically = false  // fail instead
        /// ```
        public var options = PersistentStoreOptions(shouldMigrateStoreAutomatically: true)

        /// A store description. An SQLite store needs `url` (the container's own default description has
        /// one: `<data folder>/<name>/<name>.sqlite`); the options migrate automatically.
        ///
        /// ```swift
        /// let description = PersistentContainer.StoreDescription(url: url)
        /// ```
        public init(type: StoreType = .sqlite, url: URL? = nil, isReadOnly: Bool = false) {
            self.type = type
            self.url = url
            self.isReadOnly = isReadOnly
        }
    }

    /// The container's name (and the default store's folder and file name).
    public let name: String
    /// The model.
    public let managedObjectModel: ManagedObjectModel
    /// The coordinator.
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    private let lock = NSLock()
    private var description_: StoreDescription
    private var loaded = false

    /// The store to load; change it before ``loadPersistentStores()``.
    public var storeDescription: StoreDescription {
        get { lock.withLock { description_ } }
        set { lock.withLock { description_ = newValue } }
    }

    /// The main-queue context, a root context of the coordinator. It merges saves of the
    /// background contexts when ``ManagedObjectContext/automaticallyMergesChangesFromParent`` is set.
    ///
    /// ```swift
    /// container.viewContext.automaticallyMergesChangesFromParent = true
    /// ```
    public let viewContext: ManagedObjectContext

    /// A container for a model; nothing is opened until ``loadPersistentStores()``.
    ///
    /// ```swift
    /// let container = PersistentContainer(name: "Library", model: model)
    /// ```
    public init(name: String, model: ManagedObjectModel) {
        self.name = name
        managedObjectModel = model
        persistentStoreCoordinator = PersistentStoreCoordinator(managedObjectModel: model)
        description_ = StoreDescription(url: Self.defaultDirectoryURL(name: name).appendingPathComponent(name + ".sqlite"))
        viewContext = ManagedObjectContext(concurrencyType: .mainQueue, coordinator: persistentStoreCoordinator, name: "\(name).viewContext")
    }

    /// The folder for a container's default store: `<data folder>/<name>`.
    ///
    /// ```swift
    /// PersistentContainer.defaultDirectoryURL(name: "Library") // ~/.local/share/Library
    /// ```
    public static func defaultDirectoryURL(
        name: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
        StoreLocation.dataFolder(applicationName: name, environment: environment)
    }

    /// Opens the store the description names (creating folders and file as needed).
    ///
    /// ```swift
    /// try await container.loadPersistentStores()
    /// ```
    public func loadPersistentStores() async throws {
        let description = storeDescription
        let model = managedObjectModel
        let store: any PersistentStore = try await CoreDataStack.onBackgroundQueue {
            switch description.type {
            case .inMemory:
                return InMemoryStore(model: model)
            case .sqlite:
                guard let url = description.url else {
                    throw StackError.storeLocationUnavailable(path: "(none)", reason: "the store description has no URL")
                }
                if !description.isReadOnly { try StoreLocation.prepareFolder(for: url) }
                return try SQLiteStore(url: url, model: model, readOnly: description.isReadOnly, options: description.options)
            }
        }
        try persistentStoreCoordinator.addPersistentStore(store)
        lock.withLock { loaded = true }
    }

    /// Apple's callback form: `completionHandler` runs once per store (here: once) with the
    /// description and the error, if any, on an arbitrary queue.
    ///
    /// ```swift
    /// container.loadPersistentStores { description, error in
    ///     if let error { print("cannot open \(description.url?.path ?? ""): \(error)") }
    /// }
    /// ```
    public func loadPersistentStores(completionHandler: @escaping @Sendable (StoreDescription, (any Error)?) -> Void) {
        let description = storeDescription
        Task {
            do {
                try await loadPersistentStores()
                completionHandler(description, nil)
            } catch {
                completionHandler(description, error)
            }
        }
    }

    /// Whether ``loadPersistentStores()`` succeeded.
    public var isLoaded: Bool { lock.withLock { loaded } }

    /// A new private-queue root context of the coordinator.
    ///
    /// ```swift
    /// let background = container.newBackgroundContext()
    /// try await background.perform { try background.save() }
    /// ```
    public func newBackgroundContext() -> ManagedObjectContext {
        ManagedObjectContext(concurrencyType: .privateQueue, coordinator: persistentStoreCoordinator, name: "\(name).background")
    }

    /// Runs a block on a new background context's queue, without waiting.
    ///
    /// ```swift
    /// container.performBackgroundTask { context in
    ///     try? context.save()
    /// }
    /// ```
    public func performBackgroundTask(_ block: @escaping @Sendable (ManagedObjectContext) -> Void) {
        let context = newBackgroundContext()
        context.perform { block(context) }
    }

    /// Runs a block on a new background context's queue and returns its result.
    ///
    /// ```swift
    /// let count = try await container.performBackgroundTask { context in
    ///     try context.count(for: FetchRequest<Book>())
    /// }
    /// ```
    public func performBackgroundTask<T: Sendable>(_ block: @escaping @Sendable (ManagedObjectContext) throws -> T) async throws -> T {
        guard isLoaded else { throw StackError.storesNotLoaded("call loadPersistentStores() first") }
        let context = newBackgroundContext()
        return try await context.perform { try block(context) }
    }
}
