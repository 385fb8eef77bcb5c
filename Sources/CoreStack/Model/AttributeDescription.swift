import Foundation

/// An attribute of an entity: its name, type, and the rules its values follow.
///
/// ```swift
/// let title = AttributeDescription("title", .string, isOptional: false, minValue: 1, maxValue: 200)
/// let pages = AttributeDescription("pages", .integer32, defaultValue: 0)
/// ```
public struct AttributeDescription: Sendable, Hashable {
    /// The attribute's name, a key of its entity.
    public var name: String
    /// The attribute's type.
    public var type: AttributeType
    /// Whether nil is allowed at save time.
    public var isOptional: Bool
    /// Transient attributes live in memory only: no column, never saved.
    public var isTransient: Bool
    /// Whether the column gets an index.
    public var isIndexed: Bool
    /// The value a new object starts with.
    public var defaultValue: AttributeValue
    /// The smallest value (numbers, dates) or length (strings, data) allowed.
    public var minValue: AttributeValue?
    /// The largest value (numbers, dates) or length (strings, data) allowed.
    public var maxValue: AttributeValue?
    /// A regular expression a string value must match entirely.
    public var regularExpression: String?
    /// The name of a value transformer, for transformable attributes (kept, not applied: values are bytes).
    public var valueTransformerName: String?
    /// Whether large binary values may be kept outside the store file.
    public var allowsExternalBinaryDataStorage: Bool
    /// The renaming identifier (`elementID`).
    public var renamingIdentifier: String?
    /// Text that changes the version hash without changing the schema.
    public var versionHashModifier: String?
    /// Free-form user info from the model file.
    public var userInfo: [String: String]
    /// Whether persistent history keeps the value of a deleted object's attribute in its delete
    /// change (a tombstone, Core Data's "Preserve After Deletion"); see ``PersistentHistoryChange/tombstone``.
    ///
    /// ```swift
    /// var title = AttributeDescription("title", .string)
    /// title.preservesValueInHistoryOnDeletion = true
    /// ```
    public var preservesValueInHistoryOnDeletion = false
    /// For a derived attribute (Core Data's `NSDerivedAttributeDescription`): the derivation
    /// expression in Core Data's format (`count:(pages)`), kept as metadata. Core Data computes the
    /// column's value itself (with triggers); CoreStack reads it like any other column.
    ///
    /// ```swift
    /// model.entity(named: "Book")?.attribute(named: "pagesCount")?.derivationExpression  // "count:(pages)"
    /// ```
    public var derivationExpression: String?
    /// Validation rules read from a model archive (`NSValidationPredicates`), in Core Data's
    /// format (`SELF.length >= 3`): metadata only, a save does not check them.
    ///
    /// ```swift
    /// attribute.validationPredicates  // ["SELF.length >= 3"]
    /// ```
    public var validationPredicates: [String] = []
    /// The warnings paired with ``validationPredicates`` (`NSValidationWarnings`), as text.
    ///
    /// ```swift
    /// attribute.validationWarnings  // ["too short"]
    /// ```
    public var validationWarnings: [String] = []
    /// For an attribute made for a column that neither the model nor schema inference explains:
    /// the column's exact name, read as it is (the attribute's type follows the column's declared
    /// type). Only a read-only open accepts a model with raw attributes; nil for every attribute
    /// of a model file.
    ///
    /// ```swift
    /// let raw = entity.allAttributes.filter(\.isRaw).map(\.rawColumn)  // ["ZEXTRA"]
    /// ```
    public var rawColumn: String?

    /// Whether the attribute stands for a column nothing explained (see ``rawColumn``).
    ///
    /// ```swift
    /// if attribute.isRaw { print("\(attribute.name) (raw column)") }
    /// ```
    public var isRaw: Bool { rawColumn != nil }

    /// An attribute. Only the name and type are required: it is optional, stored and not indexed by default.
    ///
    /// ```swift
    /// let pages = AttributeDescription("pages", .integer32, isOptional: false, defaultValue: 0, minValue: 1)
    /// ```
    public init(
        _ name: String,
        _ type: AttributeType,
        isOptional: Bool = true,
        isTransient: Bool = false,
        isIndexed: Bool = false,
        defaultValue: AttributeValue = .null,
        minValue: AttributeValue? = nil,
        maxValue: AttributeValue? = nil,
        regularExpression: String? = nil,
        valueTransformerName: String? = nil,
        allowsExternalBinaryDataStorage: Bool = false,
        renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil,
        userInfo: [String: String] = [:]
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.isIndexed = isIndexed
        self.defaultValue = defaultValue
        self.minValue = minValue
        self.maxValue = maxValue
        self.regularExpression = regularExpression
        self.valueTransformerName = valueTransformerName
        self.allowsExternalBinaryDataStorage = allowsExternalBinaryDataStorage
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.userInfo = userInfo
    }
}

extension AttributeDescription {
    /// Whether the attribute's values can be kept the way *Allows External Storage* keeps them (a
    /// stored Binary Data or Transformable attribute), whether or not the flag is set.
    var canStoreExternally: Bool {
        !isTransient && (type == .binaryData || type == .transformable)
    }
}
