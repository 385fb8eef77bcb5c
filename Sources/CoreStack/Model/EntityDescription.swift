import Foundation
import Synchronization

/// An entity: a kind of managed object, with its attributes, relationships and place in an
/// inheritance tree.
///
/// Declare entities with the builder and hand them to a ``ManagedObjectModel``, which checks them
/// and resolves names to entities. Once in a model an entity does not change.
///
/// ```swift
/// let book = EntityDescription("Book", class: Book.self) {
///     AttributeDescription("title", .string, isOptional: false)
///     RelationshipDescription("authors", destination: "Author", inverse: "books", toMany: true)
/// }
/// ```
///
/// `@unchecked Sendable`: the `internal(set) var`s are resolved by ``ManagedObjectModel`` while it
/// is built, before the model (and so the entity) is handed to anything else, and only read
/// afterwards; the wrapper-slot tables are written under their lock and published with an
/// atomic count (see `WrapperSlotTable`).
public final class EntityDescription: @unchecked Sendable, CustomStringConvertible {
    // Declared. These do not change once the entity belongs to a model.

    /// The entity's name (case-sensitive, unique in the model).
    public let name: String
    /// The name of the parent entity, for sub-entities.
    public let superentityName: String?
    /// Abstract entities have no instances of their own, only of sub-entities.
    public let isAbstract: Bool
    /// The attributes declared on this entity (not inherited ones).
    public let attributes: [AttributeDescription]
    /// The relationships declared on this entity (not inherited ones).
    public let relationships: [RelationshipDescription]
    /// Each constraint lists the properties whose values together must be unique.
    public let uniquenessConstraints: [[String]]
    /// Fetch indexes (compound indexes) declared on the entity.
    public let fetchIndexes: [FetchIndexDescription]
    /// The class instantiated for objects of this entity.
    public let managedObjectClass: ManagedObject.Type
    /// The class name the model file gave (`representedClassName`).
    public let representedClassName: String?
    /// The renaming identifier (`elementID`).
    public let renamingIdentifier: String?
    /// Text that changes the version hash without changing the schema.
    public let versionHashModifier: String?
    /// Free-form user info from the model file.
    public let userInfo: [String: String]
    /// Fetched properties read from a model archive: metadata only (objects do not evaluate them).
    ///
    /// ```swift
    /// author.fetchedProperties.map(\.name)  // ["favFeedbacks", "feedbacks"]
    /// ```
    public let fetchedProperties: [FetchedPropertyDescription]
    /// Composite attributes read from a model archive: metadata only (their flattened columns are
    /// read as raw attributes, see ``AttributeDescription/rawColumn``).
    ///
    /// ```swift
    /// place.compositeAttributes.first?.name  // "location"
    /// ```
    public let compositeAttributes: [CompositeAttributeDescription]
    /// What a model archive declares for this entity that CoreStack keeps only as a line of text
    /// and does not apply, e.g. `uniqueness constraint (location.latitude): names no property of
    /// the entity` or `property kind NSFooDescription: kind not known`. Empty for models read
    /// from other sources.
    ///
    /// ```swift
    /// for note in entity.unimplementedElements { print("\(entity.name): \(note)") }
    /// ```
    public let unimplementedElements: [String]

    // Resolved by the model once, before the model is published, then only read.

