import Foundation

/// Turns an `NSKeyedArchiver` archive of an `NSManagedObjectModel` (a store's `Z_MODELCACHE`
/// once inflated, or a compiled `.mom` file) into CoreStack's entity descriptions.
///
/// What is read (Sources/CoreStack/CoreStack.docc/Reference/CoreDataModelArchive.md has the whole format):
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
/// Kept as metadata, never a reason to refuse the model (Core Data has them, CoreStack does not
/// apply them): fetched properties (``FetchedPropertyDescription``), composite attributes
/// (``CompositeAttributeDescription``), derived attributes' expressions, validation predicates and
/// warnings, fetch index elements that index an expression (or name no property of the entity),
/// R-tree elements, partial index predicates, uniqueness constraints that name no property of the
/// entity, attributes of an unknown type, unknown delete rules and property kinds
/// (``EntityDescription/unimplementedElements``). Predicates and expressions are written back in
/// Core Data's format by ``ArchivedPredicateFormatter``.
///
/// Fetch request templates (`NSFetchRequestTemplates`, nil in every archive seen) are read into
/// ``FetchRequestTemplate``s. Not read: defaults of transformable attributes (archived objects of
/// the app's classes).
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
        var fetchRequestTemplates: [FetchRequestTemplate] = []
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
                let members = (try? archive.elements(of: v, "$objects[\(ref)].\(name)")) ?? []
                // Members that are not the model's entities (names, or objects of another kind) are left out.
                configurations[name] = members.compactMap { m in
                    if let n = names[m] { return n }
                    return (try? archive.string(at: m, "")).flatMap { Set(names.values).contains($0) ? $0 : nil }
                }.sorted()
            }
        }
        return Decoded(
            entities: entities, versionIdentifiers: identifiers, configurations: configurations,
            fetchRequestTemplates: fetchRequestTemplates(of: root, names: names))
    }

    /// `NSFetchRequestTemplates`: a dictionary of name → `NSFetchRequest` (`NSEntity`, `NSPredicate`,
    /// `NSFetchLimit`, `NSBatchSize`, keys seen on the fetch requests of fetched properties). The
    /// predicate is written in Core Data's format by ``ArchivedPredicateFormatter``; a template
    /// whose entity is not one of the model's, or that cannot be read, is left out.
    private func fetchRequestTemplates(of root: Int, names: [Int: String]) -> [FetchRequestTemplate] {
        guard let ref = (try? archive.reference(root, "NSFetchRequestTemplates")).flatMap({ $0 }),
            let entries = try? archive.entries(of: ref, "")
        else { return [] }
        let formatter = ArchivedPredicateFormatter(archive: archive)
        return entries.compactMap { k, v -> FetchRequestTemplate? in
            guard let name = try? archive.string(at: k, "") else { return nil }
            var entity = (try? archive.reference(v, "NSEntity")).flatMap { $0 }.flatMap { names[$0] }
            if entity == nil { entity = (try? archive.string(v, "NSEntityName")).flatMap { $0 } }
            guard let entity, Set(names.values).contains(entity) else { return nil }
            let predicate = (try? archive.reference(v, "NSPredicate")).flatMap { $0 }.map(formatter.format)
            let limit = ((try? archive.integer(v, "NSFetchLimit")) ?? nil) ?? 0
            let batch = ((try? archive.integer(v, "NSBatchSize")) ?? nil) ?? 0
            return FetchRequestTemplate(
                name: name, entityName: entity, predicateString: predicate,
                fetchLimit: limit > 0 ? limit : nil, fetchBatchSize: batch > 0 ? batch : nil)
        }.sorted { $0.name < $1.name }
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
        var fetched: [FetchedPropertyDescription] = []
        var composites: [CompositeAttributeDescription] = []
        var notes: [String] = []
        // Names of the attributes and relationships CoreStack models, inherited ones included
        // (`NSProperties` repeats them): what constraints and index elements may name.
        var usable: Set<String> = []
        if let props = try archive.reference(index, "NSProperties") {
            for (k, v) in try archive.entries(of: props, "$objects[\(index)].NSProperties") {
                let key = try archive.string(at: k, "$objects[\(props)] key")
                let own = !inheritedNames.contains(key)
                let cls = try archive.className(of: v)
                switch cls {
                case "NSAttributeDescription", "NSDerivedAttributeDescription", "NSCompositeAttributeDescription":
                    switch try attribute(at: v, entity: name) {
                    case let .attribute(a):
                        usable.insert(key)
                        if own { attributes.append(a) }
                    case let .composite(c):
                        if own { composites.append(c) }
                    case let .unsupported(note):
                        if own { notes.append(note) }
                    }
                case "NSRelationshipDescription":
                    let (r, note) = try relationship(at: v, entity: name, names: names)
                    usable.insert(key)
                    if own {
                        relationships.append(r)
                        if let note { notes.append(note) }
                    }
                case "NSFetchedPropertyDescription":
                    if own { fetched.append(try fetchedProperty(at: v)) }
                default:
                    if own { notes.append("property \(key): \(cls) is a kind of property CoreStack does not know (left out)") }
                }
            }
        }
        let (constraints, constraintNotes) = try uniquenessConstraints(of: index, usable: usable)
        let renaming = try archive.string(index, "NSRenamingIdentifier")
        return EntityDescription(
            name: name,
            superentityName: superName,
            isAbstract: try archive.bool(index, "NSIsAbstract"),
            attributes: attributes,
            relationships: relationships,
            uniquenessConstraints: constraints,
            fetchIndexes: try fetchIndexes(of: index, usable: usable),
            representedClassName: try archive.string(index, "NSClassNameForEntity"),
            renamingIdentifier: renaming == name ? nil : renaming,
            versionHashModifier: nonEmpty(try archive.string(index, "NSVersionHashModifier")),
            userInfo: try userInfo(of: index),
            fetchedProperties: fetched.sorted { $0.name < $1.name },
            compositeAttributes: composites.sorted { $0.name < $1.name },
            unimplementedElements: notes + constraintNotes)
    }

    /// `NSUniqueTuples`: an array of arrays of property names (or of properties, or of key paths
    /// into composite attributes). A tuple naming anything but the entity's attributes and
    /// relationships is kept as a note instead.
    private func uniquenessConstraints(of index: Int, usable: Set<String>) throws -> ([[String]], [String]) {
        guard let ref = try archive.reference(index, "NSUniqueTuples") else { return ([], []) }
        var kept: [[String]] = []
        var notes: [String] = []
        for tuple in try archive.elements(of: ref, "$objects[\(index)].NSUniqueTuples") {
            let names = try archive.elements(of: tuple, "$objects[\(ref)]").map { try propertyName($0, "$objects[\(tuple)]") }
            if names.allSatisfy(usable.contains) {
                kept.append(names)
            } else {
                let unknown = names.filter { !usable.contains($0) }
                notes.append("uniqueness constraint (\(names.joined(separator: ", "))): \(unknown.joined(separator: ", ")) is no attribute or relationship CoreStack models (not checked)")
            }
        }
        return (kept, notes)
    }

    /// `NSFetchIndexDescriptions`: `NSFetchIndexDescription` objects with `NSIndexName`,
    /// `NSIndexElements` and `NSPartialIndexPredicate`. An element (`NSFetchIndexElementDescription`)
    /// names a property (`NSPropertyName`, a string or a property description), with `NSAscending`
    /// and `NSFetchIndexElementType` (0 binary, 1 R-tree). An element whose property is an
    /// `NSExpressionDescription`, or names no attribute or relationship of the entity, is an
    /// expression element (``FetchIndexDescription/Element/expression``).
    private func fetchIndexes(of index: Int, usable: Set<String>) throws -> [FetchIndexDescription] {
        guard let ref = try archive.reference(index, "NSFetchIndexDescriptions") else { return [] }
        let formatter = ArchivedPredicateFormatter(archive: archive)
        return try archive.elements(of: ref, "$objects[\(index)].NSFetchIndexDescriptions").compactMap { fi in
            guard let name = try archive.string(fi, "NSIndexName"), let elementsRef = try archive.reference(fi, "NSIndexElements") else {
                return nil
            }
            let elements = try archive.elements(of: elementsRef, "$objects[\(fi)].NSIndexElements").compactMap { el -> FetchIndexDescription.Element? in
                let fields = try archive.fields(el)
                let ascending = (fields["NSAscending"] as? Bool) ?? true
                let collation = FetchIndexElementType(rawValue: (try? archive.integer(el, "NSFetchIndexElementType")).flatMap { $0 } ?? 0) ?? .binary
                // The property: a name, or a property description (an expression description for
                // an expression element) under NSPropertyName or NSProperty.
                var propertyName: String?
                var expression: String?
                for key in ["NSProperty", "NSPropertyName"] {
                    guard let p = try archive.reference(el, key) else { continue }
                    if let s = try? archive.string(at: p, "") {
                        propertyName = propertyName ?? s
                        continue
                    }
                    if propertyName == nil { propertyName = try archive.string(p, "NSPropertyName") }
                    if try archive.className(of: p) == "NSExpressionDescription" {
                        expression = expressionText(of: p, formatter)
                    }
                }
                guard let property = propertyName ?? expression else { return nil }
                if expression == nil, !usable.contains(property) { expression = property }
                return FetchIndexDescription.Element(property: property, ascending: ascending, expression: expression, collationType: collation)
            }
            var partial: String?
            if let p = try archive.reference(fi, "NSPartialIndexPredicate") { partial = formatter.format(p) }
            return FetchIndexDescription(name: name, elements: elements, partialIndexPredicate: partial)
        }
    }

    /// The expression of an `NSExpressionDescription` (`NSExpression`; its name when none is found).
    private func expressionText(of index: Int, _ formatter: ArchivedPredicateFormatter) -> String {
        for key in ["NSExpression", "NSExpressionValue"] {
            if let ref = (try? archive.reference(index, key)).flatMap({ $0 }) { return formatter.format(ref) }
        }
        return ((try? archive.string(index, "NSPropertyName")).flatMap { $0 }) ?? "<expression>"
    }

    /// `NSFetchedPropertyDescription`: `NSPropertyName`, `_NSFetchRequestEntityName` (or the fetch
    /// request's entity), and the fetch request's `NSPredicate`.
    private func fetchedProperty(at index: Int) throws -> FetchedPropertyDescription {
        let name = try archive.string(index, "NSPropertyName") ?? "(unnamed)"
        var predicate: String?
        var entity = try? archive.string(index, "_NSFetchRequestEntityName")
        if let request = try archive.reference(index, "NSFetchRequest") {
            if let p = try? archive.reference(request, "NSPredicate") { predicate = ArchivedPredicateFormatter(archive: archive).format(p) }
            if entity == nil || entity == .some(nil) { entity = try? archive.string(request, "NSEntityName") }
        }
        return FetchedPropertyDescription(
            name: name, destinationEntityName: entity.flatMap { $0 }, predicate: predicate, userInfo: try userInfo(of: index))
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

    /// What an attribute description of an archive decodes to.
    private enum DecodedAttribute {
        case attribute(AttributeDescription)
        case composite(CompositeAttributeDescription)
        /// An attribute CoreStack cannot model (an unknown type): a note saying so.
        case unsupported(String)
    }

    /// The keys under which a composite attribute's elements might be archived (unverified:
    /// no archive with one has been seen).
    private static let compositeElementKeys = ["NSElements", "NSCompositeElements", "NSAttributeElements"]

    private func attribute(at index: Int, entity: String, depth: Int = 0) throws -> DecodedAttribute {
        guard let name = try archive.string(index, "NSPropertyName"), !name.isEmpty else {
            throw error(index, "NSPropertyName", "an attribute of \(entity) has no name")
        }
        let code = try archive.integer(index, "NSAttributeType") ?? 0
        let isComposite = try code == 2100 || archive.className(of: index) == "NSCompositeAttributeDescription"
        if isComposite {
            var elements: [AttributeDescription] = []
            if depth < 8 {
                for key in Self.compositeElementKeys {
                    guard let ref = try archive.reference(index, key), let items = try? archive.elements(of: ref, "") else { continue }
                    for item in items {
                        switch try attribute(at: item, entity: entity, depth: depth + 1) {
                        case let .attribute(a): elements.append(a)
                        case let .composite(c): elements += c.elements.map { e in var e = e; e.name = "\(c.name).\(e.name)"; return e }
                        case .unsupported: continue
                        }
                    }
                    break
                }
            }
            return .composite(CompositeAttributeDescription(name: name, elements: elements, userInfo: try userInfo(of: index)))
        }
        guard let type = AttributeType(rawValue: code) else {
            return .unsupported("attribute \(name): the attribute type \(code) is not one CoreStack knows (left out)")
        }
        let (optional, transient, _) = try flags(index)
        var defaultValue = AttributeValue.null
        if let ref = try archive.reference(index, "NSDefaultValue"),
            let coerced = try values(at: ref).lazy.compactMap({ AttributeCoercion.coerce($0, to: type) }).first
        {
            defaultValue = coerced
        }
        let renaming = try archive.string(index, "NSRenamingIdentifier")
        var attribute = AttributeDescription(
            name, type,
            isOptional: optional,
            isTransient: transient || type == .undefined,
            defaultValue: defaultValue,
            valueTransformerName: nonEmpty(try archive.string(index, "NSValueTransformerName")),
            allowsExternalBinaryDataStorage: try archive.bool(index, Self.allowsExternalStorageKey),
            renamingIdentifier: renaming == name ? nil : renaming,
            versionHashModifier: nonEmpty(try archive.string(index, "NSVersionHashModifier")),
            userInfo: try userInfo(of: index))
        let formatter = ArchivedPredicateFormatter(archive: archive)
        if let ref = try archive.reference(index, "NSDerivationExpression") {
            attribute.derivationExpression = formatter.format(ref)
        }
        if let ref = try archive.reference(index, "NSValidationPredicates"), let items = try? archive.elements(of: ref, "") {
            attribute.validationPredicates = items.map(formatter.format)
        }
        if let ref = try archive.reference(index, "NSValidationWarnings"), let items = try? archive.elements(of: ref, "") {
            attribute.validationWarnings = items.map { (try? archive.string(at: $0, "")) ?? formatter.format($0) }
        }
        return .attribute(attribute)
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

    /// A relationship, and a note when part of it was set aside (an unknown delete rule, read as nullify).
    private func relationship(at index: Int, entity: String, names: [Int: String]) throws -> (RelationshipDescription, String?) {
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
        var note: String?
        switch try archive.integer(index, "NSDeleteRule") ?? 1 {
        case 0: rule = .noAction
        case 1: rule = .nullify
        case 2: rule = .cascade
        case 3: rule = .deny
        case let other:
            rule = .nullify
            note = "relationship \(name): the delete rule \(other) is not one CoreStack knows (read as nullify)"
        }
        let (optional, transient, ordered) = try flags(index)
        let renaming = try archive.string(index, "NSRenamingIdentifier")
        let toMany = maxCount != 1
        return (RelationshipDescription(
            name, destination: destination, inverse: nonEmpty(inverse),
            toMany: toMany, isOrdered: ordered, isOptional: optional, isTransient: transient,
            deleteRule: rule, minCount: max(0, minCount), maxCount: max(0, maxCount),
            renamingIdentifier: renaming == name ? nil : renaming,
            versionHashModifier: nonEmpty(try archive.string(index, "NSVersionHashModifier")),
            userInfo: try userInfo(of: index)), note)
    }

    private func nonEmpty(_ s: String?) -> String? {
        guard let s, !s.isEmpty else { return nil }
        return s
    }
}
