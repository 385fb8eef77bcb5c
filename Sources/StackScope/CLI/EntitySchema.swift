import CoreStack
import Foundation

/// One entity's properties as `stackscope info --schema` lists them: each attribute with its
/// type, each relationship with its destination, cardinality (to-one, to-many, ordered,
/// many-to-many), inverse and delete rule; inherited properties name the entity they come from.
///
/// ```swift
/// let schema = EntitySchema(model.entity(named: "Book")!)
/// schema.textLines()  // ["Book", "  title   String", "  author  → Author  to-one, optional, inverse books, Nullify", …]
/// ```
public struct EntitySchema: Sendable, Equatable {
    /// An attribute: its name and Xcode type name.
    public struct Attribute: Sendable, Equatable {
        /// The attribute's name.
        public var name: String
        /// The type as the model editor names it (`String`, `Integer 16`, `Transformable`…).
        public var type: String
        /// Whether it may be nil.
        public var isOptional: Bool
        /// Whether it is transient (not stored).
        public var isTransient: Bool
        /// The value transformer of a transformable attribute, when the model names one.
        public var valueTransformerName: String?
        /// The ancestor entity that declares it, nil when the entity itself does.
        public var inheritedFrom: String?
        /// Whether its values may live in the store's `_EXTERNAL_DATA` folder (Allows External Storage).
        public var allowsExternalStorage = false
        /// For a raw attribute (a column nothing explained, read as it is): the column's name.
        public var rawColumn: String?
        /// A derived attribute's expression, in Core Data's format.
        public var derivationExpression: String?
        /// Validation rules the model declares (kept, not checked), in Core Data's format.
        public var validationPredicates: [String] = []
    }

    /// A relationship: where it goes and how many.
    public struct Relationship: Sendable, Equatable {
        /// The relationship's name.
        public var name: String
        /// The destination entity's name.
        public var destination: String
        /// Whether it is to-many.
        public var isToMany: Bool
        /// Whether it is an ordered to-many.
        public var isOrdered: Bool
        /// Whether it and its inverse are both to-many (a join table in the store).
        public var isManyToMany: Bool
        /// The inverse relationship's name, nil when it has none.
        public var inverse: String?
        /// Whether it may be nil (to-one) or empty (to-many).
        public var isOptional: Bool
        /// Whether it is transient (not stored).
        public var isTransient: Bool
        /// The delete rule as the model editor names it (`Nullify`, `Cascade`, `Deny`, `No Action`).
        public var deleteRule: String
        /// The ancestor entity that declares it, nil when the entity itself does.
        public var inheritedFrom: String?
        /// Whether schema inference made it up as a to-one's inverse (its name is a guess).
        public var isInferredInverse = false
    }

    /// The entity's name.
    public var name: String
    /// Its parent entity's name, nil for a root entity.
    public var superentity: String?
    /// Whether it is abstract.
    public var isAbstract: Bool
    /// Every attribute, inherited ones first (model order).
    public var attributes: [Attribute]
    /// Every relationship, inherited ones first (model order).
    public var relationships: [Relationship]
    /// What the model declares that CoreStack keeps as metadata only, one line each: fetched
    /// properties, composite attributes, fetch indexes, uniqueness constraints, and the elements
    /// CoreStack set aside (`EntityDescription/unimplementedElements`).
    ///
    /// ```swift
    /// EntitySchema(asset).metadata  // ["fetch index byAdded (dateCreated, expression lowercase:(title))", …]
    /// ```
    public var metadata: [String] = []

    /// The schema of `entity`; the model's fetch request `templates` that fetch it are listed in
    /// ``metadata``.
    ///
    /// ```swift
    /// let schema = EntitySchema(book, templates: Array(model.fetchRequestTemplates.values))
    /// ```
    public init(_ entity: EntityDescription, templates: [FetchRequestTemplate] = []) {
        name = entity.name
        superentity = entity.superentity?.name
        isAbstract = entity.isAbstract
        func declaring(_ has: (EntityDescription) -> Bool) -> String? {
            var e = entity.superentity
            var found: String?
            while let cur = e {
                if has(cur) { found = cur.name }
                e = cur.superentity
            }
            return found
        }
        attributes = entity.allAttributes.map { a in
            Attribute(
                name: a.name, type: a.type.xcodeName, isOptional: a.isOptional, isTransient: a.isTransient,
                valueTransformerName: a.valueTransformerName,
                inheritedFrom: entity.attributes.contains { $0.name == a.name } ? nil : declaring { $0.attribute(named: a.name) != nil },
                allowsExternalStorage: a.allowsExternalBinaryDataStorage, rawColumn: a.rawColumn,
                derivationExpression: a.derivationExpression, validationPredicates: a.validationPredicates)
        }
        metadata = Self.metadata(of: entity)
        for template in templates.sorted(by: { $0.name < $1.name }) where template.entityName == entity.name {
            metadata.append("fetch request template \(template.name)" + (template.predicateString.map { " where \($0)" } ?? ""))
        }
        relationships = entity.allRelationships.map { r in
            let inverse = r.inverseName.flatMap { entity.destinationEntity(ofRelationship: r.name)?.relationship(named: $0) }
            return Relationship(
                name: r.name, destination: r.destinationEntityName, isToMany: r.isToMany, isOrdered: r.isOrdered,
                isManyToMany: r.isToMany && inverse?.isToMany == true, inverse: r.inverseName, isOptional: r.isOptional,
                isTransient: r.isTransient, deleteRule: r.deleteRule.rawValue,
                inheritedFrom: entity.relationships.contains { $0.name == r.name } ? nil : declaring { $0.relationship(named: r.name) != nil },
                isInferredInverse: r.isInferredInverse)
        }
    }