    /// The parent entity.
    public internal(set) var superentity: EntityDescription?
    /// The direct sub-entities, in entity-number order.
    public internal(set) var subentities: [EntityDescription] = []
    /// Core Data's entity number (`Z_ENT`): roots alphabetically, each followed by its sub-entities.
    public internal(set) var entityNumber: Int = 0
    /// Every attribute, inherited ones first; the index is the attribute's slot in an object.
    public internal(set) var allAttributes: [AttributeDescription] = []
    /// Every relationship, inherited ones first; the index is the relationship's slot.
    public internal(set) var allRelationships: [RelationshipDescription] = []
    /// The destination entity of each relationship in ``allRelationships``.
    var destinations: [EntityDescription] = []
    /// The inverse of each relationship in ``allRelationships``, as (destination slot).
    var inverseSlots: [Int?] = []
    /// A 32-byte hash of what makes the entity's schema (see ``ManagedObjectModel``).
    public internal(set) var versionHash = Data()
    /// The type of each attribute in ``allAttributes`` (read on hot paths without copying descriptions).
    var attributeTypes: [AttributeType] = []
    /// Whether each attribute in ``allAttributes`` is transient.
    var attributeIsTransient: [Bool] = []
    /// The stored attributes a save must check: required ones and ones with min/max/regex rules.
    var validatedAttributeSlots: [Int] = []
    /// Whether each attribute in ``allAttributes`` has a min, max or regular-expression rule.
    var attributeHasRules: [Bool] = []
    /// The stored relationships a save must check (by slot, ascending): required ones and to-many
    /// ones with a minimum or maximum count. Most entities have none, and a save then reads no
    /// relationship slot of their objects to validate them.
    var validatedRelationshipSlots: [Int] = []
    /// The values a new object starts with, one per attribute slot.
    var defaultValues: [AttributeValue] = []
    /// The stored attribute slots with *Allows External Storage* (their columns carry a marker
    /// byte, see `SQLiteExternalBinaryData`); empty for most entities, which then pay nothing.
    var externalBinarySlots: [Int] = [] {
        didSet { hasExternalBinaryData = !externalBinarySlots.isEmpty }
    }
    /// Whether ``externalBinarySlots`` is not empty (a flag a save reads per row without touching the array).
    private(set) var hasExternalBinaryData = false
    /// The relationship slots of a new object: empty to-ones and empty to-manys.
    var emptyRelations: [RelationSlot] = []
    var attributeSlots: [String: Int] = [:]
    var relationshipSlots: [String: Int] = [:]
    /// Attribute slots of typed properties (``Attribute``, `value(ofAttribute:)`), by the bits of
    /// their key (see ``WrapperKey``: one word that names a key's text for the life of the process,
    /// compared instead of the text).
    @usableFromInline let attributeWrapperSlots = WrapperSlotTable()
    /// Relationship slots of typed properties (``ToOne``, ``ToMany``, ``OrderedToMany``,
    /// `object(ofToOne:)` and the other relationship accessors), by the bits of their key.
    @usableFromInline let relationshipWrapperSlots = WrapperSlotTable()

    /// Declares an entity.
    ///
    /// - Parameters:
    ///   - name: the entity's name.
    ///   - parent: the name of its parent entity, if any.
    ///   - isAbstract: whether it can have instances of its own.
    ///   - managedObjectClass: the ``ManagedObject`` subclass for its objects.
    ///   - uniquenessConstraints: sets of property names whose values no two objects may share.
    ///   - fetchIndexes: the entity's indexes, as Xcode's Indexes (``FetchIndexDescription``).
    ///   - properties: attributes and relationships, written with the builder.
    public convenience init(
        _ name: String,
        parent: String? = nil,
        isAbstract: Bool = false,
        class managedObjectClass: ManagedObject.Type = ManagedObject.self,
        uniquenessConstraints: [[String]] = [],
        fetchIndexes: [FetchIndexDescription] = [],
        @PropertyBuilder properties: () -> [PropertyDescription] = { [] }
    ) {
        let props = properties()
        self.init(
            name: name, superentityName: parent, isAbstract: isAbstract,
            attributes: props.compactMap(\.attribute), relationships: props.compactMap(\.relationship),
            uniquenessConstraints: uniquenessConstraints, fetchIndexes: fetchIndexes,
            managedObjectClass: managedObjectClass)
    }

    /// Declares an entity with every field.
    public init(
        name: String,
        superentityName: String? = nil,
        isAbstract: Bool = false,
        attributes: [AttributeDescription],
        relationships: [RelationshipDescription],
        uniquenessConstraints: [[String]] = [],
        fetchIndexes: [FetchIndexDescription] = [],
        managedObjectClass: ManagedObject.Type = ManagedObject.self,
        representedClassName: String? = nil,
        renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil,
        userInfo: [String: String] = [:],
        fetchedProperties: [FetchedPropertyDescription] = [],
        compositeAttributes: [CompositeAttributeDescription] = [],
        unimplementedElements: [String] = []
    ) {
        self.fetchedProperties = fetchedProperties
        self.compositeAttributes = compositeAttributes
        self.unimplementedElements = unimplementedElements
        self.name = name
        self.superentityName = superentityName
        self.isAbstract = isAbstract
        self.attributes = attributes
        self.relationships = relationships
        self.uniquenessConstraints = uniquenessConstraints
        self.fetchIndexes = fetchIndexes
        self.managedObjectClass = managedObjectClass
        self.representedClassName = representedClassName
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.userInfo = userInfo
    }

