/// An object present in both stores of a ``StoreDiff`` whose attributes or to-one relationships differ.
///
/// ```swift
/// for change in entityDiff.changed {
///     print(change.key, change.attributes.map { "\($0.name): \($0.old) → \($0.new)" })
/// }
/// ```
public struct ObjectChange: Sendable, Hashable {
    /// The value that matched the object: its primary key, or its match attribute's value.
    public var key: AttributeValue
    /// Its primary key (`Z_PK`) in the old store.
    public var oldPrimaryKey: Int64
    /// Its primary key (`Z_PK`) in the new store.
    public var newPrimaryKey: Int64
    /// The attributes whose values differ, in the model's order.
    public var attributes: [AttributeChange]
    /// The to-one relationships that point elsewhere, in the model's order.
    public var relationships: [RelationshipChange]

    /// A change from its parts.
    ///
    /// ```swift
    /// ObjectChange(key: 12, oldPrimaryKey: 12, newPrimaryKey: 12,
    ///              attributes: [AttributeChange(name: "title", old: "A", new: "B")], relationships: [])
    /// ```
    public init(
        key: AttributeValue, oldPrimaryKey: Int64, newPrimaryKey: Int64, attributes: [AttributeChange],
        relationships: [RelationshipChange]
    ) {
        self.key = key
        self.oldPrimaryKey = oldPrimaryKey
        self.newPrimaryKey = newPrimaryKey
        self.attributes = attributes
        self.relationships = relationships
    }
}
