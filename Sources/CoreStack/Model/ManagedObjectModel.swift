import Foundation

/// A checked, immutable set of entities: the schema of a store.
///
/// Building a model resolves parent entities, relationship destinations and inverses, numbers
/// the entities as Core Data does, and refuses a model that is wrong with an error naming the
/// entity and the property.
///
/// ```swift
/// let model = try ManagedObjectModel {
///     EntityDescription("Author") {
///         AttributeDescription("name", .string, isOptional: false)
///         RelationshipDescription("books", destination: "Book", inverse: "authors", toMany: true)
///     }
///     EntityDescription("Book") {
///         AttributeDescription("title", .string)
///         RelationshipDescription("authors", destination: "Author", inverse: "books", toMany: true)
///     }
/// }
/// model.entity(named: "Book")?.entityNumber // 2
/// ```
public final class ManagedObjectModel: Sendable, CustomStringConvertible {
    /// Entities in entity-number order (roots alphabetically, each followed by its sub-entities).
    public let entities: [EntityDescription]
    /// Entities by name.
    public let entitiesByName: [String: EntityDescription]
    /// The first entity (in ``entities`` order) of each ``ManagedObject`` class, by class.
    private let entitiesByClass: [ObjectIdentifier: EntityDescription]
    /// The version's identifiers (`userDefinedModelVersionIdentifier`).
    public let versionIdentifiers: [String]
    /// The version's name (the `.xcdatamodel` folder name without extension), when read from a file.
    public let versionName: String?
    /// Fetch request templates declared in the model file, by name.
    public let fetchRequestTemplates: [String: FetchRequestTemplate]
    /// Configurations: name → entity names.
    public let configurations: [String: [String]]
    /// Where the model came from (code, a model file, a store's own copy, or the store's tables).
    public let origin: ModelOrigin
    /// Whether some entity declares a uniqueness constraint (a save checks them only then).
    let hasUniquenessConstraints: Bool

    /// Builds a model from entities written with the builder.
    public convenience init(
        versionName: String? = nil,
        versionIdentifiers: [String] = [],
        @EntityBuilder entities: () -> [EntityDescription]
    ) throws {
        try self.init(entities: entities(), versionName: versionName, versionIdentifiers: versionIdentifiers)
    }

    /// Builds a model from a list of entities.
    public init(
        entities declared: [EntityDescription],
        versionName: String? = nil,
        versionIdentifiers: [String] = [],
        fetchRequestTemplates: [FetchRequestTemplate] = [],
        configurations: [String: [String]] = [:],
        origin: ModelOrigin = .built
    ) throws {
        let entities = declared.map { $0.copy() }
        var byName: [String: EntityDescription] = [:]
        for e in entities {
            guard !e.name.isEmpty else {
                throw CoreStackError.invalidModel(entity: "(unnamed)", property: nil, reason: "an entity needs a name")
            }
            guard byName[e.name] == nil else {
                throw CoreStackError.invalidModel(entity: e.name, property: nil, reason: "the entity is declared twice")
            }
            byName[e.name] = e
        }
        try Self.resolveInheritance(entities, byName)
        let ordered = Self.number(entities)
        for e in ordered { try Self.resolveProperties(e, byName) }
        for e in ordered { try Self.resolveInverses(e) }
        for e in ordered { try Self.checkConstraints(e) }
        hasUniquenessConstraints = ordered.contains { !$0.uniquenessConstraints.isEmpty }
        for e in ordered { e.versionHash = Self.versionHash(of: e) }
        var templates: [String: FetchRequestTemplate] = [:]
        for t in fetchRequestTemplates {
            guard byName[t.entityName] != nil else {
                throw CoreStackError.invalidModel(
                    entity: t.entityName, property: nil,
                    reason: "fetch request template \"\(t.name)\" names an unknown entity")
            }
            templates[t.name] = t
        }
        for (config, members) in configurations {
            for m in members where byName[m] == nil {
                throw CoreStackError.invalidModel(
                    entity: m, property: nil, reason: "configuration \"\(config)\" names an unknown entity")
            }
        }
        self.entities = ordered
        self.entitiesByName = byName
        // Several entities may share a class (`ManagedObject` itself, most often): the first wins.
        var byClass: [ObjectIdentifier: EntityDescription] = [:]
        for e in ordered where byClass[ObjectIdentifier(e.managedObjectClass)] == nil {
            byClass[ObjectIdentifier(e.managedObjectClass)] = e
        }
        self.entitiesByClass = byClass
        self.versionName = versionName
        self.versionIdentifiers = versionIdentifiers
        self.fetchRequestTemplates = templates
        self.configurations = configurations
        self.origin = origin
    }