    /// A fresh, unresolved copy (models never share entity instances).
    func copy() -> EntityDescription {
        EntityDescription(
            name: name, superentityName: superentityName, isAbstract: isAbstract,
            attributes: attributes, relationships: relationships,
            uniquenessConstraints: uniquenessConstraints, fetchIndexes: fetchIndexes,
            managedObjectClass: managedObjectClass, representedClassName: representedClassName,
            renamingIdentifier: renamingIdentifier, versionHashModifier: versionHashModifier,
            userInfo: userInfo, fetchedProperties: fetchedProperties, compositeAttributes: compositeAttributes,
            unimplementedElements: unimplementedElements)
    }

    /// The entity's name.
    public var description: String { name }

    /// The root of this entity's inheritance tree (itself for a root entity).
    public var rootEntity: EntityDescription {
        var e = self
        while let s = e.superentity { e = s }
        return e
    }

    /// This entity and all its sub-entities, depth first.
    public var selfAndDescendants: [EntityDescription] {
        [self] + subentities.flatMap(\.selfAndDescendants)
    }

    /// Whether this entity is `other` or inherits from it.
    public func isKind(of other: EntityDescription) -> Bool {
        var e: EntityDescription? = self
        while let cur = e {
            if cur === other { return true }
            e = cur.superentity
        }
        return false
    }

    /// The attribute named `name` (inherited ones included).
    public func attribute(named name: String) -> AttributeDescription? {
        attributeSlots[name].map { allAttributes[$0] }
    }

    /// The relationship named `name` (inherited ones included).
    public func relationship(named name: String) -> RelationshipDescription? {
        relationshipSlots[name].map { allRelationships[$0] }
    }

    /// The destination entity of the relationship named `name`.
    public func destinationEntity(ofRelationship name: String) -> EntityDescription? {
        relationshipSlots[name].map { destinations[$0] }
    }

    /// The inverse relationship of the relationship named `name`.
    public func inverseRelationship(of name: String) -> RelationshipDescription? {
        guard let slot = relationshipSlots[name], let inv = inverseSlots[slot] else { return nil }
        return destinations[slot].allRelationships[inv]
    }

    /// All property names: attributes then relationships.
    public var propertyNames: [String] { allAttributes.map(\.name) + allRelationships.map(\.name) }

    @usableFromInline
    func attributeSlot(_ key: String) throws -> Int {
        guard let slot = attributeSlots[key] else {
            throw CoreStackError.unknownKey(entity: name, key: key)
        }
        return slot
    }

    func relationshipSlot(_ key: String) throws -> Int {
        guard let slot = relationshipSlots[key] else {
            throw CoreStackError.unknownKey(entity: name, key: key)
        }
        return slot
    }
}

/// A fetch index (compound index) of an entity.
///
/// ```swift
/// FetchIndexDescription(name: "byTitleAndYear", elements: [.init(property: "title"), .init(property: "year", ascending: false)])
/// ```
public struct FetchIndexDescription: Sendable, Hashable {
    /// One property of the index.
    ///
    /// ```swift
    /// let byYear = FetchIndexDescription.Element(property: "year", ascending: false)
    /// let computed = FetchIndexDescription.Element(property: "lowercaseTitle", expression: "lowercase:(title)")
    /// ```
    public struct Element: Sendable, Hashable {
        /// The property indexed; for an expression element, the name of its expression description.
        public var property: String
        /// Ascending (true) or descending order.
        public var ascending: Bool
        /// For an element that indexes an expression (an `NSExpressionDescription`, as Apple's
        /// Photos store has): the expression in Core Data's format, kept as metadata (CoreStack
        /// creates no index for it); nil for an element that indexes a property.
        public var expression: String?
        /// Binary (the default) or R-tree.
        public var collationType: FetchIndexElementType
        /// One element of an index.
        public init(property: String, ascending: Bool = true, expression: String? = nil, collationType: FetchIndexElementType = .binary) {
            self.property = property
            self.ascending = ascending
            self.expression = expression
            self.collationType = collationType
        }
    }
    /// The index's name (`Z_<Entity>_<name>` in SQLite).
    public var name: String
    /// The indexed properties, in order.
    public var elements: [Element]
    /// The predicate of a partial index (`NSPartialIndexPredicate`) in Core Data's format, as
    /// text; nil for an index of every row.
    public var partialIndexPredicate: String?
    /// A fetch index named `name` over `elements`.
    public init(name: String, elements: [Element], partialIndexPredicate: String? = nil) {
        self.name = name
        self.elements = elements
        self.partialIndexPredicate = partialIndexPredicate
    }
}

