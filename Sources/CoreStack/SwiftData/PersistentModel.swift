import Foundation

/// SwiftData's name for a model class: here, a ``ManagedObject`` subclass that declares its entity.
///
/// A class the model macro writes (or one written by hand as the macro would, with computed
/// properties over the accessors) is a persistent model as it is: the SwiftData-shaped API
/// (``ModelContainer``, ``ModelContext``, ``FetchDescriptor``) takes any ``DeclaredEntity``.
///
/// ```swift
/// final class Book: ManagedObject, DeclaredEntity, PropertyKeyPathTable {
///     var title: String {
///         get { value(ofAttribute: "title") }
///         set { setValue(newValue, ofAttribute: "title") }
///     }
///     static var entityDescription: EntityDescription {
///         EntityDescription("Book", class: Book.self) { AttributeDescription("title", .string) }
///     }
///     static var propertyKeyPaths: [PartialKeyPath<Book>: String] { [\Book.title: "title"] }
/// }
/// let container = try ModelContainer(for: Book.self, configurations: ModelConfiguration(url: url))
/// ```
public typealias PersistentModel = DeclaredEntity

extension ManagedObject {
    /// The object's identifier in SwiftData's shape (its ``ManagedObjectID``; temporary until the
    /// object is first saved, as in SwiftData).
    ///
    /// ```swift
    /// let id = book.persistentModelID
    /// let again = try context.model(for: id)
    /// ```
    public var persistentModelID: PersistentIdentifier { PersistentIdentifier(objectID) }
}
