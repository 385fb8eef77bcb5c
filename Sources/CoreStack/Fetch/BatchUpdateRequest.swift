import Foundation

/// Changes attributes of every object matching a predicate straight in the store, as one SQL
/// `UPDATE`: no object is fetched, no context sees it until the changes are merged.
///
/// ```swift
/// var request = BatchUpdateRequest(entityName: "Book", predicate: .key("pages") > 1000)
/// request.propertiesToUpdate = ["inPrint": .bool(false)]
/// let changes = try context.execute(request)
/// ManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: [mainContext])
/// ```
public struct BatchUpdateRequest: Sendable {
    /// The entity changed (with its sub-entities when ``includesSubentities``).
    public var entityName: String
    /// Which objects (nil: all).
    public var predicate: Predicate?
    /// Attribute name → new value (checked against the attribute's type).
    public var propertiesToUpdate: [String: AttributeValue]
    /// Whether objects of sub-entities are changed too.
    public var includesSubentities = true

    /// Sets `propertiesToUpdate` on the objects of `entityName` that match `predicate` (all when nil).
    public init(entityName: String, predicate: Predicate? = nil, propertiesToUpdate: [String: AttributeValue] = [:]) {
        self.entityName = entityName
        self.predicate = predicate
        self.propertiesToUpdate = propertiesToUpdate
    }
}
