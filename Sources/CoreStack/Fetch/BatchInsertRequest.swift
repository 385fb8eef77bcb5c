import Foundation

/// Inserts objects straight into the store from dictionaries of attribute values, in one
/// transaction: no object is made and no row cached, so a large import costs the memory of its
/// dictionaries. Missing attributes take their default values.
///
/// Relationships are set by object ID through ``relationships`` (one dictionary per object, by
/// the same index as ``objects``): a to-one becomes the row's foreign key, a many-to-many becomes
/// join-table rows, and a to-many whose inverse is a to-one points the destinations' foreign keys
/// at the new object (in the given order, for an ordered one; the destinations count as updated).
/// Destinations must be saved objects of the relationship's destination entity (or a
/// sub-entity); their existence is not checked.
///
/// ```swift
/// let request = BatchInsertRequest(entityName: "Genre", objects: [["name": "Poetry", "code": 7], ["name": "Drama"]])
/// let changes = try context.execute(request)   // changes.inserted: the new objects' IDs
/// ManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: [mainContext])
///
/// // With relationships: the new IDs in order, then a book that points at them.
/// let chapters = try context.executeBatchInsert(BatchInsertRequest(
///     entityName: "Chapter", objects: [["title": "One"], ["title": "Two"]])).objectIDs
/// try context.executeBatchInsert(BatchInsertRequest(
///     entityName: "Book", objects: [["title": "Atlas"]],
///     relationships: [["chapters": chapters, "publisher": [publisherID]]]))
/// ```
public struct BatchInsertRequest: Sendable {
    /// The entity inserted (a concrete one).
    public var entityName: String
    /// One dictionary per object: attribute name → value.
    public var objects: [[String: AttributeValue]]
    /// One dictionary per object, by the index of ``objects`` (shorter than ``objects``: the rest
    /// have none): relationship name → destination IDs (at most one for a to-one; in order for an
    /// ordered to-many). A relationship left out stays empty.
    ///
    /// A to-one whose inverse is an ordered to-many cannot be set here (the new object would have
    /// no position in it): set the ordered to-many on the other side instead.
    public var relationships: [[String: [ManagedObjectID]]]
    /// The IDs the objects get, one per object in the same order, reserved beforehand with
    /// ``ManagedObjectContext/reserveObjectIDs(forEntityName:count:)`` (of ``entityName``
    /// itself); nil (the default) gives them new IDs. With reserved IDs, requests can point
    /// relationships at objects that another request of the same multi-request
    /// `executeBatchInsert(_:)` call inserts.
    ///
    /// ```swift
    /// let ids = try context.reserveObjectIDs(forEntityName: "Chapter", count: 2)
    /// let request = BatchInsertRequest(entityName: "Chapter", objects: [["title": "One"], ["title": "Two"]], objectIDs: ids)
    /// ```
    public var objectIDs: [ManagedObjectID]?

    /// Inserts one object per dictionary of attribute values, with the relationships of each (by
    /// index), under the reserved `objectIDs` when given.
    public init(
        entityName: String, objects: [[String: AttributeValue]], relationships: [[String: [ManagedObjectID]]] = [],
        objectIDs: [ManagedObjectID]? = nil
    ) {
        self.entityName = entityName
        self.objects = objects
        self.relationships = relationships
        self.objectIDs = objectIDs
    }
}
