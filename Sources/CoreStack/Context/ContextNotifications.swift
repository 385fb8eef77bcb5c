import Foundation

/// The names of the notifications contexts post (Core Data's names, for `NotificationCenter` observers).
extension Notification.Name {
    /// Posted by a context when objects changed (at ``ManagedObjectContext/processPendingChanges()``).
    public static let managedObjectContextObjectsDidChange = Notification.Name("NSManagedObjectContextObjectsDidChangeNotification")
    /// Posted by a context before it saves.
    public static let managedObjectContextWillSave = Notification.Name("NSManagedObjectContextWillSaveNotification")
    /// Posted by a context after it saved.
    public static let managedObjectContextDidSave = Notification.Name("NSManagedObjectContextDidSaveNotification")
}

/// Core Data's user-info keys for context notifications.
public enum ContextNotificationKey {
    /// The inserted objects (`Set<ManagedObject>`).
    public static let inserted = "inserted"
    /// The updated objects (`Set<ManagedObject>`).
    public static let updated = "updated"
    /// The deleted objects (`Set<ManagedObject>`).
    public static let deleted = "deleted"
    /// The refreshed objects (`Set<ManagedObject>`, objectsDidChange only).
    public static let refreshed = "refreshed"
    /// Present (true) when the context was reset (objectsDidChange only).
    public static let invalidatedAll = "invalidatedAll"
    /// The inserted objects' IDs (`Set<ManagedObjectID>`, did-save only).
    public static let insertedObjectIDs = "inserted_objectIDs"
    /// The updated objects' IDs (`Set<ManagedObjectID>`, did-save only).
    public static let updatedObjectIDs = "updated_objectIDs"
    /// The deleted objects' IDs (`Set<ManagedObjectID>`, did-save only).
    public static let deletedObjectIDs = "deleted_objectIDs"
}

/// What changed in a context since the last objectsDidChange. Valid on the context's queue only.
///
/// ```swift
/// let token = context.addObjectsDidChangeObserver { change in
///     print(change.inserted.count, change.updated.count, change.deleted.count)
/// }
/// ```
public struct ObjectsDidChange {
    /// The context that changed.
    public let context: ManagedObjectContext
    /// Objects inserted since the last objectsDidChange.
    public let inserted: Set<ManagedObject>
    /// Objects changed since the last objectsDidChange.
    public let updated: Set<ManagedObject>
    /// Objects deleted since the last objectsDidChange.
    public let deleted: Set<ManagedObject>
    /// Objects refreshed from newer saved state (by a merge, a refresh or a rollback).
    public let refreshed: Set<ManagedObject>
    /// True after ``ManagedObjectContext/reset()``: every object is gone.
    public let invalidatedAll: Bool
}

/// What a save wrote: the objects (valid on the saving context's queue) and their IDs (Sendable).
///
/// ```swift
/// let token = context.addDidSaveObserver { saved in
///     other.perform { other.mergeChanges(from: saved.objectIDs) }
/// }
/// ```
public struct ContextDidSave {
    /// The context that saved.
    public let context: ManagedObjectContext
    /// Objects the save inserted.
    public let inserted: Set<ManagedObject>
    /// Objects the save updated.
    public let updated: Set<ManagedObject>
    /// Objects the save deleted.
    public let deleted: Set<ManagedObject>
    /// The IDs of the saved objects, to hand to other queues.
    public let objectIDs: SavedObjectIDs
    /// For a root context's save that met optimistic-locking conflicts and resolved them by its
    /// merge policy: per object, the conflict and the value that won for each property (empty
    /// otherwise). Also ``ManagedObjectContext/lastSaveMergeResolutions``.
    ///
    /// ```swift
    /// let token = context.addDidSaveObserver { saved in
    ///     for r in saved.mergeResolutions { print(r.conflict.objectID, r.policy.name, r.winners) }
    /// }
    /// ```
    public internal(set) var mergeResolutions: [MergeResolution] = []
    /// For a child context's save: the parent's pending (unsaved) changes the push replaced, per
    /// object and property (no merge policy runs there). Also
    /// ``ManagedObjectContext/lastSaveReplacedParentChanges``.
    ///
    /// ```swift
    /// let token = child.addDidSaveObserver { saved in
    ///     for r in saved.replacedParentChanges { print(r.propertyName, r.parentValue, "→", r.childValue) }
    /// }
    /// ```
    public internal(set) var replacedParentChanges: [ParentChangeReplacement] = []
}

