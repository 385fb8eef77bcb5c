import Foundation

/// Writes a ``ManagedObjectModel`` as Core Data does in a store's `Z_MODELCACHE` and in `.mom`
/// files: an `NSKeyedArchiver` archive of an `NSManagedObjectModel`, with the classes and keys of
/// Apple's archives (Sources/CoreStack/CoreStack.docc/Reference/CoreDataModelArchive.md), so that ``ModelArchiveDecoder`` and other
/// readers of Apple's format read it back.
///
/// Like Apple's, each entity's `NSProperties` repeats the inherited properties; entities are
/// listed alphabetically in an `NSKnownKeysDictionary1`.
///
/// ```swift
/// let plist = ModelArchiveEncoder(model: model).encode()  // bplist00 bytes
/// ```
struct ModelArchiveEncoder {
    let model: ManagedObjectModel

    private var objects: [BinaryPropertyList] = [.string("$null")]
    private var classRefs: [String: Int] = [:]
    private var stringRefs: [String: Int] = [:]

    init(model: ManagedObjectModel) {
        self.model = model
    }

    /// The archive's bytes (a binary property list).
    func encode() -> Data {
        var encoder = self
        return encoder.build()
    }

    // MARK: - Objects

    private mutating func reserve() -> Int {
        objects.append(.string("$null"))
        return objects.count - 1
    }

    private mutating func string(_ s: String) -> BinaryPropertyList {
        if let i = stringRefs[s] { return .uid(i) }
        objects.append(.string(s))
        stringRefs[s] = objects.count - 1
        return .uid(objects.count - 1)
    }

    private mutating func optionalString(_ s: String?) -> BinaryPropertyList {
        s.map { string($0) } ?? .uid(0)
    }

    private mutating func classRef(_ name: String) -> BinaryPropertyList {
        if let i = classRefs[name] { return .uid(i) }
        let chain: [String]
        switch name {
        case "NSAttributeDescription", "NSRelationshipDescription": chain = [name, "NSPropertyDescription", "NSObject"]
        case "NSMutableDictionary": chain = [name, "NSDictionary", "NSObject"]
        case "NSMutableArray": chain = [name, "NSArray", "NSObject"]
        case "NSKnownKeysDictionary1": chain = [name, "NSKnownKeysDictionary", "NSMutableDictionary", "NSDictionary", "NSObject"]
        case "NSKnownKeysMappingStrategy1": chain = [name, "NSKnownKeysMappingStrategy", "NSObject"]
        default: chain = [name, "NSObject"]
        }
        objects.append(.dictionary([("$classname", .string(name)), ("$classes", .array(chain.map { .string($0) }))]))
        classRefs[name] = objects.count - 1
        return .uid(objects.count - 1)
    }

    private mutating func instance(_ className: String, _ fields: [(String, BinaryPropertyList)], at index: Int? = nil) -> BinaryPropertyList {
        let cls = classRef(className)
        let value = BinaryPropertyList.dictionary(fields + [("$class", cls)])
        if let index {
            objects[index] = value
            return .uid(index)
        }
        objects.append(value)
        return .uid(objects.count - 1)
    }

    private mutating func array(_ items: [BinaryPropertyList], className: String = "NSArray") -> BinaryPropertyList {
        instance(className, [("NS.objects", .array(items))])
    }

    private mutating func dictionary(_ pairs: [(String, BinaryPropertyList)], className: String) -> BinaryPropertyList {
        var keys: [BinaryPropertyList] = []
        for (k, _) in pairs { keys.append(string(k)) }
        return instance(className, [("NS.keys", .array(keys)), ("NS.objects", .array(pairs.map(\.1)))])
    }

    private mutating func userInfo(_ info: [String: String]) -> BinaryPropertyList {
        var pairs: [(String, BinaryPropertyList)] = []
        for (k, v) in info.sorted(by: { $0.key < $1.key }) { pairs.append((k, string(v))) }
        return dictionary(pairs, className: "NSDictionary")
    }

    // MARK: - The model