    /// The entity named `name`.
    public func entity(named name: String) -> EntityDescription? { entitiesByName[name] }

    /// The entity mapped to a ``ManagedObject`` subclass: the first in ``entities`` order that
    /// uses it when several do (a dictionary look-up, not a search). Nil when none does.
    ///
    /// ```swift
    /// model.entity(forClass: Book.self)?.name   // "Book"
    /// ```
    public func entity(forClass type: ManagedObject.Type) -> EntityDescription? {
        entitiesByClass[ObjectIdentifier(type)]
    }

    /// The entity whose number (`Z_ENT`) is `number`.
    public func entity(number: Int) -> EntityDescription? {
        number >= 1 && number <= entities.count ? entities[number - 1] : nil
    }

    /// The entity named `name`, or a typed error.
    public func requireEntity(_ name: String) throws -> EntityDescription {
        guard let e = entitiesByName[name] else { throw CoreStackError.unknownEntity(name) }
        return e
    }

    /// Entity name → 32-byte version hash, as stored in a store's metadata.
    public var entityVersionHashes: [String: Data] {
        Dictionary(uniqueKeysWithValues: entities.map { ($0.name, $0.versionHash) })
    }

    /// The model's version name and its entities.
    public var description: String {
        "ManagedObjectModel(\(versionName ?? "unnamed"): \(entities.map(\.name).joined(separator: ", ")))"
    }

    // MARK: - Resolution

    private static func resolveInheritance(_ entities: [EntityDescription], _ byName: [String: EntityDescription]) throws {
        for e in entities {
            guard let parentName = e.superentityName else { continue }
            guard let parent = byName[parentName] else {
                throw CoreStackError.invalidModel(
                    entity: e.name, property: nil, reason: "its parent entity \"\(parentName)\" does not exist")
            }
            e.superentity = parent
        }
        for e in entities {
            var seen: Set<String> = [e.name]
            var cur = e.superentity
            while let c = cur {
                guard seen.insert(c.name).inserted else {
                    throw CoreStackError.invalidModel(entity: e.name, property: nil, reason: "its parent entities form a cycle")
                }
                cur = c.superentity
            }
        }
        for e in entities {
            e.superentity?.subentities.append(e)
        }
        for e in entities { e.subentities.sort { $0.name < $1.name } }
    }

    /// Core Data's numbering: roots alphabetically, each followed at once by its sub-entities, depth first.
    private static func number(_ entities: [EntityDescription]) -> [EntityDescription] {
        let roots = entities.filter { $0.superentity == nil }.sorted { $0.name < $1.name }
        let ordered = roots.flatMap(\.selfAndDescendants)
        for (i, e) in ordered.enumerated() { e.entityNumber = i + 1 }
        return ordered
    }

