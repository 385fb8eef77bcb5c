/// A to-one relationship of a matched object that points elsewhere in the new store.
///
/// Destinations are named by the value that matches them: their primary key when both files are
/// the same store, else their entity's match key (``StoreDiffMatch``); `.null` is no destination.
/// To-many relationships stored through the inverse to-one show as that to-one's change on the
/// destination objects.
///
/// ```swift
/// let change = RelationshipChange(name: "author", destinationEntity: "Author", old: 3, new: 7)
/// print("\(change.name): \(change.destinationEntity) \(change.old) → \(change.new)")
/// ```
public struct RelationshipChange: Sendable, Hashable {
    /// The relationship's name (in the new model when the models differ).
    public var name: String
    /// The relationship's destination entity.
    public var destinationEntity: String
    /// The old destination's key (`.null`: none).
    public var old: AttributeValue
    /// The new destination's key (`.null`: none).
    public var new: AttributeValue

    /// A change from its parts.
    ///
    /// ```swift
    /// RelationshipChange(name: "publisher", destinationEntity: "Publisher", old: .null, new: 2)
    /// ```
    public init(name: String, destinationEntity: String, old: AttributeValue, new: AttributeValue) {
        self.name = name
        self.destinationEntity = destinationEntity
        self.old = old
        self.new = new
    }
}