    /// The metadata lines of ``metadata``, declared by `entity` itself (not inherited).
    static func metadata(of entity: EntityDescription) -> [String] {
        var lines: [String] = []
        for f in entity.fetchedProperties {
            lines.append("fetched property \(f.name) → \(f.destinationEntityName ?? "?")" + (f.predicate.map { " where \($0)" } ?? ""))
        }
        for c in entity.compositeAttributes {
            lines.append("composite attribute \(c.name) (" + c.elements.map { "\($0.name) \($0.type.xcodeName)" }.joined(separator: ", ") + ")")
        }
        for constraint in entity.uniquenessConstraints {
            lines.append("uniqueness constraint (\(constraint.joined(separator: ", ")))")
        }
        for index in entity.fetchIndexes {
            let elements = index.elements.map { el in
                var text = el.expression.map { "expression \($0)" } ?? el.property
                if !el.ascending { text += " DESC" }
                if el.collationType == .rTree { text += " R-tree" }
                return text
            }
            lines.append("fetch index \(index.name) (\(elements.joined(separator: ", ")))"
                + (index.partialIndexPredicate.map { " where \($0)" } ?? ""))
        }
        lines += entity.unimplementedElements.map { "not applied: \($0)" }
        return lines
    }

    /// The cardinality in words: `to-one`, `to-many`, `ordered to-many`, `many-to-many`.
    static func cardinality(_ r: Relationship) -> String {
        if !r.isToMany { return "to-one" }
        if r.isManyToMany { return r.isOrdered ? "ordered many-to-many" : "many-to-many" }
        return r.isOrdered ? "ordered to-many" : "to-many"
    }

    /// The entity's lines: a heading (`GraphicNovel : Book`, `Writer (abstract)`), then one line per
    /// property, names aligned.
    public func textLines() -> [String] {
        var heading = name
        if let superentity { heading += " : \(superentity)" }
        if isAbstract { heading += " (abstract)" }
        let width = (attributes.map(\.name) + relationships.map(\.name)).map(\.count).max() ?? 0
        func pad(_ s: String) -> String { s + String(repeating: " ", count: max(0, width - s.count)) }
        func from(_ entity: String?) -> [String] { entity.map { ["from \($0)"] } ?? [] }
        var lines = [heading]
        for a in attributes {
            var notes: [String] = []
            if a.isOptional { notes.append("optional") }
            if a.isTransient { notes.append("transient") }
            if let t = a.valueTransformerName { notes.append("transformer \(t)") }
            if a.allowsExternalStorage { notes.append("external storage") }
            if let column = a.rawColumn { notes.append("raw column \(column)") }
            if let d = a.derivationExpression { notes.append("derived \(d)") }
            if !a.validationPredicates.isEmpty { notes.append("validation " + a.validationPredicates.joined(separator: "; ")) }
            notes += from(a.inheritedFrom)
            lines.append("  \(pad(a.name))  \(a.type)" + (notes.isEmpty ? "" : "  " + notes.joined(separator: ", ")))
        }
        for r in relationships {
            var notes = [Self.cardinality(r)]
            if r.isOptional { notes.append("optional") }
            if r.isTransient { notes.append("transient") }
            notes.append(r.inverse.map { "inverse \($0)" } ?? "no inverse")
            notes.append(r.deleteRule)
            if r.isInferredInverse { notes.append("inferred inverse") }
            notes += from(r.inheritedFrom)
            lines.append("  \(pad(r.name))  \(r.isToMany ? "⇉" : "→") \(r.destination)  " + notes.joined(separator: ", "))
        }
        lines += metadata.map { "  · \($0)" }
        return lines
    }

    /// The entity as JSON: name, parent, abstract, attributes and relationships.
    func json() -> JSONValue {
        func optional(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
        return .object([
            ("name", .string(name)),
            ("superentity", optional(superentity)),
            ("abstract", .bool(isAbstract)),
            (
                "attributes",
                .array(
                    attributes.map { a in
                        .object([
                            ("name", .string(a.name)), ("type", .string(a.type)), ("optional", .bool(a.isOptional)),
                            ("transient", .bool(a.isTransient)), ("valueTransformer", optional(a.valueTransformerName)),
                            ("inheritedFrom", optional(a.inheritedFrom)), ("externalStorage", .bool(a.allowsExternalStorage)),
                            ("rawColumn", optional(a.rawColumn)), ("derivation", optional(a.derivationExpression)),
                            ("validation", .array(a.validationPredicates.map { .string($0) })),
                        ])
                    })
            ),
            (
                "relationships",
                .array(
                    relationships.map { r in
                        .object([
                            ("name", .string(r.name)), ("destination", .string(r.destination)),
                            ("cardinality", .string(Self.cardinality(r))), ("toMany", .bool(r.isToMany)),
                            ("ordered", .bool(r.isOrdered)), ("manyToMany", .bool(r.isManyToMany)),
                            ("inverse", optional(r.inverse)), ("optional", .bool(r.isOptional)),
                            ("transient", .bool(r.isTransient)), ("deleteRule", .string(r.deleteRule)),
                            ("inheritedFrom", optional(r.inheritedFrom)), ("inferredInverse", .bool(r.isInferredInverse)),
                        ])
                    })
            ),
            ("metadata", .array(metadata.map { .string($0) })),
        ])
    }
}
