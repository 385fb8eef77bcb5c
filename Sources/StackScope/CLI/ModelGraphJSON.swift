import Foundation

/// A ``ModelGraph`` as JSON for scripts: the model's name, version and source, every entity as
/// `stackscope info --schema --json` lists it (attributes and relationships, inherited ones with
/// `inheritedFrom`), the relationship edges (each pair once) and the inheritance edges.
///
/// ```swift
/// let json = ModelGraphJSON.render(ModelGraph(model: model), name: "Library", version: "DemoLibrary", source: "demo model")
/// // {"name": "Library", "version": "DemoLibrary", "source": "demo model", "entities": [...],
/// //  "edges": [{"from": "Book", "relationship": "authors", "to": "Author", "inverse": "books",
/// //             "kind": "many-to-many", "label": "authors / books: many-to-many", ...}],
/// //  "inheritance": [{"entity": "GraphicNovel", "parent": "Book"}, ...]}
/// ```
public enum ModelGraphJSON {
    /// The JSON text of `graph` (pretty-printed, ending with a newline).
    ///
    /// ```swift
    /// let text = ModelGraphJSON.render(ModelGraph(model: model), name: "App", version: "App 2", source: "stored in the store (Z_MODELCACHE)")
    /// ```
    public static func render(_ graph: ModelGraph, name: String, version: String, source: String) -> String {
        let value = JSONValue.object([
            ("name", .string(name)),
            ("version", .string(version)),
            ("source", .string(source)),
            ("entities", .array(graph.entities.map { $0.json() })),
            ("edges", .array(graph.edges.map(edge))),
            ("inheritance", .array(graph.inheritance.map { .object([("entity", .string($0.entity)), ("parent", .string($0.parent))]) })),
        ])
        return value.rendered() + "\n"
    }

    /// One edge: both ends with their cardinality (`to-one`, `to-many`, `ordered to-many`,
    /// `many-to-many`), `kind` for the pair (`one-to-one`, `one-to-many`, `many-to-one`,
    /// `many-to-many`, or the cardinality of a relationship without inverse), and the label the pictures show.
    private static func edge(_ e: ModelGraph.Edge) -> JSONValue {
        let kind: String
        if e.isManyToMany {
            kind = "many-to-many"
        } else if let inverse = e.inverse {
            // Objects on the `from` side per `to` object, then the other way: Book.publisher is many-to-one.
            kind = "\(inverse.isToMany ? "many" : "one")-to-\(e.forward.isToMany ? "many" : "one")"
        } else {
            kind = EntitySchema.cardinality(e.forward)
        }
        return .object([
            ("from", .string(e.from)),
            ("relationship", .string(e.forward.name)),
            ("cardinality", .string(EntitySchema.cardinality(e.forward))),
            ("ordered", .bool(e.forward.isOrdered)),
            ("to", .string(e.to)),
            ("inverse", e.inverse.map { .string($0.name) } ?? .null),
            ("inverseCardinality", e.inverse.map { .string(EntitySchema.cardinality($0)) } ?? .null),
            ("inverseOrdered", .bool(e.inverse?.isOrdered ?? false)),
            ("kind", .string(kind)),
            ("label", .string(e.label)),
        ])
    }
}
