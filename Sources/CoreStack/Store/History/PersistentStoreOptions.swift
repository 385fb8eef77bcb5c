import Foundation

/// Options a store is opened with (Core Data's store options dictionary, typed): persistent
/// history tracking, remote change notifications and automatic migration. All are off by
/// default, as in Core Data's options dictionary, so stores that do not ask for them pay nothing
/// (``PersistentContainer`` and ``CoreDataStack`` turn automatic migration on, as Apple's
/// container does).
///
/// ```swift
/// var options = PersistentStoreOptions()
/// options.persistentHistoryTracking = true          // NSPersistentHistoryTrackingKey
/// options.remoteChangeNotifications = true          // NSPersistentStoreRemoteChangeNotificationPostOptionKey
/// options.shouldMigrateStoreAutomatically = true    // NSMigratePersistentStoresAutomaticallyOption
/// let store = try SQLiteStore(url: url, model: model, options: options)
/// ```
public struct PersistentStoreOptions: Sendable, Hashable {
    /// Records every committed write in the store's history tables (`ATRANSACTION`, `ACHANGE`,
    /// `ATRANSACTIONSTRING`), in the write's own SQL transaction.
    public var persistentHistoryTracking: Bool
    /// Has the coordinator watch the file for commits by other connections (other processes, other
    /// coordinators) and post remote-change events
    /// (``PersistentStoreCoordinator/addRemoteChangeObserver(queue:_:)``).
    public var remoteChangeNotifications: Bool
    /// How often the coordinator checks for other connections' commits (`PRAGMA data_version`)
    /// when ``remoteChangeNotifications`` is on: the bound on how late an event comes. Default 20 ms.
    public var remoteChangePollInterval: Duration
    /// Migrates a store written with another model before opening it
    /// (`NSMigratePersistentStoresAutomaticallyOption`), when the store's model is known (a
    /// version of the bundle it is opened with, or the model the store carries in `Z_MODELCACHE`)
    /// and the migration is inferred (``shouldInferMappingModelAutomatically``) or covered by the
    /// stages of ``stagedMigrationManager``. The migration is ``SQLiteMigration``'s: a new file,
    /// checked and renamed into place. Off by default; read-only stores are never migrated.
    ///
    /// ```swift
    /// let store = try SQLiteStore(url: url, model: v2, options: PersistentStoreOptions(shouldMigrateStoreAutomatically: true))
    /// ```
    public var shouldMigrateStoreAutomatically: Bool
    /// Lets automatic migration infer the mapping (`NSInferMappingModelAutomaticallyOption`).
    /// On by default; off, only the stages of ``stagedMigrationManager`` migrate.
    ///
    /// ```swift
    /// let options = PersistentStoreOptions(shouldMigrateStoreAutomatically: true, shouldInferMappingModelAutomatically: false,
    ///                                      stagedMigrationManager: manager)   // every step must be a stage
    /// ```
    public var shouldInferMappingModelAutomatically: Bool
    /// The stages automatic migration runs (`NSPersistentStoreStagedMigrationManagerOptionKey`),
    /// for changes inference cannot make. nil by default.
    ///
    /// ```swift
    /// options.stagedMigrationManager = StagedMigrationManager(stages: [.custom(from: v2, to: v3, didMigrate: fill)])
    /// ```
    public var stagedMigrationManager: StagedMigrationManager?

    /// Options; everything off by default (mapping inference on, for when migration is).
    ///
    /// ```swift
    /// let options = PersistentStoreOptions(persistentHistoryTracking: true, remoteChangeNotifications: true)
    /// ```
    public init(
        persistentHistoryTracking: Bool = false, remoteChangeNotifications: Bool = false,
        remoteChangePollInterval: Duration = .milliseconds(20),
        shouldMigrateStoreAutomatically: Bool = false, shouldInferMappingModelAutomatically: Bool = true,
        stagedMigrationManager: StagedMigrationManager? = nil
    ) {
        self.persistentHistoryTracking = persistentHistoryTracking
        self.remoteChangeNotifications = remoteChangeNotifications
        self.remoteChangePollInterval = remoteChangePollInterval
        self.shouldMigrateStoreAutomatically = shouldMigrateStoreAutomatically
        self.shouldInferMappingModelAutomatically = shouldInferMappingModelAutomatically
        self.stagedMigrationManager = stagedMigrationManager
    }
}
