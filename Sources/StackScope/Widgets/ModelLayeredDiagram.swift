import Foundation

/// The whole model drawn in layers (the model view's third mode): each entity a box with its own
/// attributes and relationships, each relationship pair and each parent entity one line.
///
/// Layered like Sugiyama's method: every line gets a direction (a parent above its sub-entities,
/// the entity a to-one leads to above the entities that point to it, otherwise the relationship's
/// own direction), cycles are broken, each entity goes on the layer below its lowest predecessor,
/// a line that spans layers runs through pass-through points in the layers between, and a few
/// sweeps order each layer by the mean position of its neighbours, which removes most crossings.
/// Between two layers each line has a row of its own, so horizontal runs never overlap; lines
/// are labelled `publisher→ / books⇉` (→ to-one, ⇉ to-many, the drawn side first) or `△` for a
/// parent. A relationship of an entity to itself is not drawn as a line (its box lists it).
///
/// ```swift
/// let drawing = ModelLayeredDiagram.layout(ModelGraph(model: try DemoLibrary.model()))
/// drawing.lines.count         // rows of text
/// drawing.boxes["Chapter"]    // where Chapter's box is: x, y, width, height
/// ```
public enum ModelLayeredDiagram {
    /// Where an entity's box is in the drawing (columns and rows from the top left).
    public struct Box: Sendable, Equatable {
        /// The first column.
        public var x: Int
        /// The first row (the box's top border).
        public var y: Int
        /// Columns, borders included.
        public var width: Int
        /// Rows, borders included.
        public var height: Int
    }

    /// The drawing: its lines (trailing spaces trimmed), each entity's box, and each entity's layer.
    public struct Drawing: Sendable, Equatable {
        /// The rows of text.
        public var lines: [String]
        /// Each entity's box, by name.
        public var boxes: [String: Box]
        /// Each entity's layer (0 at the top), by name.
        public var layers: [String: Int]
    }

