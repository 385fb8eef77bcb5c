import Foundation

/// What a ``BatchInsertRequest`` wrote: the new objects' IDs in the request's order, and the
/// existing objects whose foreign keys it changed (destinations of a one-to-many it set).
///
/// ```swift
/// let result = try context.executeBatchInsert(BatchInsertRequest(entityName: "Genre", objects: [["name": "Poetry"]]))
/// result.objectIDs.first      // the ID of "Poetry"
/// ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.changes, into: [mainContext])
/// ```
public struct BatchInsertResult: Sendable {
    /// The inserted objects' IDs, one per object of the request, in its order.
    public var objectIDs: [ManagedObjectID]
    /// Existing objects whose relationships the insert changed (each once, in no fixed order).
    public var updatedObjectIDs: [ManagedObjectID]

    /// A result: the inserted objects' IDs in the request's order, and the existing objects the insert changed.
    ///
    /// ```swift
    /// let result = BatchInsertResult(objectIDs: ids)
    /// ```
    public init(objectIDs: [ManagedObjectID], updatedObjectIDs: [ManagedObjectID] = []) {
        self.objectIDs = objectIDs
        self.updatedObjectIDs = updatedObjectIDs
    }

    /// The changes as a save reports them, for ``ManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)``.
    public var changes: SavedObjectIDs {
        SavedObjectIDs(inserted: Set(objectIDs), updated: Set(updatedObjectIDs))
    }
}