/// An attribute or a relationship, as written in the entity builder.
public enum PropertyDescription: Sendable, Hashable {
    /// An attribute.
    case attribute(AttributeDescription)
    /// A relationship.
    case relationship(RelationshipDescription)

    /// The property's name.
    public var name: String {
        switch self {
        case let .attribute(a): a.name
        case let .relationship(r): r.name
        }
    }
    var attribute: AttributeDescription? { if case let .attribute(a) = self { a } else { nil } }
    var relationship: RelationshipDescription? { if case let .relationship(r) = self { r } else { nil } }
}

/// The result builder that lists an entity's properties.
@resultBuilder
public enum PropertyBuilder {
    /// One item of the builder.
    public static func buildExpression(_ a: AttributeDescription) -> [PropertyDescription] { [.attribute(a)] }
    /// One item of the builder.
    public static func buildExpression(_ r: RelationshipDescription) -> [PropertyDescription] { [.relationship(r)] }
    /// One item of the builder.
    public static func buildExpression(_ p: [PropertyDescription]) -> [PropertyDescription] { p }
    /// The items of a block, in order.
    public static func buildBlock(_ parts: [PropertyDescription]...) -> [PropertyDescription] { parts.flatMap { $0 } }
    /// An `if` without `else`: its items, or none.
    public static func buildOptional(_ p: [PropertyDescription]?) -> [PropertyDescription] { p ?? [] }
    /// One branch of an `if`/`else` or `switch`.
    public static func buildEither(first p: [PropertyDescription]) -> [PropertyDescription] { p }
    /// One branch of an `if`/`else` or `switch`.
    public static func buildEither(second p: [PropertyDescription]) -> [PropertyDescription] { p }
    /// The items of a `for` loop.
    public static func buildArray(_ p: [[PropertyDescription]]) -> [PropertyDescription] { p.flatMap { $0 } }
}

/// The result builder that lists a model's entities.
@resultBuilder
public enum EntityBuilder {
    /// One item of the builder.
    public static func buildExpression(_ e: EntityDescription) -> [EntityDescription] { [e] }
    /// The items of a block, in order.
    public static func buildBlock(_ parts: [EntityDescription]...) -> [EntityDescription] { parts.flatMap { $0 } }
    /// An `if` without `else`: its items, or none.
    public static func buildOptional(_ p: [EntityDescription]?) -> [EntityDescription] { p ?? [] }
    /// One branch of an `if`/`else` or `switch`.
    public static func buildEither(first p: [EntityDescription]) -> [EntityDescription] { p }
    /// One branch of an `if`/`else` or `switch`.
    public static func buildEither(second p: [EntityDescription]) -> [EntityDescription] { p }
    /// The items of a `for` loop.
    public static func buildArray(_ p: [[EntityDescription]]) -> [EntityDescription] { p.flatMap { $0 } }
}

extension EntityDescription {
    /// The attribute slot of the typed wrapper whose key has these bits (``WrapperKey/bits``), if
    /// remembered.
    // Inlinable so the wrappers' reads, inlined into the subclasses' modules, scan in place.
    @inlinable @inline(__always)
    func wrapperSlot(forBits bits: UInt64) -> Int? { attributeWrapperSlots.slot(forBits: bits) }

    /// Remembers the attribute slot of a wrapper's key, by its bits (``WrapperKey/bits``).
    @usableFromInline
    func rememberWrapperSlot(_ slot: Int, forBits bits: UInt64) { attributeWrapperSlots.remember(slot, forBits: bits) }

    /// The relationship slot of the typed wrapper or accessor whose key is `key`: one word compare
    /// once remembered, the name's look-up the first time.
    @inlinable @inline(__always)
    func relationshipSlot(for key: WrapperKey) throws -> Int {
        if let slot = relationshipWrapperSlots.slot(forBits: key.bits) { return slot }
        return try rememberRelationshipSlot(for: key)
    }

    /// Looks the relationship named by `key` up by name and remembers its slot.
    @usableFromInline
    func rememberRelationshipSlot(for key: WrapperKey) throws -> Int {
        let slot = try relationshipSlot(key.string)
        relationshipWrapperSlots.remember(slot, forBits: key.bits)
        return slot
    }
}
