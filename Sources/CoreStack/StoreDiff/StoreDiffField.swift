/// One compared property of an entity in a ``StoreDiff``: where it is read on each side (a SQL
/// expression, nil when that side's model lacks it) and how its values are read.
struct StoreDiffField {
    enum Kind {
        /// An attribute, with its type on each side (nil where missing).
        case attribute(old: AttributeType?, new: AttributeType?)
        /// A to-one relationship to `destination`; values are the destination's match key.
        case toOne(destination: String)
    }

    var name: String
    var kind: Kind
    var oldExpression: String?
    var newExpression: String?
}
