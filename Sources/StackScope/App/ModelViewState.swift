import Foundation

/// The model view (`m`, `:model`): the model's entities as a list (sub-entities under their
/// parents), the selected entity's card (its attributes with type and optionality, its
/// relationships with destination, cardinality and inverse, its parent, sub-entities and the
/// entities it is linked with), a filter to jump to an entity by name, and a focus that keeps only
/// an entity and its neighbours and draws the selected one among its neighbours, as boxes and
/// lines (``ModelNeighbourhoodDiagram``), then the whole model drawn in layers, scrolled to the
/// selected entity's box (``ModelLayeredDiagram``). Enter opens the selected entity's table.
///
/// ```swift
/// var view = ModelViewState(graph: ModelGraph(model: try DemoLibrary.model()))
/// view.filter.set("chap")
/// view.visibleEntities.map(\.name)  // ["Chapter"]
/// view.card(for: "Chapter")         // ["Chapter", "", "Attributes", "  title: String", …]
/// ```
public struct ModelViewState: Sendable, Equatable {
    /// The model drawn.
    public var graph: ModelGraph
    /// Text typed to narrow the list to entities whose name contains it (any case).
    public var filter = LineEditor()
    /// The selected entity in ``visibleEntities`` and the list's scroll offset.
    public var scroll = ScrollState()
    /// The entity whose neighbourhood alone is listed (Tab), nil for every entity.
    public var focus: String?
    /// The first line of the card shown (the card scrolls with PgUp / PgDn).
    public var cardOffset = 0
    /// The first column of the drawing shown (it scrolls with ← / →).
    public var column = 0
    /// Whether the right side draws the whole model in layers (``ModelLayeredDiagram``) instead of
    /// the selected entity's card; Tab goes card → neighbours → whole model → card.
    public var showsWholeModel = false {
        didSet { drawing = showsWholeModel ? (drawing ?? ModelLayeredDiagram.layout(graph)) : nil }
    }
    /// The whole-model drawing while it is shown, laid out once (a 70-entity model takes a tenth
    /// of a second or more) rather than on every key.
    public private(set) var drawing: ModelLayeredDiagram.Drawing?

    /// A view of `graph` with every entity listed and the first selected.
    ///
    /// ```swift
    /// state.modals.append(.model(ModelViewState(graph: ModelGraph(model: session.model))))
    /// ```
    public init(graph: ModelGraph) {
        self.graph = graph
    }

    /// One row of the entity list: the name and its depth in the inheritance tree.
    public struct Row: Sendable, Equatable {
        /// The entity's name.
        public var name: String
        /// 0 for a root entity, 1 for its sub-entities, and so on.
        public var depth: Int
    }

    /// The entities listed: in model order (roots by name, each followed by its sub-entities),
    /// narrowed by ``focus`` and ``filter``.
    public var visibleEntities: [Row] {
        let keep = focus.map { Set([$0] + neighbours(of: $0)) }
        let text = filter.text.trimmingCharacters(in: .whitespaces).lowercased()
        return graph.entities.compactMap { e in
            if let keep, !keep.contains(e.name) { return nil }
            if !text.isEmpty, !e.name.lowercased().contains(text) { return nil }
            return Row(name: e.name, depth: depth(of: e.name))
        }
    }

    /// The selected entity's name, nil when nothing is listed.
    public var selectedEntity: String? {
        let rows = visibleEntities
        return rows.indices.contains(scroll.selection) ? rows[scroll.selection].name : nil
    }

    /// The entities linked with `name` by a relationship (either way) or by inheritance, in model order.
    ///
    /// ```swift
    /// view.neighbours(of: "Chapter")  // ["Book"]
    /// ```
    public func neighbours(of name: String) -> [String] {
        var linked: Set<String> = []
        for edge in graph.edges {
            if edge.from == name { linked.insert(edge.to) }
            if edge.to == name { linked.insert(edge.from) }
        }
        for link in graph.inheritance {
            if link.entity == name { linked.insert(link.parent) }
            if link.parent == name { linked.insert(link.entity) }
        }
        linked.remove(name)
        return graph.entities.map(\.name).filter(linked.contains)
    }

    /// The card of the entity named `name`: a heading (parent, abstract), its attributes and
    /// relationships (inherited ones marked with where they come from), its sub-entities and the
    /// entities it is linked with.
    ///
    /// ```swift
    /// view.card(for: "Person").first  // "Person (abstract)"
    /// ```
    public func card(for name: String) -> [String] {
        guard let e = graph.entities.first(where: { $0.name == name }) else { return [] }
        var heading = e.name
        if let parent = e.superentity { heading += " : \(parent)" }
        if e.isAbstract { heading += " (abstract)" }
        var lines = [heading]
        func from(_ entity: String?) -> String { entity.map { "  (from \($0))" } ?? "" }
        if !e.attributes.isEmpty {
            lines += ["", "Attributes"] + e.attributes.map { "  " + ModelGraph.line($0) + from($0.inheritedFrom) }
        }
        if !e.relationships.isEmpty {
            lines += ["", "Relationships"]
            for r in e.relationships {
                let inverse = r.inverse.map { "inverse \($0)" } ?? "no inverse"
                lines.append("  \(ModelGraph.line(r))  \(EntitySchema.cardinality(r)), \(inverse), \(r.deleteRule)\(from(r.inheritedFrom))")
            }
        }
        let children = graph.inheritance.filter { $0.parent == name }.map(\.entity)
        if !children.isEmpty { lines += ["", "Sub-entities: " + children.joined(separator: ", ")] }
        let linked = neighbours(of: name)
        if !linked.isEmpty { lines += ["", "Linked with: " + linked.joined(separator: ", ")] }
        return lines
    }

    /// What the right side shows for the entity named `name`: its card, or with ``focus`` set, the
    /// drawing of it and its neighbours (``ModelNeighbourhoodDiagram``).
    ///
    /// ```swift
    /// view.focus = "Chapter"
    /// view.panel(for: "Chapter").first  // "┌──────────────────────┐"
    /// ```
    public func panel(for name: String) -> [String] {
        if showsWholeModel { return (drawing ?? ModelLayeredDiagram.layout(graph)).lines }
        return focus == nil ? card(for: name) : ModelNeighbourhoodDiagram.lines(graph, around: name)
    }

    /// In the whole-model drawing, scrolls so the selected entity's box shows near the top left,
    /// with `rowsAbove` rows and `columnsLeft` columns of its surroundings (lines coming in).
    ///
    /// ```swift
    /// view.showsWholeModel = true
    /// view.scrollToSelectedBox()   // cardOffset and column now a little above and left of Book's box
    /// ```
    public mutating func scrollToSelectedBox(rowsAbove: Int = 6, columnsLeft: Int = 12) {
        guard showsWholeModel, let name = selectedEntity, let box = drawing?.boxes[name] else { return }
        cardOffset = max(0, box.y - rowsAbove)
        column = max(0, box.x - columnsLeft)
    }

    private func depth(of name: String) -> Int {
        var depth = 0
        var current = name
        var seen: Set<String> = [name]
        while let parent = graph.inheritance.first(where: { $0.entity == current })?.parent, seen.insert(parent).inserted {
            depth += 1
            current = parent
        }
        return depth
    }
}
