import Foundation

/// A fetched property of an entity (Core Data's `NSFetchedPropertyDescription`): a named fetch
/// request evaluated against the object, with no column in the store.
///
/// CoreStack reads it from a model cache or a compiled model and keeps it as metadata: it is
/// listed by the entity (``EntityDescription/fetchedProperties``) and shown by
/// `stackscope info --schema`, but objects do not evaluate it.
///
/// ```swift
/// let book = model.entity(named: "Book")
/// book?.fetchedProperties.first?.predicate  // "authorAlias == $FETCH_SOURCE.alias"
/// ```
public struct FetchedPropertyDescription: Sendable, Hashable {
    /// The property's name, a key of its entity.
    public var name: String
    /// The entity its fetch request fetches (`_NSFetchRequestEntityName`).
    public var destinationEntityName: String?
    /// The fetch request's predicate in Core Data's format, as text; nil when it has none.
    public var predicate: String?
    /// Free-form user info from the model file.
    public var userInfo: [String: String]

    /// A fetched property named `name` fetching `destinationEntityName` objects matching `predicate`.
    ///
    /// ```swift
    /// let recent = FetchedPropertyDescription(name: "recent", destinationEntityName: "Book", predicate: "year > 2000")
    /// ```
    public init(name: String, destinationEntityName: String?, predicate: String? = nil, userInfo: [String: String] = [:]) {
        self.name = name
        self.destinationEntityName = destinationEntityName
        self.predicate = predicate
        self.userInfo = userInfo
    }
}
