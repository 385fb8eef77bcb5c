import Foundation

/// A ``ModelGraph`` as a Mermaid class diagram: each entity a class with its attributes and
/// relationships, each relationship pair one association with multiplicities at both ends (`1`,
/// `0..1`, `*`, `* ordered`) and a label in words, each parent entity an inheritance arrow.
/// GitHub, GitLab and most Markdown tools draw it inside a `mermaid` code block.
///
/// ```swift
/// let text = ModelGraphMermaid.render(ModelGraph(model: model))
/// // classDiagram
/// //   class Book {
/// //     title: String
/// //   …
/// //   Book "*" -- "*" Author : authors / books, many-to-many
/// //   Book <|-- GraphicNovel
/// ```
public enum ModelGraphMermaid {
    /// The Mermaid text of `graph`, ending with a newline.
    ///
    /// ```swift
    /// print("```mermaid\n" + ModelGraphMermaid.render(ModelGraph(model: model)) + "```")
    /// ```
    public static func render(_ graph: ModelGraph) -> String {
        var lines = ["classDiagram"]
        for entity in graph.entities {
            let name = identifier(entity.name)
            let members =
                entity.attributes.filter { $0.inheritedFrom == nil }.map(ModelGraph.line)
                + entity.relationships.filter { $0.inheritedFrom == nil }.map(ModelGraph.line)
            lines.append("  class \(name) {")
            if entity.isAbstract { lines.append("    <<abstract>>") }
            for line in members { lines.append("    \(member(line))") }
            lines.append("  }")
        }
        for edge in graph.edges {
            let near = edge.inverse.map(multiplicity) ?? ""
            let far = multiplicity(edge.forward)
            let arrow = edge.inverse == nil ? "-->" : "--"
            let left = near.isEmpty ? "" : " \"\(near)\""
            lines.append(
                "  \(identifier(edge.from))\(left) \(arrow) \"\(far)\" \(identifier(edge.to)) : \(label(edge.label))")
        }
        for link in graph.inheritance {
            lines.append("  \(identifier(link.parent)) <|-- \(identifier(link.entity))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// How many destinations one object has through `r`: `1`, `0..1`, `*`, `1..*`, `* ordered`.
    static func multiplicity(_ r: EntitySchema.Relationship) -> String {
        guard r.isToMany else { return r.isOptional ? "0..1" : "1" }
        return (r.isOptional ? "*" : "1..*") + (r.isOrdered ? " ordered" : "")
    }

    /// A class name as Mermaid takes it: as it is when it is a plain identifier, else in backticks.
    static func identifier(_ name: String) -> String {
        let plain = !name.isEmpty && name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "_") }
        return plain ? name : "`" + name.replacingOccurrences(of: "`", with: "'") + "`"
    }

    /// A member line: Mermaid takes any line with a `)` for a method (drawn in the methods
    /// compartment), so the notes in parentheses go in brackets: `chapters ⇉ Chapter [ordered]`.
    private static func member(_ text: String) -> String {
        text.replacingOccurrences(of: "(", with: "[").replacingOccurrences(of: ")", with: "]")
    }

    /// An edge label: Mermaid ends the label at a newline and reads `:` and `;` specially in some
    /// versions, so those become commas.
    private static func label(_ text: String) -> String {
        text.replacingOccurrences(of: ":", with: ",").replacingOccurrences(of: ";", with: ",")
            .replacingOccurrences(of: "\n", with: " ")
    }
}