    private mutating func build() -> Data {
        let root = reserve()  // 1
        let entities = model.entities.sorted { $0.name < $1.name }
        var entityRefs: [String: Int] = [:]
        for e in entities { entityRefs[e.name] = reserve() }
        var propertyRefs: [String: Int] = [:]  // "Entity.property"
        for e in entities {
            for a in e.allAttributes { propertyRefs["\(e.name).\(a.name)"] = reserve() }
            for r in e.allRelationships { propertyRefs["\(e.name).\(r.name)"] = reserve() }
        }

        for e in entities {
            guard let index = entityRefs[e.name] else { continue }
            var properties: [(String, BinaryPropertyList)] = []
            for a in e.allAttributes {
                guard let i = propertyRefs["\(e.name).\(a.name)"] else { continue }
                properties.append((a.name, attribute(a, entity: index, at: i)))
            }
            for (slot, r) in e.allRelationships.enumerated() {
                guard let i = propertyRefs["\(e.name).\(r.name)"] else { continue }
                let destination = e.destinations[slot]
                let inverse = e.inverseSlots[slot].map { destination.allRelationships[$0].name }
                let inverseRef = inverse.flatMap { propertyRefs["\(destination.name).\($0)"] } ?? 0
                properties.append((r.name, relationship(
                    r, entity: index, destination: entityRefs[destination.name] ?? 0, inverse: inverse, inverseRef: inverseRef, at: i)))
            }
            var fields: [(String, BinaryPropertyList)] = [
                ("NSEntityName", string(e.name)),
                ("NSClassNameForEntity", string(e.representedClassName ?? "NSManagedObject")),
                ("NSManagedObjectModel", .uid(root)),
                ("NSSuperentity", .uid(e.superentity.flatMap { entityRefs[$0.name] } ?? 0)),
                ("NSSubentities", dictionary(e.subentities.map { ($0.name, .uid(entityRefs[$0.name] ?? 0)) }, className: "NSMutableDictionary")),
                ("NSProperties", dictionary(properties, className: "NSMutableDictionary")),
                ("NSRenamingIdentifier", string(e.renamingIdentifier ?? e.name)),
                ("NSVersionHashModifier", optionalString(e.versionHashModifier)),
                ("NSUserInfo", userInfo(e.userInfo)),
            ]
            if e.isAbstract { fields.append(("NSIsAbstract", .bool(true))) }
            if !e.uniquenessConstraints.isEmpty {
                var tuples: [BinaryPropertyList] = []
                for tuple in e.uniquenessConstraints {
                    var names: [BinaryPropertyList] = []
                    for n in tuple { names.append(string(n)) }
                    tuples.append(array(names, className: "NSMutableArray"))
                }
                fields.append(("NSUniqueTuples", array(tuples, className: "NSMutableArray")))
            }
            _ = instance("NSEntityDescription", fields, at: index)
        }

        // NSEntities: an NSKnownKeysDictionary1, keys and values in name order.
        var keys: [BinaryPropertyList] = []
        for e in entities { keys.append(string(e.name)) }
        let keyArray = array(keys)
        let mapping = instance("NSKnownKeysMappingStrategy1", [("keys", keyArray), ("length", .integer(Int64(entities.count))), ("version", .integer(1))])
        let values = array(entities.map { .uid(entityRefs[$0.name] ?? 0) })
        let empty = string("__empty_slot_token_4c24_98dc_ac1e_b773__")
        let entitiesRef = instance("NSKnownKeysDictionary1", [("values", values), ("searchMapping", mapping), ("emptyToken", empty), ("version", .integer(1))])

        var identifiers: [BinaryPropertyList] = []
        for id in model.versionIdentifiers.isEmpty ? [""] : model.versionIdentifiers { identifiers.append(string(id)) }
        var rootFields: [(String, BinaryPropertyList)] = [
            ("NSEntities", entitiesRef),
            ("NSFetchRequestTemplates", .uid(0)),
            ("NSVersionIdentifiers", array(identifiers, className: "NSSet")),
        ]
        if !model.configurations.isEmpty {
            var configurations: [(String, BinaryPropertyList)] = []
            for (name, members) in model.configurations.sorted(by: { $0.key < $1.key }) {
                configurations.append((name, array(members.map { .uid(entityRefs[$0] ?? 0) })))
            }
            rootFields.append(("NSConfigurations", dictionary(configurations, className: "NSDictionary")))
        }
        _ = instance("NSManagedObjectModel", rootFields, at: root)

        let archive = BinaryPropertyList.dictionary([
            ("$version", .integer(100000)),
            ("$archiver", .string("NSKeyedArchiver")),
            ("$top", .dictionary([("root", .uid(root))])),
            ("$objects", .array(objects)),
        ])
        return archive.encoded()
    }

    /// `_P`: present, optional, transient, ordered, and "none" bits for what is not written.
    private func flags(optional: Bool, transient: Bool, ordered: Bool, userInfo: [String: String], versionHashModifier: String?) -> Int64 {
        var p: Int64 = 0x1 | 0x10 | 0x20
        if optional { p |= 0x2 }
        if transient { p |= 0x8 }
        if userInfo.isEmpty { p |= 0x40 }
        if versionHashModifier == nil { p |= 0x80 }
        if ordered { p |= 0x400 }
        return p
    }

