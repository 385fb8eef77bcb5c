import Foundation

/// The committed state of one object as a store holds it: attribute values by slot, to-one
/// destinations by relationship slot, and the row version (`Z_OPT`).
///
/// Shared by the coordinator's row cache and every context that fires a fault from it.
public struct RowSnapshot: Sendable, Equatable {
    /// Attribute values, indexed like the concrete entity's ``EntityDescription/allAttributes``
    /// (transient attributes hold their default value).
    public var values: [AttributeValue]
    /// To-one destinations, indexed like ``EntityDescription/allRelationships``; nil for an empty
    /// to-one and for every to-many slot.
    public var toOne: [ManagedObjectID?]
    /// The row version: 1 after the first save, +1 on each save of the row.
    public var version: Int64

    /// A snapshot from its values, to-one destinations and row version.
    public init(values: [AttributeValue], toOne: [ManagedObjectID?], version: Int64) {
        self.values = values
        self.toOne = toOne
        self.version = version
    }
}

/// One row a store returned: an object ID and its snapshot.
public struct StoreRow: Sendable {
    /// The row's object ID.
    public var objectID: ManagedObjectID
    /// The row's values, to-one destinations and version.
    public var snapshot: RowSnapshot

    /// A row from its ID and snapshot.
    public init(objectID: ManagedObjectID, snapshot: RowSnapshot) {
        self.objectID = objectID
        self.snapshot = snapshot
    }

    /// The row's snapshot, swapped out of the row (which is left with an empty one): unlike a
    /// copy, this retains none of the snapshot's arrays.
    mutating func takeSnapshot() -> RowSnapshot {
        var taken = RowSnapshot(values: [], toOne: [], version: 0)
        swap(&taken, &snapshot)
        return taken
    }
}