    private static func resolveProperties(_ e: EntityDescription, _ byName: [String: EntityDescription]) throws {
        var attributes = e.superentity?.allAttributes ?? []
        var relationships = e.superentity?.allRelationships ?? []
        // Parents are numbered (and so resolved) before their children.
        var names = Set(attributes.map(\.name) + relationships.map(\.name))
        for a in e.attributes {
            guard !a.name.isEmpty else {
                throw CoreStackError.invalidModel(entity: e.name, property: "(unnamed)", reason: "an attribute needs a name")
            }
            guard names.insert(a.name).inserted else {
                throw CoreStackError.invalidModel(entity: e.name, property: a.name, reason: "the property is declared twice")
            }
            try checkAttribute(a, of: e)
            attributes.append(a)
        }
        for r in e.relationships {
            guard !r.name.isEmpty else {
                throw CoreStackError.invalidModel(entity: e.name, property: "(unnamed)", reason: "a relationship needs a name")
            }
            guard names.insert(r.name).inserted else {
                throw CoreStackError.invalidModel(entity: e.name, property: r.name, reason: "the property is declared twice")
            }
            guard byName[r.destinationEntityName] != nil else {
                throw CoreStackError.invalidModel(
                    entity: e.name, property: r.name,
                    reason: "its destination entity \"\(r.destinationEntityName)\" does not exist")
            }
            relationships.append(r)
        }
        e.allAttributes = attributes
        e.attributeTypes = attributes.map(\.type)
        e.attributeIsTransient = attributes.map(\.isTransient)
        e.defaultValues = attributes.map(\.defaultValue)
        e.externalBinarySlots = attributes.indices.filter {
            attributes[$0].allowsExternalBinaryDataStorage && attributes[$0].canStoreExternally
        }
        e.emptyRelations = relationships.map { $0.isToMany ? .toMany([]) : .toOne(nil) }
        e.attributeHasRules = attributes.map { $0.minValue != nil || $0.maxValue != nil || $0.regularExpression != nil }
        e.validatedAttributeSlots = attributes.indices.filter { i in
            let a = attributes[i]
            return !a.isTransient && (!a.isOptional || a.minValue != nil || a.maxValue != nil || a.regularExpression != nil)
        }
        e.validatedRelationshipSlots = relationships.indices.filter { i in
            let r = relationships[i]
            return !r.isTransient && (!r.isOptional || (r.isToMany && (r.minCount > 0 || r.maxCount > 0)))
        }
        e.allRelationships = relationships
        // Every destination was checked above (inherited ones when the parent was resolved).
        e.destinations = relationships.compactMap { byName[$0.destinationEntityName] }
        e.attributeSlots = Dictionary(uniqueKeysWithValues: attributes.enumerated().map { ($1.name, $0) })
        e.relationshipSlots = Dictionary(uniqueKeysWithValues: relationships.enumerated().map { ($1.name, $0) })
    }

    private static func checkAttribute(_ a: AttributeDescription, of e: EntityDescription) throws {
        if a.type == .undefined && !a.isTransient {
            throw CoreStackError.invalidModel(
                entity: e.name, property: a.name, reason: "an attribute of type Undefined must be transient")
        }
        if !a.defaultValue.isNull, AttributeCoercion.coerce(a.defaultValue, to: a.type) == nil {
            throw CoreStackError.invalidModel(
                entity: e.name, property: a.name,
                reason: "its default value \(a.defaultValue) is not \(a.type.xcodeName)")
        }
        if let regex = a.regularExpression {
            do { _ = try NSRegularExpression(pattern: regex) } catch {
                throw CoreStackError.invalidModel(
                    entity: e.name, property: a.name, reason: "its regular expression \"\(regex)\" does not compile")
            }
        }
    }

    private static func resolveInverses(_ e: EntityDescription) throws {
        e.inverseSlots = try e.allRelationships.enumerated().map { slot, r in
            guard let inverseName = r.inverseName else { return nil }
            let dest = e.destinations[slot]
            guard let invSlot = dest.relationshipSlots[inverseName] else {
                throw CoreStackError.invalidModel(
                    entity: e.name, property: r.name,
                    reason: "its inverse \"\(inverseName)\" is not a relationship of \(dest.name)")
            }
            let inverse = dest.allRelationships[invSlot]
            let back = dest.destinations[invSlot]
            guard e.isKind(of: back) else {
                throw CoreStackError.invalidModel(
                    entity: e.name, property: r.name,
                    reason: "its inverse \(dest.name).\(inverseName) points to \(back.name), not back to \(e.name)")
            }
            if let backName = inverse.inverseName, backName != r.name {
                throw CoreStackError.invalidModel(
                    entity: e.name, property: r.name,
                    reason: "its inverse \(dest.name).\(inverseName) has \"\(backName)\" as its own inverse, not \"\(r.name)\"")
            }
            return invSlot
        }
    }