    private mutating func attribute(_ a: AttributeDescription, entity: Int, at index: Int) -> BinaryPropertyList {
        var fields: [(String, BinaryPropertyList)] = [
            ("_P", .integer(flags(optional: a.isOptional, transient: a.isTransient, ordered: false, userInfo: a.userInfo, versionHashModifier: a.versionHashModifier))),
            ("NSAttributeType", .integer(Int64(a.type.rawValue))),
            ("NSAttributeValueClassName", optionalString(Self.valueClassName(a.type))),
            ("NSEntity", .uid(entity)),
            ("NSDefaultValue", defaultValue(a.defaultValue)),
            ("NSPropertyName", string(a.name)),
            ("NSValueTransformerName", optionalString(a.valueTransformerName)),
            ("NSFlagsKey", .integer(0)),
            ("NSRenamingIdentifier", string(a.renamingIdentifier ?? a.name)),
        ]
        if a.isOptional { fields.append(("NSIsOptional", .bool(true))) }
        if a.isTransient { fields.append(("NSIsTransient", .bool(true))) }
        // CoreStack's key (Apple's is unverified; Core Data ignores keys it does not know), written
        // only when set, so the store's own model keeps the flag its columns' marker bytes need.
        if a.allowsExternalBinaryDataStorage { fields.append((ModelArchiveDecoder.allowsExternalStorageKey, .bool(true))) }
        if let m = a.versionHashModifier { fields.append(("NSVersionHashModifier", string(m))) }
        if !a.userInfo.isEmpty { fields.append(("NSUserInfo", userInfo(a.userInfo))) }
        return instance("NSAttributeDescription", fields, at: index)
    }

    private mutating func relationship(
        _ r: RelationshipDescription, entity: Int, destination: Int, inverse: String?, inverseRef: Int, at index: Int
    ) -> BinaryPropertyList {
        let rule: Int64 = switch r.deleteRule {
        case .noAction: 0
        case .nullify: 1
        case .cascade: 2
        case .deny: 3
        }
        var fields: [(String, BinaryPropertyList)] = [
            ("_P", .integer(flags(optional: r.isOptional, transient: r.isTransient, ordered: r.isOrdered, userInfo: r.userInfo, versionHashModifier: r.versionHashModifier))),
            ("NSDestinationEntity", .uid(destination)),
            ("_NSDestinationEntityName", string(r.destinationEntityName)),
            ("NSInverseRelationship", .uid(inverseRef)),
            ("NSEntity", .uid(entity)),
            ("NSDeleteRule", .integer(rule)),
            ("NSMinCount", .integer(Int64(r.minCount))),
            ("NSMaxCount", .integer(Int64(r.isToMany ? r.maxCount : 1))),
            ("NSPropertyName", string(r.name)),
            ("NSRenamingIdentifier", string(r.renamingIdentifier ?? r.name)),
        ]
        if let inverse { fields.append(("_NSInverseRelationshipName", string(inverse))) }
        if r.isOptional { fields.append(("NSIsOptional", .bool(true))) }
        if r.isTransient { fields.append(("NSIsTransient", .bool(true))) }
        if r.isOrdered { fields.append(("NSIsOrdered", .bool(true))) }
        if let m = r.versionHashModifier { fields.append(("NSVersionHashModifier", string(m))) }
        if !r.userInfo.isEmpty { fields.append(("NSUserInfo", userInfo(r.userInfo))) }
        return instance("NSRelationshipDescription", fields, at: index)
    }

    private mutating func defaultValue(_ v: AttributeValue) -> BinaryPropertyList {
        switch v {
        case .null, .data: return .uid(0)
        case let .decimal(d): objects.append(.real(NSDecimalNumber(decimal: d).doubleValue))
        case let .integer(i): objects.append(.integer(i))
        case let .double(d): objects.append(.real(d))
        case let .bool(b): objects.append(.bool(b))
        case let .string(s): return string(s)
        case let .url(u): return string(u.absoluteString)
        case let .date(d): return instance("NSDate", [("NS.time", .real(d.timeIntervalSinceReferenceDate))])
        case let .uuid(u):
            return instance("NSUUID", [("NS.uuidbytes", .data(withUnsafeBytes(of: u.uuid) { Data($0) }))])
        }
        return .uid(objects.count - 1)
    }

    /// `NSAttributeValueClassName` as Core Data writes it.
    private static func valueClassName(_ type: AttributeType) -> String? {
        switch type {
        case .integer16, .integer32, .integer64, .double, .float, .boolean: "NSNumber"
        case .decimal: "NSDecimalNumber"
        case .string: "NSString"
        case .date: "NSDate"
        case .binaryData: "NSData"
        case .uuid: "NSUUID"
        case .uri: "NSURL"
        case .transformable, .undefined, .objectID: nil
        }
    }
}