/// The IDs of what a save wrote: Sendable, for merging into other contexts.
public struct SavedObjectIDs: Sendable, Hashable {
    /// IDs of inserted objects (permanent).
    public var inserted: Set<ManagedObjectID>
    /// IDs of updated objects.
    public var updated: Set<ManagedObjectID>
    /// IDs of deleted objects.
    public var deleted: Set<ManagedObjectID>

    /// ID sets, for merging changes made elsewhere.
    ///
    /// ```swift
    /// context.mergeChanges(from: SavedObjectIDs(updated: [bookID]))
    /// ```
    public init(inserted: Set<ManagedObjectID> = [], updated: Set<ManagedObjectID> = [], deleted: Set<ManagedObjectID> = []) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    /// Whether no ID is listed.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

/// Keeps an observer registered; remove it with ``ManagedObjectContext/removeObserver(_:)`` or by
/// dropping every reference to the token.
public final class ObservationToken: Sendable {
    let id: Int
    weak let context: ManagedObjectContext?

    init(id: Int, context: ManagedObjectContext) {
        self.id = id
        self.context = context
    }

    deinit {
        // A token may die on any thread; the observer list is locked.
        context?.observers.remove(id)
    }
}

/// The typed observers of one context.
///
/// Registering and removing observers may happen on any thread (as with `NotificationCenter`):
/// the lists are guarded by a lock. Delivery takes a snapshot under the lock and calls the
/// observers after releasing it, on the context's queue, so an observer may add or remove
/// observers (its own included) from its callback, and no user code runs under the lock.
final class ContextObservers: @unchecked Sendable {
    private let lock = NSLock()
    private var nextID = 0
    private var objectsDidChangeList: [(Int, (ObjectsDidChange) -> Void)] = []
    private var willSaveList: [(Int, (ManagedObjectContext) -> Void)] = []
    private var didSaveList: [(Int, (ContextDidSave) -> Void)] = []
    private var afterDidSaveList: [(Int, (ContextDidSave) -> Void)] = []
    private var rowClaimList: [(Int, ([ManagedObjectID]) -> [ManagedObjectID])] = []

    /// A snapshot of the objectsDidChange observers, in registration order.
    var objectsDidChange: [(Int, (ObjectsDidChange) -> Void)] { lock.withLock { objectsDidChangeList } }
    /// A snapshot of the willSave observers, in registration order.
    var willSave: [(Int, (ManagedObjectContext) -> Void)] { lock.withLock { willSaveList } }
    /// A snapshot of the didSave observers, in registration order.
    var didSave: [(Int, (ContextDidSave) -> Void)] { lock.withLock { didSaveList } }
    /// A snapshot of the framework's own follow-ups of a save, run after every didSave observer
    /// and the notification (a stack's bubbling to the parent), in registration order.
    var afterDidSave: [(Int, (ContextDidSave) -> Void)] { lock.withLock { afterDidSaveList } }
    /// A snapshot of the row claimers: given IDs of objects the context does not hold, each
    /// returns those it keeps rows of (a fetched-results controller keeping IDs), so that a merge
    /// registers them and reports their changes.
    var rowClaims: [(Int, ([ManagedObjectID]) -> [ManagedObjectID])] { lock.withLock { rowClaimList } }

    func add(objectsDidChange f: @escaping (ObjectsDidChange) -> Void) -> Int {
        lock.withLock {
            nextID += 1
            objectsDidChangeList.append((nextID, f))
            return nextID
        }
    }

    func add(willSave f: @escaping (ManagedObjectContext) -> Void) -> Int {
        lock.withLock {
            nextID += 1
            willSaveList.append((nextID, f))
            return nextID
        }
    }

    func add(didSave f: @escaping (ContextDidSave) -> Void) -> Int {
        lock.withLock {
            nextID += 1
            didSaveList.append((nextID, f))
            return nextID
        }
    }

    func add(afterDidSave f: @escaping (ContextDidSave) -> Void) -> Int {
        lock.withLock {
            nextID += 1
            afterDidSaveList.append((nextID, f))
            return nextID
        }
    }

    func add(rowClaim f: @escaping ([ManagedObjectID]) -> [ManagedObjectID]) -> Int {
        lock.withLock {
            nextID += 1
            rowClaimList.append((nextID, f))
            return nextID
        }
    }

    func remove(_ id: Int) {
        lock.withLock {
            rowClaimList.removeAll { $0.0 == id }
            objectsDidChangeList.removeAll { $0.0 == id }
            willSaveList.removeAll { $0.0 == id }
            didSaveList.removeAll { $0.0 == id }
            afterDidSaveList.removeAll { $0.0 == id }
        }
    }
}
