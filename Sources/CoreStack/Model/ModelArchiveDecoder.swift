import Foundation

/// Turns an `NSKeyedArchiver` archive of an `NSManagedObjectModel` (a store's `Z_MODELCACHE`
/// once inflated, or a compiled `.mom` file) into CoreStack's entity descriptions.
///
/// What is read (Docs/CoreDataModelArchive.md has the whole format):
/// - the model: `NSEntities`, `NSVersionIdentifiers`, `NSConfigurations`;
/// - an entity: `NSEntityName`, `NSSuperentity`, `NSIsAbstract`, `NSClassNameForEntity`,
///   `NSRenamingIdentifier`, `NSVersionHashModifier`, `NSUserInfo`, `NSUniqueTuples`,
///   `NSFetchIndexDescriptions`, and `NSProperties` (which repeats every inherited property: only
///   the ones the parent does not have are the entity's own);
/// - an attribute (`NSAttributeDescription`, `NSDerivedAttributeDescription`): `NSPropertyName`,
///   `NSAttributeType`, `NSIsOptional`, `NSIsTransient`, `NSDefaultValue`, `NSValueTransformerName`;
/// - a relationship: `_NSDestinationEntityName` (or `NSDestinationEntity`),
///   `_NSInverseRelationshipName` (or `NSInverseRelationship`), `NSMinCount`, `NSMaxCount`
///   (1 for a to-one), `NSDeleteRule` (0 no action, 1 nullify, 2 cascade, 3 deny), `NSIsOrdered`;
/// - flags also come from `_P`, a bit set (0x2 optional, 0x8 transient, 0x400 ordered).
///
/// Not read: fetched properties, validation predicates (min/max/regex rules), fetch request
/// templates (their predicates are archived `NSPredicate` graphs), and defaults of transformable
/// attributes (archived objects of the app's classes).
///
/// ```swift
/// let entities = try ModelArchiveDecoder(archive: archive).decode()
/// ```
struct ModelArchiveDecoder {
    /// The key under which CoreStack archives ``AttributeDescription/allowsExternalBinaryDataStorage``
    /// (only when set). Apple's key for the flag is unverified: a model cache Core Data wrote is
    /// read without it.
    static let allowsExternalStorageKey = "CSAllowsExternalBinaryDataStorage"

    let archive: KeyedArchive

    /// What a decoded archive holds.
    struct Decoded {
        var entities: [EntityDescription]
        var versionIdentifiers: [String]
        var configurations: [String: [String]]
    }

    private var source: String { archive.source }

    private func error(_ index: Int, _ key: String?, _ reason: String) -> ModelArchiveError {
        ModelArchiveError(source: source, location: "$objects[\(index)]" + (key.map { ".\($0)" } ?? ""), reason: reason)
    }

    func decode() throws -> Decoded {
        let root = archive.rootIndex
        let rootClass = try archive.className(of: root)
        guard rootClass == "NSManagedObjectModel" else {
            throw error(root, nil, "the archive holds an \(rootClass), not an NSManagedObjectModel")
        }
        guard let entitiesRef = try archive.reference(root, "NSEntities") else {
            throw error(root, "NSEntities", "missing")
        }
        let entityIndexes = try archive.entries(of: entitiesRef, "$objects[\(entitiesRef)]").map(\.value)
        var names: [Int: String] = [:]
        for index in entityIndexes {
            let cls = try archive.className(of: index)
            guard cls == "NSEntityDescription" else { throw error(index, nil, "expected an NSEntityDescription, found \(cls)") }
            guard let name = try archive.string(index, "NSEntityName"), !name.isEmpty else {
                throw error(index, "NSEntityName", "missing or empty")
            }
            names[index] = name
        }
        let entities = try entityIndexes.map { try entity(at: $0, names: names) }

        var identifiers: [String] = []
        if let ref = try archive.reference(root, "NSVersionIdentifiers") {
            identifiers = try archive.elements(of: ref, "$objects[\(root)].NSVersionIdentifiers").compactMap { i in
                try? archive.string(at: i, "$objects[\(i)]")
            }
            identifiers = identifiers.filter { !$0.isEmpty }.sorted()
        }

        var configurations: [String: [String]] = [:]
        if let ref = try archive.reference(root, "NSConfigurations") {
            for (k, v) in try archive.entries(of: ref, "$objects[\(root)].NSConfigurations") {
                let name = try archive.string(at: k, "$objects[\(ref)] key")
                let members = try archive.elements(of: v, "$objects[\(ref)].\(name)")
                configurations[name] = try members.map { m in
                    if let n = names[m] { return n }
                    return try archive.string(at: m, "$objects[\(ref)].\(name)")
                }.sorted()
            }
        }
        return Decoded(entities: entities, versionIdentifiers: identifiers, configurations: configurations)
    }

    // MARK: - Entities

