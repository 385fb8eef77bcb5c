/// One destination of an ordered to-many relationship that changed place among the members both
/// stores of a ``StoreDiff`` share (see ``RelationshipOrderChange``).
///
/// Indexes are positions in each store's whole order (members only one store has included), so
/// `oldIndex` and `newIndex` are what a user sees at each side; only the members that have to
/// move to turn the old order of the shared members into the new one are moves.
///
/// ```swift
/// let move = RelationshipOrderMove(destination: 12, oldIndex: 3, newIndex: 0)
/// print("\(move.destination): \(move.oldIndex) → \(move.newIndex)")
/// ```
public struct RelationshipOrderMove: Sendable, Hashable {
    /// The key of the destination object that moved (primary key, or match key).
    public var destination: AttributeValue
    /// Its position (from 0) in the old store's order.
    public var oldIndex: Int
    /// Its position (from 0) in the new store's order.
    public var newIndex: Int

    /// A move from its parts.
    ///
    /// ```swift
    /// RelationshipOrderMove(destination: "Prologue", oldIndex: 2, newIndex: 0)
    /// ```
    public init(destination: AttributeValue, oldIndex: Int, newIndex: Int) {
        self.destination = destination
        self.oldIndex = oldIndex
        self.newIndex = newIndex
    }
}
