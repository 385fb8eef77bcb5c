import Foundation

/// A relationship of an entity to another (or the same) entity.
///
/// ```swift
/// let books = RelationshipDescription("books", destination: "Book", inverse: "authors",
///                                     toMany: true, deleteRule: .nullify)
/// let chapters = RelationshipDescription("chapters", destination: "Chapter", inverse: "book",
///                                        toMany: true, isOrdered: true, deleteRule: .cascade)
/// ```
public struct RelationshipDescription: Sendable, Hashable {
    /// What happens to the destination objects when the source object is deleted.
    public enum DeleteRule: String, Sendable, Hashable, CaseIterable {
        /// Remove the source from the destinations' inverse (the default).
        case nullify = "Nullify"
        /// Delete the destinations too.
        case cascade = "Cascade"
        /// Refuse to delete the source while the relationship is not empty.
        case deny = "Deny"
        /// Do nothing: the destinations keep pointing at a deleted object.
        case noAction = "No Action"
    }

    /// The relationship's name, a key of its entity.
    public var name: String
    /// The name of the destination entity.
    public var destinationEntityName: String
    /// The name of the inverse relationship on the destination entity.
    public var inverseName: String?
    /// To-many (a set, or an ordered set when `isOrdered`) or to-one.
    public var isToMany: Bool
    /// For to-many relationships: whether the destinations keep an order.
    public var isOrdered: Bool
    /// Whether the relationship may be empty at save time.
    public var isOptional: Bool
    /// Transient relationships are not saved.
    public var isTransient: Bool
    /// The delete rule.
    public var deleteRule: DeleteRule
    /// The fewest destinations allowed at save time (0 for no minimum).
    public var minCount: Int
    /// The most destinations allowed at save time (0 for no maximum).
    public var maxCount: Int
    /// The renaming identifier (`elementID`).
    public var renamingIdentifier: String?
    /// Text that changes the version hash without changing the schema.
    public var versionHashModifier: String?
    /// Free-form user info from the model file.
    public var userInfo: [String: String]

    /// A relationship to the entity named `destination`; name its `inverse` so both sides stay in step. To-one, optional and nullify by default.
    ///
    /// ```swift
    /// let books = RelationshipDescription("books", destination: "Book", inverse: "author", toMany: true)
    /// ```
    public init(
        _ name: String,
        destination: String,
        inverse: String? = nil,
        toMany: Bool = false,
        isOrdered: Bool = false,
        isOptional: Bool = true,
        isTransient: Bool = false,
        deleteRule: DeleteRule = .nullify,
        minCount: Int = 0,
        maxCount: Int = 0,
        renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil,
        userInfo: [String: String] = [:]
    ) {
        self.name = name
        self.destinationEntityName = destination
        self.inverseName = inverse
        self.isToMany = toMany
        self.isOrdered = toMany && isOrdered
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.deleteRule = deleteRule
        self.minCount = minCount
        self.maxCount = toMany ? maxCount : 1
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.userInfo = userInfo
    }
}