    private func entity(at index: Int, names: [Int: String]) throws -> EntityDescription {
        let name = names[index] ?? ""
        var superName: String?
        var inheritedNames: Set<String> = []
        if let superRef = try archive.reference(index, "NSSuperentity") {
            guard let s = names[superRef] else {
                throw error(index, "NSSuperentity", "refers to object \(superRef), which is not one of the model's entities")
            }
            superName = s
            if let props = try archive.reference(superRef, "NSProperties") {
                inheritedNames = Set(try archive.entries(of: props, "$objects[\(superRef)].NSProperties").map { k, _ in
                    try archive.string(at: k, "$objects[\(props)] key")
                })
            }
        }
        var attributes: [AttributeDescription] = []
        var relationships: [RelationshipDescription] = []
        if let props = try archive.reference(index, "NSProperties") {
            for (k, v) in try archive.entries(of: props, "$objects[\(index)].NSProperties") {
                let key = try archive.string(at: k, "$objects[\(props)] key")
                guard !inheritedNames.contains(key) else { continue }
                switch try archive.className(of: v) {
                case "NSAttributeDescription", "NSDerivedAttributeDescription":
                    attributes.append(try attribute(at: v, entity: name))
                case "NSRelationshipDescription":
                    relationships.append(try relationship(at: v, entity: name, names: names))
                default:
                    continue  // fetched properties and kinds CoreStack does not model
                }
            }
        }
        let renaming = try archive.string(index, "NSRenamingIdentifier")
        return EntityDescription(
            name: name,
            superentityName: superName,
            isAbstract: try archive.bool(index, "NSIsAbstract"),
            attributes: attributes,
            relationships: relationships,
            uniquenessConstraints: try uniquenessConstraints(of: index),
            fetchIndexes: try fetchIndexes(of: index),
            representedClassName: try archive.string(index, "NSClassNameForEntity"),
            renamingIdentifier: renaming == name ? nil : renaming,
            versionHashModifier: nonEmpty(try archive.string(index, "NSVersionHashModifier")),
            userInfo: try userInfo(of: index))
    }

    /// `NSUniqueTuples`: an array of arrays of property names (or of properties).
    private func uniquenessConstraints(of index: Int) throws -> [[String]] {
        guard let ref = try archive.reference(index, "NSUniqueTuples") else { return [] }
        return try archive.elements(of: ref, "$objects[\(index)].NSUniqueTuples").map { tuple in
            try archive.elements(of: tuple, "$objects[\(ref)]").map { try propertyName($0, "$objects[\(tuple)]") }
        }
    }

    /// `NSFetchIndexDescriptions`: `NSFetchIndexDescription` objects with `NSIndexName` and
    /// `NSIndexElements` (`NSPropertyName`, `NSAscending`).
    private func fetchIndexes(of index: Int) throws -> [FetchIndexDescription] {
        guard let ref = try archive.reference(index, "NSFetchIndexDescriptions") else { return [] }
        return try archive.elements(of: ref, "$objects[\(index)].NSFetchIndexDescriptions").compactMap { fi in
            guard let name = try archive.string(fi, "NSIndexName"), let elementsRef = try archive.reference(fi, "NSIndexElements") else {
                return nil
            }
            let elements = try archive.elements(of: elementsRef, "$objects[\(fi)].NSIndexElements").compactMap { el -> FetchIndexDescription.Element? in
                guard let p = try archive.reference(el, "NSPropertyName") else { return nil }
                let ascending = (try archive.fields(el)["NSAscending"] as? Bool) ?? true
                return FetchIndexDescription.Element(property: try propertyName(p, "$objects[\(el)].NSPropertyName"), ascending: ascending)
            }
            return FetchIndexDescription(name: name, elements: elements)
        }
    }

    /// A property named by a string, or a property description (its `NSPropertyName`).
    private func propertyName(_ index: Int, _ location: String) throws -> String {
        if let s = try? archive.string(at: index, location) { return s }
        guard let name = try archive.string(index, "NSPropertyName") else {
            throw ModelArchiveError(source: source, location: location, reason: "expected a property name")
        }
        return name
    }

    /// `NSUserInfo`: a dictionary; values that are not strings are described.
    private func userInfo(of index: Int) throws -> [String: String] {
        guard let ref = try archive.reference(index, "NSUserInfo") else { return [:] }
        var info: [String: String] = [:]
        for (k, v) in try archive.entries(of: ref, "$objects[\(index)].NSUserInfo") {
            let key = try archive.string(at: k, "$objects[\(ref)] key")
            let raw = try archive.object(v, "$objects[\(ref)].\(key)")
            info[key] = (try? archive.string(at: v, "")) ?? "\(raw)"
        }
        return info
    }

    // MARK: - Properties

    /// The flags of a property: its `NSIs…` keys, and the `_P` bit set when present.
    private func flags(_ index: Int) throws -> (optional: Bool, transient: Bool, ordered: Bool) {
        let p = try archive.integer(index, "_P") ?? 0
        return (
            try archive.bool(index, "NSIsOptional") || p & 0x2 != 0,
            try archive.bool(index, "NSIsTransient") || p & 0x8 != 0,
            try archive.bool(index, "NSIsOrdered") || p & 0x400 != 0
        )
    }

