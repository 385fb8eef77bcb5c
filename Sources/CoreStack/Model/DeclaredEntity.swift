import Foundation

/// A ``ManagedObject`` subclass that declares its own entity: the model written once, in Swift.
///
/// The model macro generates the conformance from the class's stored properties; a model is then
/// the list of classes:
///
/// ```swift
/// final class Book: ManagedObject, DeclaredEntity {
///     static var entityDescription: EntityDescription {
///         EntityDescription("Book", class: Book.self) {
///             AttributeDescription("title", .string, isOptional: false)
///         }
///     }
/// }
/// let model = try ManagedObjectModel(declaring: Book.self)
/// ```
public protocol DeclaredEntity: ManagedObject {
    /// The class's entity (a model copies it, so each read may make a new one).
    static var entityDescription: EntityDescription { get }
}

extension ManagedObjectModel {
    /// A model of the entities the classes declare.
    ///
    /// ```swift
    /// let model = try ManagedObjectModel(declaring: Book.self, Author.self)
    /// ```
    public convenience init(declaring types: any DeclaredEntity.Type..., versionName: String? = nil, versionIdentifiers: [String] = []) throws {
        try self.init(declaring: types, versionName: versionName, versionIdentifiers: versionIdentifiers)
    }

    /// A model of the entities the classes declare, from an array.
    ///
    /// ```swift
    /// let model = try ManagedObjectModel(declaring: [Book.self, Author.self])
    /// ```
    public convenience init(declaring types: [any DeclaredEntity.Type], versionName: String? = nil, versionIdentifiers: [String] = []) throws {
        try self.init(entities: types.map { $0.entityDescription }, versionName: versionName, versionIdentifiers: versionIdentifiers)
    }
}
