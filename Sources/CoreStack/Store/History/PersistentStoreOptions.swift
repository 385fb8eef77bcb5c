import Foundation

/// Options a store is opened with (Core Data's store options dictionary, typed): persistent
/// history tracking and remote change notifications. Both are off by default, so stores that do
/// not ask for them pay nothing.
///
/// ```swift
/// var options = PersistentStoreOptions()
/// options.persistentHistoryTracking = true          // NSPersistentHistoryTrackingKey
/// options.remoteChangeNotifications = true          // NSPersistentStoreRemoteChangeNotificationPostOptionKey
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

    /// Options; everything off by default.
    ///
    /// ```swift
    /// let options = PersistentStoreOptions(persistentHistoryTracking: true, remoteChangeNotifications: true)
    /// ```
    public init(
        persistentHistoryTracking: Bool = false, remoteChangeNotifications: Bool = false,
        remoteChangePollInterval: Duration = .milliseconds(20)
    ) {
        self.persistentHistoryTracking = persistentHistoryTracking
        self.remoteChangeNotifications = remoteChangeNotifications
        self.remoteChangePollInterval = remoteChangePollInterval
    }
}
