import Foundation

/// The name of the notification a coordinator posts when another connection committed to its store.
extension Notification.Name {
    /// Posted by a coordinator (the notification's object) when another connection committed to
    /// its store (Core Data's `NSPersistentStoreRemoteChangeNotification`); the user info holds
    /// ``RemoteChangeKey`` entries. It is posted asynchronously, in commit order, from a serial
    /// queue of the coordinator's (observers with `queue: nil` run there), after the row cache
    /// dropped the changed rows: a slow observer delays later notifications, not the noticing of
    /// commits or ``PersistentStoreCoordinator/addRemoteChangeObserver(queue:_:)`` observers.
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .persistentStoreRemoteChange, object: coordinator, queue: nil) { note in
    ///     let token = note.userInfo?[RemoteChangeKey.historyToken] as? PersistentHistoryToken
    /// }
    /// ```
    public static let persistentStoreRemoteChange = Notification.Name("NSPersistentStoreRemoteChangeNotification")
}

/// The user-info keys of ``Foundation/NSNotification/Name/persistentStoreRemoteChange`` (Core Data's names).
///
/// ```swift
/// let change = note.userInfo?[RemoteChangeKey.change] as? RemoteStoreChange
/// ```
public enum RemoteChangeKey {
    /// The store file's URL.
    public static let storeURL = "storeURL"
    /// The store's UUID.
    public static let storeUUID = "storeUUID"
    /// The ``PersistentHistoryToken`` of the last transaction, when the store keeps history.
    public static let historyToken = "historyToken"
    /// The whole ``RemoteStoreChange``.
    public static let change = "change"
}
