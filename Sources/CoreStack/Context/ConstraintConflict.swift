import Foundation

/// Objects that would break one of an entity's uniqueness constraints if saved (Core Data's
/// `NSConstraintConflict`): they, or one of them and a row already in the store, hold the same
/// values for the constraint's properties. Thrown under ``MergePolicy/error``, and under any
/// policy for conflicts it cannot merge (see ``MergePolicy``); a custom policy sees each one
/// (``CustomMergePolicy/init(name:constraintConflicts:resolve:)``).
///
/// ```swift
/// do { try context.save() } catch let CoreStackError.constraintConflict(conflicts) {
///     for c in conflicts { print(c.entity, c.properties, c.values, c.objectIDs, c.databaseObjectID as Any) }
/// }
/// ```
public struct ConstraintConflict: Sendable, Equatable, CustomStringConvertible {
    /// The entity that declares the constraint.
    public var entity: String
    /// The constraint: the properties whose values must be unique together.
    public var properties: [String]
    /// The values the objects share, one per property.
    public var values: [AttributeValue]
    /// The objects of the save that hold them (Core Data's `conflictingObjects`).
    public var objectIDs: [ManagedObjectID]
    /// The row already in the store that holds them, if any (Core Data's `databaseObject`).
    public var databaseObjectID: ManagedObjectID?

    /// A conflict from its parts.
    public init(entity: String, properties: [String], values: [AttributeValue], objectIDs: [ManagedObjectID], databaseObjectID: ManagedObjectID?) {
        self.entity = entity
        self.properties = properties
        self.values = values
        self.objectIDs = objectIDs
        self.databaseObjectID = databaseObjectID
    }

    /// The conflict in one line: the entity, the properties and values shared, and the objects.
    public var description: String {
        let pairs = zip(properties, values).map { "\($0) = \($1)" }.joined(separator: ", ")
        let stored = databaseObjectID.map { " and the stored \($0.uriRepresentation().absoluteString)" } ?? ""
        return "\(entity) (\(pairs)): \(objectIDs.count) object(s) being saved\(stored)"
    }
}
