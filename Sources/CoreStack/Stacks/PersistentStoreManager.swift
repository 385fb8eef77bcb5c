import Foundation

/// The shared store manager: one main-queue context over a disposable local store in the
/// user's cache folder, reset when it cannot be opened, with child-context blocks and hooks.
///
/// ```swift
/// try PersistentStoreManager.configureShared(.init(model: model, applicationName: "Photos"))
/// let manager = try PersistentStoreManager.shared
/// manager.performBlockOnChildContext({ context, descriptor in
///     for photo in downloaded { try context.insertObject(forEntityName: "Photo").setValue(photo.url, forKey: "url") }
/// }, loggingDescriptor: "fetching of photo objects")
/// if manager.dataStoreWasResetOrCreatedOnLoad { refetchEverythingFromTheServer() }
/// ```
///
/// The store lives at `$XDG_CACHE_HOME/<app>/LocalData.sqlite` (or `~/.cache/<app>/LocalData.sqlite`):
/// it is local data that can be restored from elsewhere. A store that cannot be opened (corrupt,
/// not a database, another model) is moved aside next to it under a timestamped name, never
/// silently deleted, and a fresh store replaces it; ``dataStoreWasResetOrCreatedOnLoad`` tells.
/// A store written with an earlier model that it carries (`Z_MODELCACHE`) is migrated instead,
/// when the mapping can be inferred (``Configuration/storeOptions``; ``migrationsOnLoad`` tells).
/// A folder (or anything else that is not a file) where the store file belongs is moved aside the
/// same way. A store of up to ``quickCheckSizeLimit`` bytes is checked with SQLite's
/// `PRAGMA quick_check` when it is opened, so a damaged page is found then rather than by a fetch.
///
/// The manager saves by itself when the process is told to end (SIGTERM, SIGINT, SIGHUP), when
/// it is suspended (SIGTSTP) and at normal exit (`exit`). Subclass it for the hooks
/// ``cleanUpOldObjects(in:)`` and ``handleSaveError(_:)``.
///
/// Changes from the original Objective-C manager: ``performBlockOnChildContext(_:loggingDescriptor:)``
/// runs the block on the child context's own queue (the original ran it on the caller's thread,
/// breaking the threading rule) while staying synchronous for the caller; a store that cannot
/// be opened is quarantined instead of deleted; and a failure to create even a fresh store is
/// thrown to the caller instead of crashing.
///
/// `@unchecked Sendable` only because an `open` class cannot be checked: every stored property is
/// a `let` of a `Sendable` type (the contexts are used on their own queues) and the shared
/// instance is guarded by `sharedLock`. Subclasses that add mutable state must guard it.
open class PersistentStoreManager: @unchecked Sendable {
    /// How a manager is set up.
    ///
    /// ```swift
    /// var configuration = PersistentStoreManager.Configuration(model: model, applicationName: "Photos")
    /// configuration.log = { message in logger.notice("\(message)") }
    /// ```
    public struct Configuration: Sendable {
        /// The app's model.
        public var model: ManagedObjectModel
        /// The folder name under the cache folder.
        public var applicationName: String
        /// The store file (nil: `<cache folder>/<app>/LocalData.sqlite`).
        public var storeURL: URL?
        /// The environment read for `XDG_CACHE_HOME` and `HOME` (nil: the process's).
        public var environment: [String: String]?
        /// Whether the manager saves on SIGTERM, SIGINT, SIGHUP, SIGTSTP and at exit.
        public var savesOnTermination: Bool
        /// Where the manager logs (quarantines, child-context errors, save errors). Default: standard error.
        public var log: @Sendable (String) -> Void
        /// How the store is opened: persistent history, remote change notifications, migration.
        /// Automatic lightweight migration is on by default: a store written with an earlier model
        /// it carries is migrated, keeping its data, rather than moved aside (it still is when the
        /// migration cannot be inferred).
        ///
        /// ```swift
        /// config.storeOptions.persistentHistoryTracking = true   // keeps automatic migration on
        /// ```
        public var storeOptions = PersistentStoreOptions(shouldMigrateStoreAutomatically: true)

        /// A configuration; `storeURL` nil puts the store in the cache folder, `savesOnTermination` true saves on SIGTERM, SIGINT, SIGHUP, SIGTSTP and at exit.
        public init(
            model: ManagedObjectModel,
            applicationName: String = StoreLocation.defaultApplicationName,
            storeURL: URL? = nil,
            environment: [String: String]? = nil,
            savesOnTermination: Bool = true,
            log: @escaping @Sendable (String) -> Void = CoreDataStack.logToStandardError
        ) {
            self.model = model
            self.applicationName = applicationName
            self.storeURL = storeURL
            self.environment = environment
            self.savesOnTermination = savesOnTermination
            self.log = log
        }

