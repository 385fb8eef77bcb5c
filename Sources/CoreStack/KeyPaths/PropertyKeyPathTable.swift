import Foundation

/// A ``ManagedObject`` subclass that lists its model properties by Swift key path, so that key
/// paths (`\Book.title` in a `#Predicate`, `SortDescriptor(\Book.title)`,
/// a section key path) map to property names by a table look-up instead of a probe.
///
/// Classes declared with the property wrappers need not adopt it: ``PropertyKeyPath`` finds their
/// keys by reading the key path on a probe object (see there). A model macro generates this table;
/// written by hand it must list every property the class declares:
///
/// ```swift
/// final class Book: ManagedObject, PropertyKeyPathTable {
///     @Attribute("title") var title: String
///     @ToOne("publisher") var publisher: Publisher?
///     static var propertyKeyPaths: [PartialKeyPath<Book>: String] { [\Book.title: "title", \Book.publisher: "publisher"] }
/// }
/// ```
public protocol PropertyKeyPathTable: ManagedObject {
    /// The model property each key path of the class names.
    static var propertyKeyPaths: [PartialKeyPath<Self>: String] { get }
}

extension PropertyKeyPathTable {
    /// The property `keyPath` names in ``propertyKeyPaths``, if the table lists it.
    static func tableKey(for keyPath: AnyKeyPath) -> String? {
        guard let typed = keyPath as? PartialKeyPath<Self> else { return nil }
        return propertyKeyPaths[typed]
    }
}
