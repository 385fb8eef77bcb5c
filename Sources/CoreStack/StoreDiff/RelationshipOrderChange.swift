/// An ordered to-many relationship of an object present in both stores of a ``StoreDiff`` whose
/// shared members are in another order: the members that moved, each from its old position to its
/// new one.
///
/// Members linked or unlinked on the way are not moves (they show as links made or removed, or as
/// the inverse to-one's change); the members both stores have are compared, and the fewest of them
/// that have to move to turn the old order into the new one are reported (the others keep their
/// order relative to each other). Objects are named by the value that matches them (primary key,
/// or match key), as in ``RelationshipLinkChange``.
///
/// ```swift
/// for change in entityDiff.reorders {
///     let moves = change.moves.map { "\($0.destination) \($0.oldIndex)→\($0.newIndex)" }
///     print(change.source, change.relationship, moves.joined(separator: ", "))
/// }
/// ```
public struct RelationshipOrderChange: Sendable, Hashable {
    /// The relationship's name (in the new model when the models differ).
    public var relationship: String
    /// The key of the object that owns the relationship.
    public var source: AttributeValue
    /// The owner's primary key (`Z_PK`) in the old store.
    public var oldPrimaryKey: Int64
    /// The owner's primary key (`Z_PK`) in the new store.
    public var newPrimaryKey: Int64
    /// The relationship's destination entity.
    public var destinationEntity: String
    /// How many members the relationship has in the old store.
    public var oldCount: Int
    /// How many members it has in the new store.
    public var newCount: Int
    /// The members that moved, in their new order.
    public var moves: [RelationshipOrderMove]

    /// An order change from its parts.
    ///
    /// ```swift
    /// RelationshipOrderChange(
    ///     relationship: "chapters", source: 4, oldPrimaryKey: 4, newPrimaryKey: 4, destinationEntity: "Chapter",
    ///     oldCount: 3, newCount: 3, moves: [RelationshipOrderMove(destination: 9, oldIndex: 2, newIndex: 0)])
    /// ```
    public init(
        relationship: String, source: AttributeValue, oldPrimaryKey: Int64, newPrimaryKey: Int64, destinationEntity: String,
        oldCount: Int, newCount: Int, moves: [RelationshipOrderMove]
    ) {
        self.relationship = relationship
        self.source = source
        self.oldPrimaryKey = oldPrimaryKey
        self.newPrimaryKey = newPrimaryKey
        self.destinationEntity = destinationEntity
        self.oldCount = oldCount
        self.newCount = newCount
        self.moves = moves
    }
}