        /// The store file this configuration names.
        ///
        /// ```swift
        /// PersistentStoreManager.Configuration(model: model, applicationName: "Photos").resolvedStoreURL
        /// // ~/.cache/Photos/LocalData.sqlite
        /// ```
        public var resolvedStoreURL: URL {
            storeURL
                ?? StoreLocation.cacheFolder(
                    applicationName: applicationName, environment: environment ?? ProcessInfo.processInfo.environment
                ).appendingPathComponent("LocalData.sqlite")
        }
    }

    /// The configuration the manager was made with.
    public let configuration: Configuration
    /// The store file.
    public let storeURL: URL
    /// The coordinator.
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    /// The main-queue context (a root context on the coordinator: its saves write to disk).
    /// Merge policy ``MergePolicy/mergeByPropertyObjectTrump``, as the original set.
    ///
    /// ```swift
    /// let photos = try await manager.managedObjectContext.perform { ... }
    /// ```
    public let managedObjectContext: ManagedObjectContext
    /// True when the store was created fresh, or had to be reset, when this manager opened it.
    public let dataStoreWasResetOrCreatedOnLoad: Bool
    /// Where the unreadable store was moved this session, if it was.
    public let quarantinedStoreURL: URL?
    /// Why the store had to be reset this session, if it did.
    public let resetReason: String?
    /// The migrations made when the store was opened (a store of an earlier model, migrated
    /// instead of reset); empty when none was needed.
    ///
    /// ```swift
    /// if !manager.migrationsOnLoad.isEmpty { print("migrated the cache, kept its objects") }
    /// ```
    public let migrationsOnLoad: [MigrationPlan]

    /// Opens (or creates) the store and sets up the main context.
    ///
    /// ```swift
    /// let manager = try PersistentStoreManager(configuration: .init(model: model, storeURL: url, savesOnTermination: false))
    /// ```
    /// - Throws: ``StackError/storeLocationUnavailable(path:reason:)`` or a store error when even
    ///   a fresh store cannot be created.
    public required init(configuration: Configuration) throws {
        self.configuration = configuration
        let url = configuration.resolvedStoreURL
        storeURL = url
        let opened = try Self.openStore(at: url, model: configuration.model, options: configuration.storeOptions, log: configuration.log)
        dataStoreWasResetOrCreatedOnLoad = opened.resetOrCreated
        quarantinedStoreURL = opened.quarantinedURL
        resetReason = opened.reason
        migrationsOnLoad = opened.store.migrationsOnOpen
        persistentStoreCoordinator = PersistentStoreCoordinator(managedObjectModel: configuration.model)
        try persistentStoreCoordinator.addPersistentStore(opened.store)
        managedObjectContext = ManagedObjectContext(
            concurrencyType: .mainQueue, coordinator: persistentStoreCoordinator, name: "PersistentStoreManager.main")
        managedObjectContext.mergePolicy = .mergeByPropertyObjectTrump
        if configuration.savesOnTermination { TerminationSaver.shared.register(self) }
    }

    deinit {
        if configuration.savesOnTermination { TerminationSaver.shared.pruneReleasedManagers() }
    }

    // MARK: Shared instance

    /// Guards the three fields below; user code (a subclass's `init(configuration:)`, the
    /// configuration's `log`) never runs while it is held.
    private static let sharedLock = NSCondition()
    nonisolated(unsafe) private static var sharedSetup: (configuration: Configuration, type: PersistentStoreManager.Type)?
    nonisolated(unsafe) private static var sharedInstance: PersistentStoreManager?
    /// The thread building the shared manager, while one is: other threads wait on `sharedLock`
    /// (which releases it) until it is done.
    nonisolated(unsafe) private static var sharedBuilder: pthread_t?

    /// Gives the shared manager its configuration (the app's model) and, optionally, a subclass.
    /// Call it once, before the first use of ``shared``.
    ///
    /// ```swift
    /// try PersistentStoreManager.configureShared(.init(model: model), managerType: PhotoStoreManager.self)
    /// ```
    /// - Throws: ``StackError/alreadyConfigured`` when called twice or after first use.
    public static func configureShared(
        _ configuration: Configuration, managerType: PersistentStoreManager.Type = PersistentStoreManager.self
    ) throws {
        try sharedLock.withLock {
            guard sharedSetup == nil, sharedInstance == nil, sharedBuilder == nil else { throw StackError.alreadyConfigured }
            sharedSetup = (configuration, managerType)
        }
    }