    private static func checkConstraints(_ e: EntityDescription) throws {
        for constraint in e.uniquenessConstraints {
            for key in constraint where e.attributeSlots[key] == nil && e.relationshipSlots[key] == nil {
                throw CoreStackError.invalidModel(
                    entity: e.name, property: key, reason: "a uniqueness constraint names an unknown property")
            }
        }
        for index in e.fetchIndexes {
            // An expression element indexes no property of the entity (kept as metadata).
            for element in index.elements
            where element.expression == nil && e.attributeSlots[element.property] == nil && e.relationshipSlots[element.property] == nil {
                throw CoreStackError.invalidModel(
                    entity: e.name, property: element.property,
                    reason: "fetch index \"\(index.name)\" names an unknown property")
            }
        }
    }

    /// CoreStack's entity version hash: SHA-256 over what shapes the schema (name, abstractness,
    /// parent, and each stored property's name, type, optionality and relationship shape). Apple's
    /// own algorithm is not public; stores Apple wrote are matched by structure instead.
    static func versionHash(of e: EntityDescription) -> Data {
        var parts = ["entity:\(e.name)", "abstract:\(e.isAbstract)", "super:\(e.superentityName ?? "")"]
        if let m = e.versionHashModifier { parts.append("modifier:\(m)") }
        for a in e.attributes.sorted(by: { $0.name < $1.name }) where !a.isTransient {
            parts.append("a:\(a.name):\(a.type.rawValue):\(a.isOptional):\(a.versionHashModifier ?? "")")
        }
        for r in e.relationships.sorted(by: { $0.name < $1.name }) where !r.isTransient {
            parts.append(
                "r:\(r.name):\(r.destinationEntityName):\(r.inverseName ?? ""):\(r.isToMany):\(r.isOrdered):\(r.isOptional):\(r.versionHashModifier ?? "")"
            )
        }
        return SHA256Digest.hash(Data(parts.joined(separator: "\n").utf8))
    }
}

/// A fetch request declared in a model file (`<fetchRequest name=… entity=… predicateString=…>`).
///
/// ```swift
/// let template = model.fetchRequestTemplates["recentBooks"]
/// template?.predicateString // "year > 2000"
/// ```
public struct FetchRequestTemplate: Sendable, Hashable {
    /// The template's name.
    public var name: String
    /// The entity it fetches.
    public var entityName: String
    /// The predicate in Core Data's format, unparsed (nil: every object).
    public var predicateString: String?
    /// At most this many results (nil: no limit).
    public var fetchLimit: Int?
    /// The batch size (nil: not batched).
    public var fetchBatchSize: Int?
    /// Whether objects of sub-entities are included.
    public var includesSubentities: Bool
    /// Whether results come back as faults.
    public var returnsObjectsAsFaults: Bool

    /// A template; every option but the name and entity has Core Data's default.
    public init(
        name: String, entityName: String, predicateString: String? = nil, fetchLimit: Int? = nil,
        fetchBatchSize: Int? = nil, includesSubentities: Bool = true, returnsObjectsAsFaults: Bool = true
    ) {
        self.name = name
        self.entityName = entityName
        self.predicateString = predicateString
        self.fetchLimit = fetchLimit
        self.fetchBatchSize = fetchBatchSize
        self.includesSubentities = includesSubentities
        self.returnsObjectsAsFaults = returnsObjectsAsFaults
    }
}
