import CoreStack

/// Declares a ``CoreStack/ManagedObject`` subclass's entity from its stored properties: the
/// model written once, in Swift.
///
/// Each stored `var` becomes a model property read and written through the object (an attribute
/// for String, Int, Int16, Int32, Int64, Double, Float, Bool, Date, Data, UUID, URL and Decimal,
/// optional or not; a to-one relationship for `Entity?`, to-many for `Set<Entity>`, ordered to-many
/// for `[Entity]`). The macro adds `entityName`, `entityDescription` (``CoreStack/DeclaredEntity``)
/// and, for a final class, `propertyKeyPaths` (``CoreStack/PropertyKeyPathTable``), so a model is the
/// list of classes and key paths map to properties by table.
///
/// ```swift
/// @Entity final class Author: ManagedObject {
///     @Unique var name: String
///     var born: Date?
///     @Relationship(inverse: "authors") var books: Set<Book>
/// }
///
/// @Entity final class Book: ManagedObject {
///     @Indexed var title: String
///     var pages: Int32 = 100
///     @Relationship(inverse: \Author.books) var authors: Set<Author>
///     @Relationship(inverse: \Chapter.book, deleteRule: .cascade) var chapters: [Chapter]
/// }
///
/// let model = try ManagedObjectModel(declaring: Author.self, Book.self, Chapter.self)
/// ```
///
/// - Parameters:
/// A class that inherits from another entity's class (declared with ``ParentEntity(_:isAbstract:originalName:hashModifier:)``)
/// declares a sub-entity of it.
///
/// - Parameters:
///   - name: the entity's name; the class's name when omitted.
///   - originalName: the entity's renaming identifier, for a migration from a model where it had that name.
///   - hashModifier: the entity's version hash modifier.
@attached(member, names: named(entityName), named(entityDescription), named(propertyKeyPaths))
@attached(memberAttribute)
@attached(extension, conformances: DeclaredEntity, PropertyKeyPathTable)
public macro Entity(
    _ name: String? = nil,
    originalName: String? = nil,
    hashModifier: String? = nil
) = #externalMacro(module: "CoreStackMacros", type: "EntityMacro")

/// SwiftData's spelling of ``Entity(_:originalName:hashModifier:)``:
/// the same macro.
///
/// ```swift
/// @Model final class Trip: ManagedObject {
///     var name: String
///     var start: Date?
/// }
/// ```
@attached(member, names: named(entityName), named(entityDescription), named(propertyKeyPaths))
@attached(memberAttribute)
@attached(extension, conformances: DeclaredEntity, PropertyKeyPathTable)
public macro Model(
    _ name: String? = nil,
    originalName: String? = nil,
    hashModifier: String? = nil
) = #externalMacro(module: "CoreStackMacros", type: "EntityMacro")

/// Declares an entity other entities inherit from: `@Entity` for a class that is not final, and
/// whose subclasses declare the sub-entities (with `@Entity`, or `@ParentEntity` again).
///
/// It generates what `@Entity` does, but `class var`s that the subclasses override, and no key
/// path table (a non-final class cannot list `PartialKeyPath<Self>`; its key paths are found by
/// probing, as for the property wrappers).
///
/// ```swift
/// @ParentEntity(isAbstract: true) class Person: ManagedObject {
///     var name: String
/// }
/// @Entity final class Author: Person {
///     var website: URL?
/// }
/// ```
///
/// - Parameters:
///   - name: the entity's name; the class's name when omitted.
///   - isAbstract: an abstract entity (objects only of its sub-entities).
///   - originalName: the entity's renaming identifier.
///   - hashModifier: the entity's version hash modifier.
@attached(member, names: named(entityName), named(entityDescription))
@attached(memberAttribute)
@attached(extension, conformances: DeclaredEntity)
public macro ParentEntity(
    _ name: String? = nil,
    isAbstract: Bool = false,
    originalName: String? = nil,
    hashModifier: String? = nil
) = #externalMacro(module: "CoreStackMacros", type: "EntityMacro")

/// The accessors of one model property, which `@Entity` puts on each stored `var` (not written by hand).
///
/// ```swift
/// @_ManagedProperty var title: String
/// // var title: String { get { value(ofAttribute: "title") } set { setValue(newValue, ofAttribute: "title") } }
/// ```
@attached(accessor, names: named(init), named(get), named(set))
public macro _ManagedProperty() = #externalMacro(module: "CoreStackMacros", type: "ManagedPropertyMacro")
