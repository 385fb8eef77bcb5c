import Foundation

/// A ``ModelGraph`` as Graphviz DOT: each entity a box (name, attributes, relationships), each
/// relationship pair one edge with crow's feet at its to-many ends and a label in words, each
/// parent entity a hollow-arrow edge. `dot -Tsvg model.dot -o model.svg` draws it.
///
/// ```swift
/// let dot = ModelGraphDOT.render(ModelGraph(model: model), name: "Library")
/// // digraph "Library" {
/// //   "Book" [label=<…>];
/// //   "Book" -> "Author" [label="authors / books: many-to-many", dir=both, arrowhead=crow, arrowtail=crow];
/// //   "GraphicNovel" -> "Book" [arrowhead=empty, …];
/// ```
public enum ModelGraphDOT {
    /// The DOT text of `graph`, ending with a newline; `name` names the graph.
    ///
    /// ```swift
    /// try ModelGraphDOT.render(ModelGraph(model: model), name: "Library").write(toFile: "model.dot", atomically: true, encoding: .utf8)
    /// ```
    public static func render(_ graph: ModelGraph, name: String) -> String {
        var lines = [
            "// \(name): ? optional, → to-one, ⇉ to-many; crow's foot at a to-many end, bar at a to-one end;",
            "// hollow arrow from a sub-entity to its parent. Draw with: dot -Tsvg FILE -o model.svg",
            "digraph \(quoted(name)) {",
            "  graph [fontname=\"Helvetica\", nodesep=0.6, ranksep=0.9];",
            "  node [shape=plaintext, fontname=\"Helvetica\", fontsize=11];",
            "  edge [fontname=\"Helvetica\", fontsize=9, color=\"#555555\"];",
        ]
        for entity in graph.entities {
            lines.append("  \(quoted(entity.name)) [label=<\(table(entity))>];")
        }
        for edge in graph.edges {
            let head = edge.forward.isToMany ? "crow" : "tee"
            let tail = edge.inverse.map { $0.isToMany ? "crow" : "tee" } ?? "none"
            lines.append(
                "  \(quoted(edge.from)) -> \(quoted(edge.to)) [label=\(quoted(edge.label)), dir=both, arrowhead=\(head), arrowtail=\(tail)];")
        }
        for link in graph.inheritance {
            lines.append(
                "  \(quoted(link.entity)) -> \(quoted(link.parent)) [arrowhead=empty, arrowsize=1.3, color=\"#000000\", style=bold];")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The HTML-like label of an entity: a heading row, then its own attributes, then its own
    /// relationships (inherited properties are in the parent's box).
    private static func table(_ entity: EntitySchema) -> String {
        var heading = "<b>\(html(entity.name))</b>"
        if entity.isAbstract { heading += "<br/><i>abstract</i>" }
        if let parent = entity.superentity { heading += "<br/><font point-size=\"9\">: \(html(parent))</font>" }
        var rows = ["<tr><td bgcolor=\"#dde4ee\">\(heading)</td></tr>"]
        let attributes = entity.attributes.filter { $0.inheritedFrom == nil }.map(ModelGraph.line)
        let relationships = entity.relationships.filter { $0.inheritedFrom == nil }.map(ModelGraph.line)
        for section in [attributes, relationships] where !section.isEmpty {
            rows.append("<tr><td align=\"left\" balign=\"left\">\(section.map(html).joined(separator: "<br/>"))</td></tr>")
        }
        return "<table border=\"0\" cellborder=\"1\" cellspacing=\"0\" cellpadding=\"4\">\(rows.joined())</table>"
    }

    /// A DOT quoted string.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for c in text {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.append(c)
            }
        }
        return out + "\""
    }

    /// Text inside an HTML-like label.
    static func html(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}