    /// The shared manager, set up on first use from ``configureShared(_:managerType:)``.
    /// If setting up fails, the error is thrown and the next use tries again.
    ///
    /// ```swift
    /// let context = try PersistentStoreManager.shared.managedObjectContext
    /// ```
    ///
    /// The manager is built outside any lock: other threads asking for it meanwhile wait until
    /// it is ready; the building thread's own code (a subclass's `init(configuration:)`, the
    /// configuration's `log`) gets ``StackError/sharedManagerBeingCreated`` instead of deadlocking.
    public static var shared: PersistentStoreManager {
        get throws {
            let setup: (configuration: Configuration, type: PersistentStoreManager.Type)
            let me = pthread_self()
            sharedLock.lock()
            while true {
                if let sharedInstance {
                    sharedLock.unlock()
                    return sharedInstance
                }
                guard let builder = sharedBuilder else { break }
                if pthread_equal(builder, me) != 0 {
                    sharedLock.unlock()
                    throw StackError.sharedManagerBeingCreated
                }
                sharedLock.wait()
            }
            guard let configured = sharedSetup else {
                sharedLock.unlock()
                throw StackError.notConfigured
            }
            setup = configured
            sharedBuilder = me
            sharedLock.unlock()

            let built: Result<PersistentStoreManager, any Error> = Result { try setup.type.init(configuration: setup.configuration) }

            sharedLock.lock()
            sharedBuilder = nil
            if case let .success(manager) = built { sharedInstance = manager }
            sharedLock.broadcast()
            sharedLock.unlock()
            return try built.get()
        }
    }

    // MARK: Hooks

    /// Called by ``saveContextAndCleanUpOldObjects()`` on the main context's queue, between its two
    /// saves: delete what is no longer needed. Default: nothing. Throwing goes to ``handleSaveError(_:)``.
    ///
    /// ```swift
    /// final class PhotoStoreManager: PersistentStoreManager {
    ///     override func cleanUpOldObjects(in context: ManagedObjectContext) throws {
    ///         let old = try Photo.all(in: context, predicate: .key("viewed") < weekAgo)
    ///         for photo in old { try context.delete(photo) }
    ///     }
    /// }
    /// ```
    open func cleanUpOldObjects(in context: ManagedObjectContext) throws {}

    /// Called with every error of the saves the manager makes (on the main context's queue).
    /// Default: log it.
    ///
    /// ```swift
    /// override func handleSaveError(_ error: any Error) { crashReporter.record(error) }
    /// ```
    open func handleSaveError(_ error: any Error) {
        configuration.log("saving \(storeURL.lastPathComponent) failed: \(StoreLocation.describe(error))")
    }

    // MARK: Saving

    /// Saves the main context if it has changes, then calls ``cleanUpOldObjects(in:)``, then saves
    /// again only if the hook changed something. Errors go to ``handleSaveError(_:)``. Runs on the
    /// main context's queue and waits for it (safe to call on the main thread).
    ///
    /// ```swift
    /// manager.saveContextAndCleanUpOldObjects()
    /// ```
    public func saveContextAndCleanUpOldObjects() {
        let context = managedObjectContext
        context.performAndWait {
            saveIfNeeded()
            do {
                try cleanUpOldObjects(in: context)
            } catch {
                handleSaveError(error)
            }
            saveIfNeeded()
        }
    }

    /// Saves the main context if it has changes; errors go to ``handleSaveError(_:)``. On the context's queue.
    func saveIfNeeded() {
        let context = managedObjectContext
        guard context.hasChanges else { return }
        do {
            try context.save()
        } catch {
            handleSaveError(error)
        }
    }

    /// Saves from any thread, even one that must not block forever on the main queue (a signal
    /// handler, `atexit`): waits at most `timeout` for the main queue to run the save.
    /// Returns false when the main queue did not run it in time.
    @discardableResult
    public func saveFromAnyThread(timeout: TimeInterval = 5) -> Bool {
        let context = managedObjectContext
        if context.isOnQueue {
            context.performAndWait { saveIfNeeded() }
            return true
        }
        let done = DispatchSemaphore(value: 0)
        context.perform { [self] in
            saveIfNeeded()
            done.signal()
        }
        if done.wait(timeout: .now() + timeout) == .timedOut {
            configuration.log("the main queue did not run the save of \(storeURL.lastPathComponent) within \(timeout) s; unsaved changes may be lost")
            return false
        }
        return true
    }

    // MARK: Opening and quarantine

    struct OpenedStore {
        var store: SQLiteStore
        var resetOrCreated: Bool
        var quarantinedURL: URL?
        var reason: String?
    }

