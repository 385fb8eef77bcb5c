import Foundation

/// Inserts objects straight into the store from dictionaries of attribute values, in one
/// transaction: no object is made and no row cached, so a large import costs the memory of its
/// dictionaries. Missing attributes take their default values.
///
/// ```swift
/// let request = BatchInsertRequest(entityName: "Genre", objects: [["name": "Poetry", "code": 7], ["name": "Drama"]])
/// let changes = try context.execute(request)   // changes.inserted: the new objects' IDs
/// ManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: [mainContext])
/// ```
public struct BatchInsertRequest: Sendable {
    /// The entity inserted (a concrete one).
    public var entityName: String
    /// One dictionary per object: attribute name → value.
    public var objects: [[String: AttributeValue]]

    /// Inserts one object per dictionary of attribute values.
    public init(entityName: String, objects: [[String: AttributeValue]]) {
        self.entityName = entityName
        self.objects = objects
    }
}