    /// Lays out and draws `graph`.
    ///
    /// ```swift
    /// let drawing = ModelLayeredDiagram.layout(graph)
    /// print(drawing.lines.joined(separator: "\n"))
    /// ```
    public static func layout(_ graph: ModelGraph) -> Drawing {
        let names = graph.entities.map(\.name)
        guard !names.isEmpty else { return Drawing(lines: [], boxes: [:], layers: [:]) }
        let index = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })

        // 1. Directed lines: (upper, lower, label, isInheritance).
        var lines: [(upper: Int, lower: Int, label: String, inherits: Bool)] = []
        for link in graph.inheritance {
            guard let parent = index[link.parent], let child = index[link.entity] else { continue }
            lines.append((parent, child, "△", true))
        }
        for edge in graph.edges {
            guard let from = index[edge.from], let to = index[edge.to], from != to else { continue }
            let label = Self.label(edge)
            let forwardToOne = !edge.forward.isToMany
            let inverseToOne = edge.inverse.map { !$0.isToMany } ?? false
            if forwardToOne && !inverseToOne {
                lines.append((to, from, label, false))  // the "one" above the "many"
            } else {
                lines.append((from, to, label, false))
            }
        }

        // 2. Break cycles (a line back to an entity on the current path is turned around), then
        //    give each entity the layer below its lowest predecessor.
        var outgoing = [[Int]](repeating: [], count: names.count)
        for (i, l) in lines.enumerated() { outgoing[l.upper].append(i) }
        var state = [Int](repeating: 0, count: names.count)  // 0 new, 1 on the path, 2 done
        func visit(_ v: Int) {
            state[v] = 1
            for i in outgoing[v] {
                let w = lines[i].lower
                if state[w] == 1 {
                    lines[i] = (lines[i].lower, lines[i].upper, lines[i].label, lines[i].inherits)
                } else if state[w] == 0 {
                    visit(w)
                }
            }
            state[v] = 2
        }
        for v in names.indices where state[v] == 0 { visit(v) }
        var layer = [Int](repeating: 0, count: names.count)
        var changed = true
        var rounds = 0
        while changed && rounds <= names.count {
            changed = false
            rounds += 1
            for l in lines where layer[l.lower] < layer[l.upper] + 1 {
                layer[l.lower] = layer[l.upper] + 1
                changed = true
            }
        }
        let layerCount = (layer.max() ?? 0) + 1

        // 3. Nodes per layer: entities, and pass-through points of lines spanning layers.
        //    Node ids: 0..<names.count are entities; further ids are pass-through points.
        var nodeLayer = layer
        var segments: [(upper: Int, lower: Int, line: Int)] = []
        for (i, l) in lines.enumerated() {
            var previous = l.upper
            for between in (layer[l.upper] + 1)..<max(layer[l.upper] + 1, layer[l.lower]) {
                nodeLayer.append(between)
                let point = nodeLayer.count - 1
                segments.append((previous, point, i))
                previous = point
            }
            segments.append((previous, l.lower, i))
        }
        var order: [[Int]] = Array(repeating: [], count: layerCount)
        for node in nodeLayer.indices { order[nodeLayer[node]].append(node) }

        // 4. Order each layer by the mean position of its neighbours, sweeping down and up.
        func positions() -> [Int: Int] {
            var p: [Int: Int] = [:]
            for row in order { for (i, n) in row.enumerated() { p[n] = i } }
            return p
        }
        for sweep in 0..<8 {
            let down = sweep % 2 == 0
            let p = positions()
            let range = down ? Array(1..<max(1, layerCount)) : Array((0..<max(0, layerCount - 1)).reversed())
            for l in range {
                var key: [Int: Double] = [:]
                for n in order[l] {
                    let others = segments.compactMap { s -> Int? in
                        if down { return s.lower == n ? s.upper : nil }
                        return s.upper == n ? s.lower : nil
                    }
                    key[n] = others.isEmpty ? Double(p[n] ?? 0) : Double(others.compactMap { p[$0] }.reduce(0, +)) / Double(others.count)
                }
                order[l].sort { (key[$0] ?? 0, p[$0] ?? 0) < (key[$1] ?? 0, p[$1] ?? 0) }
            }
        }

        // 5. Boxes and places: each layer left to right, centred on the widest.
        let contents = graph.entities.map(boxLines)
        func width(_ node: Int) -> Int { node < names.count ? (contents[node].map(\.count).max() ?? 0) + 4 : 1 }
        func height(_ node: Int) -> Int { node < names.count ? contents[node].count + 2 + (contents[node].count > 1 ? 1 : 0) : 0 }
        let gap = 4
        let layerWidths = order.map { row in row.map(width).reduce(0, +) + gap * max(0, row.count - 1) }
        let widest = layerWidths.max() ?? 0
        var x = [Int](repeating: 0, count: nodeLayer.count)
        for (l, row) in order.enumerated() {
            var cursor = (widest - layerWidths[l]) / 2 + 1
            for n in row {
                x[n] = cursor
                cursor += width(n) + gap
            }
        }
        // Rows: each layer as tall as its tallest box, then a band with a row per segment below it.
        var segmentsBelow = [[Int]](repeating: [], count: layerCount)
        for (i, s) in segments.enumerated() { segmentsBelow[nodeLayer[s.upper]].append(i) }
        var layerTop = [Int](repeating: 0, count: layerCount)
        var layerHeight = [Int](repeating: 0, count: layerCount)
        var bandTop = [Int](repeating: 0, count: layerCount)
        var y = 0
        for l in 0..<layerCount {
            layerTop[l] = y
            layerHeight[l] = order[l].map(height).max() ?? 0
            y += layerHeight[l]
            bandTop[l] = y
            y += segmentsBelow[l].count + 2
        }

        // Ports: where each segment leaves its upper node and reaches its lower node.
        func ports(_ node: Int, _ ids: [Int], other: (Int) -> Int) -> [Int: Int] {
            let sorted = ids.sorted { x[other($0)] < x[other($1)] }
            guard node < names.count else { return Dictionary(sorted.map { ($0, x[node]) }, uniquingKeysWith: { a, _ in a }) }
            let w = width(node)
            var result: [Int: Int] = [:]
            for (k, id) in sorted.enumerated() { result[id] = x[node] + 1 + (k + 1) * (w - 2) / (sorted.count + 1) }
            return result
        }
        var outPort: [Int: Int] = [:]
        var inPort: [Int: Int] = [:]
        for node in nodeLayer.indices {
            let outs = segments.indices.filter { segments[$0].upper == node }
            let ins = segments.indices.filter { segments[$0].lower == node }
            outPort.merge(ports(node, outs) { segments[$0].lower }) { a, _ in a }
            inPort.merge(ports(node, ins) { segments[$0].upper }) { a, _ in a }
        }

        // 6. Draw.
        var grid: [[Character]] = []
        func cell(_ cx: Int, _ cy: Int) -> Character {
            guard cy >= 0, cy < grid.count, cx >= 0, cx < grid[cy].count else { return " " }
            return grid[cy][cx]
        }
        func set(_ c: Character, _ cx: Int, _ cy: Int, merge: Bool = true) {
            guard cx >= 0, cy >= 0 else { return }
            while grid.count <= cy { grid.append([]) }
            while grid[cy].count <= cx { grid[cy].append(" ") }
            let old = grid[cy][cx]
            if merge, (old == "─" && c == "│") || (old == "│" && c == "─") {
                grid[cy][cx] = "┼"
            } else if merge, old != " ", c == "│" || c == "─" {
                return  // a line never overwrites a corner or a label
            } else {
                grid[cy][cx] = c
            }
        }
        func put(_ text: String, _ px: Int, _ py: Int) {
            for (i, c) in text.enumerated() { set(c, px + i, py, merge: false) }
        }
        var boxes: [String: Box] = [:]
        for n in names.indices {
            let l = nodeLayer[n]
            let w = width(n)
            let top = layerTop[l]
            let inner = w - 4
            put("┌" + String(repeating: "─", count: w - 2) + "┐", x[n], top)
            var row = top + 1
            for (i, text) in contents[n].enumerated() {
                if text == "—" {
                    put("├" + String(repeating: "─", count: w - 2) + "┤", x[n], row)
                } else {
                    put("│ " + text + String(repeating: " ", count: inner - text.count) + " │", x[n], row)
                }
                row += 1
                if i == 0 && contents[n].count > 1 {
                    put("├" + String(repeating: "─", count: w - 2) + "┤", x[n], row)
                    row += 1
                }
            }
            put("└" + String(repeating: "─", count: w - 2) + "┘", x[n], row)
            boxes[names[n]] = Box(x: x[n], y: top, width: w, height: row - top + 1)
        }
        // Pass-through points: a vertical line down the whole layer.
        for n in names.count..<nodeLayer.count {
            let l = nodeLayer[n]
            for r in layerTop[l]..<(layerTop[l] + max(1, layerHeight[l])) { set("│", x[n], r) }
        }
        func bottom(_ n: Int) -> Int { n < names.count ? (boxes[names[n]].map { $0.y + $0.height - 1 } ?? 0) : layerTop[nodeLayer[n]] + max(1, layerHeight[nodeLayer[n]]) - 1 }
        func top(_ n: Int) -> Int { n < names.count ? (boxes[names[n]]?.y ?? 0) : layerTop[nodeLayer[n]] }
        var bandRows: [Int: Int] = [:]
        for (k, s) in segments.enumerated() {
            guard let sx = outPort[k], let tx = inPort[k] else { continue }
            let l = nodeLayer[s.upper]
            let bandRow = bandTop[l] + 1 + (segmentsBelow[l].firstIndex(of: k) ?? 0)
            bandRows[k] = bandRow
            let line = lines[s.line]
            if s.upper < names.count {
                put(line.inherits ? "△" : "┬", sx, bottom(s.upper))
            }
            for r in (bottom(s.upper) + 1)..<bandRow { set("│", sx, r) }
            if sx == tx {
                set("│", sx, bandRow)
            } else {
                for cx in (min(sx, tx) + 1)..<max(sx, tx) { set("─", cx, bandRow) }
                put(tx > sx ? "└" : "┘", sx, bandRow)
                put(tx > sx ? "┐" : "┌", tx, bandRow)
            }
            for r in (bandRow + 1)..<max(bandRow + 1, top(s.lower)) { set("│", tx, r) }
            if s.lower < names.count { put("┴", tx, top(s.lower)) }
        }
        // Labels after every line is drawn: once per line, on the first of its band rows with room
        // to the right of the turn, else to the left.
        for (i, line) in lines.enumerated() where !line.inherits {
            let text = " " + line.label
            for k in segments.indices where segments[k].line == i {
                guard let sx = outPort[k], let tx = inPort[k], let bandRow = bandRows[k] else { continue }
                let right = max(sx, tx) + 2
                let left = min(sx, tx) - text.count - 1
                if (0..<text.count).allSatisfy({ cell(right + $0, bandRow) == " " }) {
                    put(text, right, bandRow)
                    break
                }
                if left >= 0, (0..<text.count).allSatisfy({ cell(left + $0, bandRow) == " " }) {
                    put(text, left, bandRow)
                    break
                }
            }
        }
        let text = grid.map { row -> String in
            var line = String(row)
            while line.last == " " { line.removeLast() }
            return line
        }
        var layers: [String: Int] = [:]
        for (i, n) in names.enumerated() { layers[n] = layer[i] }
        return Drawing(lines: text, boxes: boxes, layers: layers)
    }

    /// A line's label: the drawn relationship, then its inverse, `→` to-one, `⇉` to-many.
    static func label(_ edge: ModelGraph.Edge) -> String {
        func side(_ r: EntitySchema.Relationship) -> String { r.name + (r.isToMany ? "⇉" : "→") + (r.isOrdered ? "(ordered)" : "") }
        guard let inverse = edge.inverse else { return side(edge.forward) }
        return side(edge.forward) + " / " + side(inverse)
    }

    /// A box's lines: the title, the own attributes, a rule (`—`), the own relationships.
    private static func boxLines(_ e: EntitySchema) -> [String] {
        var title = e.name
        if let parent = e.superentity { title += " : \(parent)" }
        if e.isAbstract { title += " (abstract)" }
        let attributes = e.attributes.filter { $0.inheritedFrom == nil }.map(ModelGraph.line)
        let relationships = e.relationships.filter { $0.inheritedFrom == nil }.map(ModelGraph.line)
        var lines = [title] + attributes
        if !attributes.isEmpty && !relationships.isEmpty { lines.append("—") }
        return lines + relationships
    }
}
