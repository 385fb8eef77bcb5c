import Foundation

/// Deletes every object matching a predicate (or the given objects) straight in the store, in
/// SQL. Delete rules the store can apply in SQL are applied: nullify (and no action) clears the
/// other side's foreign keys and join-table rows; deny and cascade refuse the whole request with
/// a clear error when an object to delete has a destination there (delete those with a context).
///
/// ```swift
/// let changes = try context.execute(BatchDeleteRequest(entityName: "Chapter", predicate: .key("wordCount") == 0))
/// ManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: [mainContext])
/// ```
public struct BatchDeleteRequest: Sendable {
    /// The entity deleted from (with its sub-entities).
    public var entityName: String
    /// Which objects (nil: all); ignored when ``objectIDs`` is set.
    public var predicate: Predicate?
    /// These objects instead of a predicate (all of the entity or its sub-entities).
    public var objectIDs: [ManagedObjectID]?

    /// Deletes the objects of `entityName` that match `predicate` (all when nil).
    public init(entityName: String, predicate: Predicate? = nil) {
        self.entityName = entityName
        self.predicate = predicate
    }

    /// Deletes these objects (all of one entity tree).
    public init(objectIDs: [ManagedObjectID]) {
        self.entityName = objectIDs.first?.entity.name ?? ""
        self.objectIDs = objectIDs
    }
}
