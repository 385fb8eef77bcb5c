import Foundation

/// A pending (unsaved) change of a parent context that a child's save replaced: a child's save
/// pushes its values into the parent with no conflict check, so a value the parent held from an
/// earlier save of another child (or its own edit) is simply overwritten.
///
/// ```swift
/// try child2.save()
/// for r in child2.lastSaveReplacedParentChanges {
///     print("\(r.objectID) \(r.propertyName): \(r.parentValue) → \(r.childValue)")
/// }
/// ```
public struct ParentChangeReplacement: Sendable, Hashable {
    /// The object in the parent.
    public var objectID: ManagedObjectID
    /// The property replaced.
    public var propertyName: String
    /// The parent's pending value before the push.
    public var parentValue: PropertyValue
    /// The child's value, now the parent's.
    public var childValue: PropertyValue

    /// A replaced pending change of `propertyName` on `objectID`.
    public init(objectID: ManagedObjectID, propertyName: String, parentValue: PropertyValue, childValue: PropertyValue) {
        self.objectID = objectID
        self.propertyName = propertyName
        self.parentValue = parentValue
        self.childValue = childValue
    }
}