    private func attribute(at index: Int, entity: String) throws -> AttributeDescription {
        guard let name = try archive.string(index, "NSPropertyName"), !name.isEmpty else {
            throw error(index, "NSPropertyName", "an attribute of \(entity) has no name")
        }
        let code = try archive.integer(index, "NSAttributeType") ?? 0
        guard let type = AttributeType(rawValue: code) else {
            throw error(index, "NSAttributeType", "\(entity).\(name) has the unknown attribute type \(code)")
        }
        let (optional, transient, _) = try flags(index)
        var defaultValue = AttributeValue.null
        if let ref = try archive.reference(index, "NSDefaultValue"),
            let coerced = try values(at: ref).lazy.compactMap({ AttributeCoercion.coerce($0, to: type) }).first
        {
            defaultValue = coerced
        }
        let renaming = try archive.string(index, "NSRenamingIdentifier")
        return AttributeDescription(
            name, type,
            isOptional: optional,
            isTransient: transient || type == .undefined,
            defaultValue: defaultValue,
            valueTransformerName: nonEmpty(try archive.string(index, "NSValueTransformerName")),
            allowsExternalBinaryDataStorage: try archive.bool(index, Self.allowsExternalStorageKey),
            renamingIdentifier: renaming == name ? nil : renaming,
            versionHashModifier: nonEmpty(try archive.string(index, "NSVersionHashModifier")),
            userInfo: try userInfo(of: index))
    }

    /// A default value's readings: a number (as a boolean, an integer and a double, since
    /// Foundation may hand numbers back bridged), a string, a date (`NSDate`, `NS.time`) or a UUID;
    /// none for objects CoreStack does not decode (an app's transformable values, `NSDecimalNumber`).
    /// The caller keeps the first that fits the attribute's type.
    private func values(at index: Int) throws -> [AttributeValue] {
        let raw = try archive.object(index, "$objects[\(index)]")
        if raw is String || raw is Data || raw is [String: Any] {
            return try value(at: index, raw).map { [$0] } ?? []
        }
        var readings: [AttributeValue] = []
        if let b = raw as? Bool { readings.append(.bool(b)) }
        if let i = raw as? Int { readings.append(.integer(Int64(i))) }
        if let d = raw as? Double { readings.append(.double(d)) }
        return readings
    }

    private func value(at index: Int, _ raw: Any) throws -> AttributeValue? {
        switch raw {
        case let s as String: return .string(s)
        case let d as Data: return .data(d)
        case let fields as [String: Any]:
            let cls = try archive.className(of: index)
            if cls == "NSDate" || cls == "__NSDate", let t = fields["NS.time"] as? Double { return .date(Date(timeIntervalSinceReferenceDate: t)) }
            if cls == "NSUUID", let bytes = fields["NS.uuidbytes"] as? Data, bytes.count == 16 {
                return .uuid(UUID(uuid: bytes.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }))
            }
            if cls == "NSMutableString" || cls == "NSString", let s = fields["NS.string"] as? String { return .string(s) }
            return nil
        default:
            return nil
        }
    }

    private func relationship(at index: Int, entity: String, names: [Int: String]) throws -> RelationshipDescription {
        guard let name = try archive.string(index, "NSPropertyName"), !name.isEmpty else {
            throw error(index, "NSPropertyName", "a relationship of \(entity) has no name")
        }
        var destination = try archive.string(index, "_NSDestinationEntityName")
        if destination == nil, let ref = try archive.reference(index, "NSDestinationEntity") { destination = names[ref] }
        guard let destination else {
            throw error(index, "_NSDestinationEntityName", "\(entity).\(name) has no destination entity")
        }
        var inverse = try archive.string(index, "_NSInverseRelationshipName")
        if inverse == nil, let ref = try archive.reference(index, "NSInverseRelationship") {
            inverse = try archive.string(ref, "NSPropertyName")
        }
        let maxCount = try archive.integer(index, "NSMaxCount") ?? 0
        let minCount = try archive.integer(index, "NSMinCount") ?? 0
        let rule: RelationshipDescription.DeleteRule
        switch try archive.integer(index, "NSDeleteRule") ?? 1 {
        case 0: rule = .noAction
        case 1: rule = .nullify
        case 2: rule = .cascade
        case 3: rule = .deny
        case let other: throw error(index, "NSDeleteRule", "\(entity).\(name) has the unknown delete rule \(other)")
        }
        let (optional, transient, ordered) = try flags(index)
        let renaming = try archive.string(index, "NSRenamingIdentifier")
        let toMany = maxCount != 1
        return RelationshipDescription(
            name, destination: destination, inverse: nonEmpty(inverse),
            toMany: toMany, isOrdered: ordered, isOptional: optional, isTransient: transient,
            deleteRule: rule, minCount: max(0, minCount), maxCount: max(0, maxCount),
            renamingIdentifier: renaming == name ? nil : renaming,
            versionHashModifier: nonEmpty(try archive.string(index, "NSVersionHashModifier")),
            userInfo: try userInfo(of: index))
    }

    private func nonEmpty(_ s: String?) -> String? {
        guard let s, !s.isEmpty else { return nil }
        return s
    }
}
