import CoreStack

/// A uniqueness constraint on one attribute of an `@Entity` class (a save that would store two
/// objects with the same value fails, or merges them, as the context's merge policy says).
///
/// ```swift
/// @Unique var isbn: String
/// ```
@attached(peer)
public macro Unique() = #externalMacro(module: "CoreStackMacros", type: "MarkerMacro")

/// An index on an attribute's column.
///
/// ```swift
/// @Indexed var title: String
/// ```
@attached(peer)
public macro Indexed() = #externalMacro(module: "CoreStackMacros", type: "MarkerMacro")

/// A transient property: in the object's memory and its context, never in the store.
///
/// ```swift
/// @Transient var isSelected: Bool = false
/// ```
@attached(peer)
public macro Transient() = #externalMacro(module: "CoreStackMacros", type: "MarkerMacro")

/// A relationship's inverse (required on both sides: a key path to the relationship back on one
/// side, its name on the other: see the overload that takes a name)
/// and options.
///
/// ```swift
/// @Relationship(inverse: \Chapter.book, deleteRule: .cascade) var chapters: [Chapter]
/// @Relationship(inverse: "chapters") var book: Book?
/// ```
///
/// - Parameters:
///   - inverse: the relationship back, on the destination's class.
///   - deleteRule: what deleting this object does to its destinations (``CoreStack/RelationshipDescription/DeleteRule``).
///   - minCount: the fewest destinations at save time (0: no minimum).
///   - maxCount: the most destinations at save time (0: no maximum).
///   - originalName: the renaming identifier, for a migration from a model where it had that name.
///   - hashModifier: the relationship's version hash modifier.
@attached(peer)
public macro Relationship<Root: ManagedObject, Value>(
    inverse: KeyPath<Root, Value>,
    deleteRule: RelationshipDescription.DeleteRule = .nullify,
    minCount: Int = 0,
    maxCount: Int = 0,
    originalName: String? = nil,
    hashModifier: String? = nil
) = #externalMacro(module: "CoreStackMacros", type: "MarkerMacro")

/// ``Relationship(inverse:deleteRule:minCount:maxCount:originalName:hashModifier:)`` with the
/// delete rule first, as SwiftData writes it.
///
/// ```swift
/// @Relationship(deleteRule: .cascade, inverse: \Chapter.book) var chapters: [Chapter]
/// ```
@attached(peer)
public macro Relationship<Root: ManagedObject, Value>(
    deleteRule: RelationshipDescription.DeleteRule,
    inverse: KeyPath<Root, Value>,
    minCount: Int = 0,
    maxCount: Int = 0,
    originalName: String? = nil,
    hashModifier: String? = nil
) = #externalMacro(module: "CoreStackMacros", type: "MarkerMacro")

/// ``Relationship(inverse:deleteRule:minCount:maxCount:originalName:hashModifier:)`` with the
/// inverse by name. Two relationships cannot name each other by key path (Swift type-checks a
/// macro's key path arguments while it resolves the properties they name: "circular reference
/// resolving attached macro"), so one side names the other by key path and the other by name, as
/// SwiftData names an inverse on one side only. The generated entity checks the name with a key
/// path, so a misspelt inverse is still a compile error.
///
/// ```swift
/// @Relationship(inverse: \Chapter.book, deleteRule: .cascade) var chapters: [Chapter]  // in Book
/// @Relationship(inverse: "chapters") var book: Book?                                   // in Chapter
/// ```
@attached(peer)
public macro Relationship(
    inverse: String,
    deleteRule: RelationshipDescription.DeleteRule = .nullify,
    minCount: Int = 0,
    maxCount: Int = 0,
    originalName: String? = nil,
    hashModifier: String? = nil
) = #externalMacro(module: "CoreStackMacros", type: "MarkerMacro")

/// An attribute's options beyond its type, optionality and default.
///
/// ```swift
/// @AttributeOptions(externalStorage: true) var cover: Data?
/// @AttributeOptions(originalName: "name") var title: String
/// @AttributeOptions(minValue: 1, maxValue: 10_000) var pages: Int32 = 100
/// ```
///
/// - Parameters:
///   - externalStorage: large values may be kept in files beside the store (Binary Data).
///   - originalName: the renaming identifier, for a migration from a model where it had that name.
///   - hashModifier: the attribute's version hash modifier.
///   - minValue: the smallest value (numbers) or length (strings, data) a save accepts.
///   - maxValue: the largest value (numbers) or length (strings, data) a save accepts.
@attached(peer)
public macro AttributeOptions(
    externalStorage: Bool = false,
    originalName: String? = nil,
    hashModifier: String? = nil,
    minValue: Double? = nil,
    maxValue: Double? = nil
) = #externalMacro(module: "CoreStackMacros", type: "MarkerMacro")
