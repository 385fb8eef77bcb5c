import CoreStack
import Foundation

/// A model as a graph to draw: each entity with the properties it declares, one edge per
/// relationship pair (a relationship and its inverse are one edge, drawn once), and one edge per
/// parent entity. ``ModelGraphDOT``, ``ModelGraphMermaid`` and ``ModelGraphJSON`` render it.
///
/// ```swift
/// let graph = ModelGraph(model: try DemoLibrary.model())
/// graph.edges.first { $0.from == "Book" && $0.forward.name == "chapters" }?.label
/// // "chapters: ordered to-many / book: to-one"
/// graph.inheritance  // [GraphicNovel → Book, Author → Person, Editor → Person]
/// ```
public struct ModelGraph: Sendable, Equatable {
    /// One relationship, with its inverse when the model names one.
    public struct Edge: Sendable, Equatable {
        /// The entity that declares ``forward``.
        public var from: String
        /// The destination entity of ``forward``.
        public var to: String
        /// The relationship drawn (of a pair, the one met first in entity order).
        public var forward: EntitySchema.Relationship
        /// Its inverse, declared on ``to`` or one of its parents; nil when it has none.
        public var inverse: EntitySchema.Relationship?

        /// Whether both sides are to-many (a join table in the store).
        public var isManyToMany: Bool { forward.isToMany && inverse?.isToMany == true }

        /// The edge in words: `authors / books: many-to-many`, `chapters: ordered to-many / book: to-one`,
        /// `publisher: to-one (no inverse)`.
        public var label: String {
            guard let inverse else { return "\(forward.name): \(EntitySchema.cardinality(forward)) (no inverse)" }
            if isManyToMany {
                let ordered = forward.isOrdered || inverse.isOrdered ? "ordered " : ""
                return "\(forward.name) / \(inverse.name): \(ordered)many-to-many"
            }
            return "\(forward.name): \(EntitySchema.cardinality(forward)) / \(inverse.name): \(EntitySchema.cardinality(inverse))"
        }
    }

    /// A sub-entity and its parent.
    public struct Inheritance: Sendable, Equatable, CustomStringConvertible {
        /// The sub-entity.
        public var entity: String
        /// Its parent entity.
        public var parent: String
        /// `Child → Parent`.
        public var description: String { "\(entity) → \(parent)" }
    }

    /// Every entity in model order (roots by name, each followed by its sub-entities), with all its
    /// properties; those a parent declares carry `inheritedFrom`.
    public var entities: [EntitySchema]
    /// One edge per relationship pair, in entity order.
    public var edges: [Edge]
    /// One edge per sub-entity.
    public var inheritance: [Inheritance]

    /// The graph of `model`.
    ///
    /// ```swift
    /// ModelGraph(model: try DemoLibrary.model()).edges.count  // 5: each relationship pair once
    /// ```
    public init(model: ManagedObjectModel) {
        entities = model.entities.map { EntitySchema($0) }
        inheritance = model.entities.compactMap { e in
            e.superentity.map { Inheritance(entity: e.name, parent: $0.name) }
        }
        let byName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var drawn: Set<String> = []
        var edges: [Edge] = []
        for entity in entities {
            for r in entity.relationships where r.inheritedFrom == nil {
                guard drawn.insert("\(entity.name).\(r.name)").inserted else { continue }
                var inverse: EntitySchema.Relationship?
                if let name = r.inverse, let destination = byName[r.destination],
                    let found = destination.relationships.first(where: { $0.name == name })
                {
                    inverse = found
                    drawn.insert("\(found.inheritedFrom ?? destination.name).\(name)")
                }
                edges.append(Edge(from: entity.name, to: r.destination, forward: r, inverse: inverse))
            }
        }
        self.edges = edges
    }

    /// An attribute as a line of an entity's box: `title: String`, `subtitle: String?` (optional),
    /// `cover: Binary? (transient)`.
    static func line(_ a: EntitySchema.Attribute) -> String {
        "\(a.name): \(a.type)\(a.isOptional ? "?" : "")\(a.isTransient ? " (transient)" : "")"
    }

    /// A relationship as a line of an entity's box: `author → Person`, `chapters ⇉ Chapter (ordered)`.
    static func line(_ r: EntitySchema.Relationship) -> String {
        var notes: [String] = []
        if r.isOrdered { notes.append("ordered") }
        if r.isTransient { notes.append("transient") }
        let suffix = notes.isEmpty ? "" : " (\(notes.joined(separator: ", ")))"
        return "\(r.name) \(r.isToMany ? "⇉" : "→") \(r.destination)\(r.isOptional ? "?" : "")\(suffix)"
    }
}
