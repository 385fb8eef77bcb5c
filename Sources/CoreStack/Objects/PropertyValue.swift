import Foundation

/// The value of any property: an attribute value, a to-one destination, or to-many destinations.
///
/// ```swift
/// for (key, value) in book.changedValues() {
///     print(key, value)   // title "Dune Messiah", authors [x-coredata://…/Author/p3]
/// }
/// ```
public enum PropertyValue: Sendable, Hashable, CustomStringConvertible {
    /// An attribute's value.
    case attribute(AttributeValue)
    /// A to-one relationship's destination, or nil.
    case toOne(ManagedObjectID?)
    /// A to-many relationship's destinations (in the relationship's order when it is ordered).
    case toMany([ManagedObjectID])

    /// The value as text: the attribute value, or the destination IDs.
    public var description: String {
        switch self {
        case let .attribute(v): v.description
        case let .toOne(id): id?.description ?? "nil"
        case let .toMany(ids): "[" + ids.map(\.description).joined(separator: ", ") + "]"
        }
    }

    /// The attribute value, for attributes.
    public var attributeValue: AttributeValue? { if case let .attribute(v) = self { v } else { nil } }
}
