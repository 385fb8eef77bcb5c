import Foundation

/// One entity and its neighbours drawn as boxes and lines in layers (the model view's Tab mode):
/// its parent entity above it (a `△` line: inherits from), the entity in the middle with its own
/// attributes, and below, on one bus, each entity it is linked with and each sub-entity, every
/// line labelled with the relationship on this entity's side and the pair's cardinality. A star
/// around one entity, so no two lines cross.
///
/// ```swift
/// let lines = ModelNeighbourhoodDiagram.lines(ModelGraph(model: try DemoLibrary.model()), around: "Chapter")
/// // ["┌──────────────────────┐", "│ Chapter              │", "├──────────────────────┤", "│ title: String        │", …,
/// //  "└──────────┬───────────┘", "           │", " ┌─────────┘", " │ book →", " │ to-one / ordered to-many", "┌┴─────┐", "│ Book │", "└──────┘"]
/// ```
public enum ModelNeighbourhoodDiagram {
    /// The drawing as lines of text (trailing spaces trimmed); empty when the graph has no such entity.
    public static func lines(_ graph: ModelGraph, around name: String) -> [String] {
        guard let entity = graph.entities.first(where: { $0.name == name }) else { return [] }
        var grid: [[Character]] = []
        func put(_ text: String, _ x: Int, _ y: Int) {
            while grid.count <= y { grid.append([]) }
            for (i, c) in text.enumerated() {
                while grid[y].count <= x + i { grid[y].append(" ") }
                grid[y][x + i] = c
            }
        }
        func width(_ text: String) -> Int { text.count }
        /// A box at (x, y) around `lines` (the first is the title, ruled off when more follow); returns its width.
        @discardableResult
        func box(_ lines: [String], _ x: Int, _ y: Int, minWidth: Int = 0) -> Int {
            let inner = max(minWidth - 4, lines.map(width).max() ?? 0)
            let w = inner + 4
            put("┌" + String(repeating: "─", count: w - 2) + "┐", x, y)
            var row = y + 1
            for (i, line) in lines.enumerated() {
                put("│ " + line + String(repeating: " ", count: inner - width(line)) + " │", x, row)
                row += 1
                if i == 0 && lines.count > 1 {
                    put("├" + String(repeating: "─", count: w - 2) + "┤", x, row)
                    row += 1
                }
            }
            put("└" + String(repeating: "─", count: w - 2) + "┘", x, row)
            return w
        }
        func title(_ name: String) -> String {
            let abstract = graph.entities.first { $0.name == name }?.isAbstract == true
            return name + (abstract ? " (abstract)" : "")
        }

        // The neighbours below: linked entities (with the label of the link), then sub-entities.
        var columns: [(name: String, labels: [String], width: Int)] = []
        for edge in graph.edges where edge.from == name || edge.to == name {
            let other = edge.from == name ? edge.to : edge.from
            let mine = edge.from == name ? edge.forward : edge.inverse
            let theirs = edge.from == name ? edge.inverse : edge.forward
            var labels: [String] = []
            if let mine { labels.append("\(mine.name) \(mine.isToMany ? "⇉" : "→")") }
            if edge.isManyToMany {
                labels.append((edge.forward.isOrdered || edge.inverse?.isOrdered == true ? "ordered " : "") + "many-to-many")
            } else {
                let near = mine.map(EntitySchema.cardinality) ?? "—"
                let far = theirs.map { "\(EntitySchema.cardinality($0)) (\($0.name))" } ?? "no inverse"
                labels.append("\(near) / \(far)")
            }
            if other == name { labels.append("(to itself)") }
            columns.append((other, labels, 0))
        }
        for link in graph.inheritance where link.parent == name {
            columns.append((link.entity, ["sub-entity ▽"], 0))
        }
        for i in columns.indices {
            let boxWidth = width(title(columns[i].name)) + 4
            columns[i].width = max(boxWidth, (columns[i].labels.map(width).max() ?? 0) + 3)
        }
        let gap = 2
        let busWidth = columns.reduce(0) { $0 + $1.width } + gap * max(0, columns.count - 1)

        // The entity's box: its title and own attributes.
        let own = [title(name) + (entity.superentity.map { " : \($0)" } ?? "")]
            + entity.attributes.filter { $0.inheritedFrom == nil }.map(ModelGraph.line)
        let centerWidth = (own.map(width).max() ?? 0) + 4
        let centerX = max(0, (busWidth - centerWidth) / 2)
        let centerMid = centerX + centerWidth / 2
        var y = 0
        if let parent = entity.superentity {
            let w = width(title(parent)) + 4
            let x = max(0, centerMid - w / 2)
            box([title(parent)], x, 0)
            put("△", centerMid, 3)
            put("│ inherits from", centerMid, 4)
            y = 5
        }
        box(own, centerX, y)
        let centerBottom = y + own.count + (own.count > 1 ? 2 : 1)
        if y > 0 { put("┴", centerMid, y) }
        guard !columns.isEmpty else { return trimmed(grid) }

        // The bus: down from the entity, across to each column, down to each neighbour's box.
        put("┬", centerMid, centerBottom)
        put("│", centerMid, centerBottom + 1)
        let busY = centerBottom + 2
        var drops: [Int] = []
        var x = 0
        for column in columns {
            drops.append(x + 1)
            x += column.width + gap
        }
        let left = min(drops.first ?? centerMid, centerMid)
        let right = max(drops.last ?? centerMid, centerMid)
        put(String(repeating: "─", count: right - left + 1), left, busY)
        for d in drops { put(d == left ? "┌" : d == right ? "┐" : "┬", d, busY) }
        put(centerMid == left ? (drops.contains(left) ? "├" : "└") : centerMid == right ? (drops.contains(right) ? "┤" : "┘") : (drops.contains(centerMid) ? "┼" : "┴"), centerMid, busY)
        x = 0
        for (column, drop) in zip(columns, drops) {
            for (i, label) in column.labels.enumerated() {
                put("│ " + label, drop, busY + 1 + i)
            }
            let top = busY + 1 + column.labels.count
            box([title(column.name)], x, top)
            put("┴", drop, top)
            x += column.width + gap
        }
        return trimmed(grid)
    }

    private static func trimmed(_ grid: [[Character]]) -> [String] {
        grid.map { row in
            var line = String(row)
            while line.last == " " { line.removeLast() }
            return line
        }
    }
}
