/// One attribute of a matched object whose value differs between the two stores of a ``StoreDiff``.
///
/// ```swift
/// let change = AttributeChange(name: "title", old: "Dune", new: "Dune Messiah")
/// print("\(change.name): \(change.old) → \(change.new)")
/// ```
public struct AttributeChange: Sendable, Hashable {
    /// The attribute's name (in the new model when the models differ).
    public var name: String
    /// Its value in the old store (`.null` when the old model has no such attribute).
    public var old: AttributeValue
    /// Its value in the new store (`.null` when the new model has no such attribute).
    public var new: AttributeValue

    /// A change from its parts.
    ///
    /// ```swift
    /// AttributeChange(name: "pages", old: 412, new: 420)
    /// ```
    public init(name: String, old: AttributeValue, new: AttributeValue) {
        self.name = name
        self.old = old
        self.new = new
    }
}
