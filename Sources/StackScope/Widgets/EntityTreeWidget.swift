import CoreStack
import Foundation

// The entities pane: the entity tree with live counts.
extension App {
    static func renderEntities(_ s: AppState, _ r: Rect, _ b: inout ScreenBuffer) {
        let (border, title) = paneStyle(s, .entities)
        b.box(r, title: "Entities", style: border, titleStyle: title)
        let inner = r.inset(1)
        let visible = s.entities.visible
        for row in 0..<inner.height {
            let i = s.entities.scroll.offset + row
            guard visible.indices.contains(i) else { break }
            let n = visible[i]
            let marker = n.hasChildren ? (s.entities.collapsed.contains(n.name) ? "▸ " : "▾ ") : "  "
            let name = String(repeating: "  ", count: n.depth) + marker + n.name
            let count: String
            var style = n.isAbstract ? Style(fg: .default, dim: false).with(underline: false) : Style.plain
            if n.isAbstract { style = Style(fg: .magenta) }
            switch n.kind {
            case .entity: count = s.entities.counts[n.name].map { formatCount($0) } ?? "…"
            case .otherTablesHeading:
                // Tables neither the model nor Core Data explains, read as plain rows.
                count = formatCount(s.entities.tableCounts.count)
                style = Style(fg: .yellow, bold: true)
            case .otherTable:
                count = s.entities.tableCounts[n.name].map { formatCount($0) } ?? "…"
                style = Style(fg: .yellow)
            }
            let isOpen = n.kind == .entity && s.table.source == .entity(n.name)
            if isOpen { style = style.with(bold: true) }
            if i == s.entities.scroll.selection { style = selectionStyle(s, .entities) }
            let y = inner.y + row
            b.fill(Rect(x: inner.x, y: y, width: inner.width, height: 1), style: style)
            let countWidth = DisplayWidth.of(count)
            b.put(name + (n.isAbstract ? " (abstract)" : ""), x: inner.x, y: y, maxWidth: max(0, inner.width - countWidth - 1), style: style)
            var countStyle = style
            if s.entities.changedAt[n.name] != nil { countStyle = Style(fg: .green, bold: true, reverse: style.reverse) }
            b.put(count, x: inner.maxX - countWidth, y: y, style: countStyle)
        }
    }

    static func formatCount(_ n: Int) -> String {
        let f = NumberFormatter()
        f.numberStyle = .decimal
        f.groupingSeparator = ","
        f.usesGroupingSeparator = true
        return f.string(from: NSNumber(value: n)) ?? String(n)
    }
}
