import Foundation

/// One object's stored state as ``ManagedObjectContext/streamRows(_:includingToMany:_:)`` reads it
/// from the store: no object is made and nothing is cached, so reading a million rows costs the
/// memory of one chunk of them.
///
/// ```swift
/// try context.streamRows(FetchRequest<ManagedObject>(entityName: "Book")) { row in
///     print(row.objectID, row.value(forKey: "title") ?? .null)
/// }
/// ```
public struct FetchedRow: Sendable {
    /// The object's ID (its entity is the row's concrete entity).
    public var objectID: ManagedObjectID
    /// Attribute values, to-one destinations and version, by slot of the concrete entity.
    public var snapshot: RowSnapshot
    /// To-many destinations by relationship slot (in order for ordered relationships); empty
    /// when the stream was asked for no to-many relationships.
    public var toMany: [Int: [ManagedObjectID]]

    /// A row from its ID, snapshot and to-many destinations.
    public init(objectID: ManagedObjectID, snapshot: RowSnapshot, toMany: [Int: [ManagedObjectID]] = [:]) {
        self.objectID = objectID
        self.snapshot = snapshot
        self.toMany = toMany
    }

    /// The row's entity.
    public var entity: EntityDescription { objectID.entity }

    /// An attribute's value (nil for a key that is not an attribute of the entity).
    ///
    /// ```swift
    /// row.value(forKey: "title") // .string("Dune")
    /// ```
    public func value(forKey key: String) -> AttributeValue? {
        guard let slot = entity.attributeSlots[key], slot < snapshot.values.count else { return nil }
        return snapshot.values[slot]
    }

    /// A relationship's destinations: zero or one for a to-one, all of them for a to-many (nil for
    /// a key that is not a relationship, or a to-many the stream did not read).
    ///
    /// ```swift
    /// row.destinations(forKey: "authors") // [ManagedObjectID]
    /// ```
    public func destinations(forKey key: String) -> [ManagedObjectID]? {
        guard let slot = entity.relationshipSlots[key] else { return nil }
        if entity.allRelationships[slot].isToMany { return toMany[slot] }
        return (slot < snapshot.toOne.count ? snapshot.toOne[slot] : nil).map { [$0] } ?? []
    }
}
