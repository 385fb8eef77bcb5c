/// A link of a to-many relationship stored in a join table (many-to-many, or without inverse)
/// that one store of a ``StoreDiff`` has and the other lacks.
///
/// Objects are named by the value that matches them (primary key, or match key). To-many
/// relationships whose inverse is a to-one show as that to-one's ``RelationshipChange`` instead.
///
/// ```swift
/// for link in entityDiff.links {
///     print(link.isLinked ? "+" : "-", link.relationship, link.source, "→", link.destinationEntity, link.destination)
/// }
/// ```
public struct RelationshipLinkChange: Sendable, Hashable {
    /// The relationship's name (in the new model when the models differ).
    public var relationship: String
    /// The key of the object that owns the relationship.
    public var source: AttributeValue
    /// The relationship's destination entity.
    public var destinationEntity: String
    /// The key of the destination object.
    public var destination: AttributeValue
    /// True: linked in the new store; false: unlinked (only the old store has it).
    public var isLinked: Bool

    /// A link change from its parts.
    ///
    /// ```swift
    /// RelationshipLinkChange(relationship: "authors", source: 3, destinationEntity: "Author", destination: 5, isLinked: true)
    /// ```
    public init(relationship: String, source: AttributeValue, destinationEntity: String, destination: AttributeValue, isLinked: Bool) {
        self.relationship = relationship
        self.source = source
        self.destinationEntity = destinationEntity
        self.destination = destination
        self.isLinked = isLinked
    }
}