    /// The largest store (with its `-wal` file) the manager checks with `PRAGMA quick_check` when it
    /// opens it: 32 MiB, a check of well under a second on a slow disk (the check reads every page
    /// once). Larger stores open unchecked; damage in them surfaces as
    /// ``CoreStackError/storeCorrupted(path:reason:)`` from the fetch or save that reads it.
    ///
    /// ```swift
    /// PersistentStoreManager.quickCheckSizeLimit   // 33_554_432
    /// ```
    public static let quickCheckSizeLimit: Int64 = 32 << 20

    /// Opens the store, or moves an unusable one aside and creates a fresh one.
    ///
    /// Unusable: not a file (a folder, a socket, … where the store file belongs), not an SQLite
    /// database, damaged (``SQLiteStore/quickCheck(at:)`` fails for a store up to
    /// ``quickCheckSizeLimit``, or a bookkeeping value is wrong), or written with another model
    /// that automatic migration (when `options` ask for it) cannot migrate from.
    static func openStore(
        at url: URL, model: ManagedObjectModel, options: PersistentStoreOptions = PersistentStoreOptions(), log: @Sendable (String) -> Void
    ) throws -> OpenedStore {
        var reason: String?
        if let kind = nonFileKind(at: url) {
            reason = "\(url.lastPathComponent)\(kind.suffix) is \(kind.kind), not a file"
        } else {
            try StoreLocation.prepareFolder(for: url)
            if !FileManager.default.fileExists(atPath: url.path) {
                return OpenedStore(store: try SQLiteStore(url: url, model: model, options: options), resetOrCreated: true)
            }
            do {
                if storeSize(at: url) <= quickCheckSizeLimit { try SQLiteStore.quickCheck(at: url) }
                let store = try SQLiteStore(url: url, model: model, options: options)
                for plan in store.migrationsOnOpen {
                    log("migrated the store \(url.path) to the current model: \(plan.lines.joined(separator: "; "))")
                }
                return OpenedStore(store: store, resetOrCreated: false)
            } catch let error as CoreStackError where isUnusableStore(error) {
                reason = error.description
            } catch let error as MigrationError where error.entity != url.path {
                // A change the migration cannot make (not a failure of the file, such as a store in use).
                reason = error.description
            }
        }
        let why = reason ?? "unusable"
        let moved = try StoreLocation.quarantineStore(at: url)
        log("the store \(url.path) could not be opened (\(why)); moved it to \(moved.path) and created a fresh store")
        try StoreLocation.prepareFolder(for: url)
        let store = try SQLiteStore(url: url, model: model, options: options)
        return OpenedStore(store: store, resetOrCreated: true, quarantinedURL: moved, reason: why)
    }

    /// What stands where the store file or its `-wal`/`-shm` file belongs when it is not a regular
    /// file (a symbolic link counts as what it points to); nil when each is a file or absent.
    static func nonFileKind(at url: URL) -> (suffix: String, kind: String)? {
        let fm = FileManager.default
        for suffix in StoreLocation.fileSuffixes {
            let path = URL(fileURLWithPath: url.path + suffix).resolvingSymlinksInPath().path
            guard let type = (try? fm.attributesOfItem(atPath: path))?[.type] as? FileAttributeType else { continue }
            switch type {
            case .typeRegular: continue
            case .typeDirectory: return (suffix, "a folder")
            case .typeSymbolicLink: return (suffix, "a symbolic link that leads nowhere")
            case .typeSocket: return (suffix, "a socket")
            case .typeCharacterSpecial, .typeBlockSpecial: return (suffix, "a device")
            default: return (suffix, "not a regular file (\(type.rawValue))")
            }
        }
        return nil
    }

    /// The bytes of the store file and its `-wal` file.
    static func storeSize(at url: URL) -> Int64 {
        ["", "-wal"].reduce(Int64(0)) { sum, suffix in
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path + suffix))?[.size] as? NSNumber
            return sum + (size?.int64Value ?? 0)
        }
    }

    /// Errors that mean the file itself is unusable (as opposed to, say, a locked database or a
    /// folder without permission, where moving the file aside would not help).
    static func isUnusableStore(_ error: CoreStackError) -> Bool {
        switch error {
        case .notAStore, .storeCorrupted, .modelMismatch, .migrationRequired, .invalidModel:
            return true
        case let .sqlite(_, message):
            let m = message.lowercased()
            return m.contains("malformed") || m.contains("not a database") || m.contains("corrupt") || m.contains("encrypted")
                || m.contains("no such table") || m.contains("no such column")
        default:
            return false
        }
    }
}
