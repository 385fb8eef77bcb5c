import CoreStack
import Foundation

// The objects pane: the table of the row window, columns scrolled to the selection.
extension App {
    /// The columns shown from the left, scrolled so that the selected one is visible.
    static func visibleColumns(_ t: TableState, width: Int) -> [Int] {
        guard !t.columns.isEmpty else { return [] }
        func w(_ i: Int) -> Int { max(DisplayWidth.of(t.columns[i].name) + 2, t.columns[i].width) + 1 }
        var start = min(t.columnOffset, t.selectedColumn)
        while start < t.selectedColumn && (start...t.selectedColumn).reduce(0, { $0 + w($1) }) > width { start += 1 }
        var out: [Int] = []
        var used = 0
        for i in start..<t.columns.count {
            if used >= width { break }
            out.append(i)
            used += w(i)
        }
        return out
    }

    static func renderTable(_ s: AppState, _ r: Rect, _ b: inout ScreenBuffer) {
        let t = s.table
        let (border, titleStyle) = paneStyle(s, .table)
        var title = "Objects"
        if let source = t.source {
            switch source {
            case let .entity(name): title = name
            case let .relationship(_, _, _, label): title = label
            }
            title += " · \(formatCount(t.objectCount)) object\(t.objectCount == 1 ? "" : "s")"
            if s.currentContext != "main" { title += " · in \(s.currentContext)" }
            if let p = s.picking { title = "Pick a \(p.destination) for \(p.ownerTitle).\(p.key) · Enter links · Esc gives up" }
            if let f = t.filter { title += " · filter: \(f)" }
        }
        b.box(r, title: title, style: border, titleStyle: titleStyle)
        let inner = r.inset(1)
        guard inner.height > 1, inner.width > 4 else { return }
        if let error = t.error, t.columns.isEmpty {
            for (i, line) in DisplayWidth.wrap(error, width: inner.width).prefix(inner.height).enumerated() {
                b.put(line, x: inner.x, y: inner.y + i, style: Style(fg: .red, bold: true))
            }
            return
        }
        guard t.source != nil else {
            b.put("Select an entity and press Enter", x: inner.x + 1, y: inner.y + 1, style: .dim)
            return
        }
        let markWidth = 2
        let cols = visibleColumns(t, width: inner.width - markWidth)
        // Header.
        var x = inner.x + markWidth
        for i in cols {
            let c = t.columns[i]
            var name = c.name
            // A raw column (nothing in the model explains it): marked, in yellow.
            if c.isRaw { name += "≈" }
            if let k = t.sort.firstIndex(where: { $0.column == c.name }) {
                name += t.sort[k].ascending ? "↑" : "↓"
                if t.sort.count > 1 { name += "\(k + 1)" }
            }
            let width = max(DisplayWidth.of(c.name) + 2, c.width)
            var style = c.isRaw ? Style(fg: .yellow, bold: true, underline: true) : Style(bold: true, underline: true)
            if i == t.selectedColumn && s.focus == .table { style = Style(fg: .cyan, bold: true, reverse: true) }
            let room = inner.maxX - x
            if room <= 0 { break }
            b.put(DisplayWidth.pad(name, to: min(width, room), alignRight: c.alignRight), x: x, y: inner.y, maxWidth: room, style: style)
            x += width + 1
        }
        // Rows.
        let rows = inner.height - 1
        for row in 0..<rows {
            let i = t.scroll.offset + row
            guard i < t.rowCount else { break }
            let y = inner.y + 1 + row
            guard let tr = t.window.row(i) else {
                b.put("…", x: inner.x + markWidth, y: y, style: .dim)
                continue
            }
            switch tr {
            case let .section(name, count):
                let label = "── \(name.isEmpty ? "(none)" : name) (\(formatCount(count))) "
                b.put(label + String(repeating: "─", count: max(0, inner.width - DisplayWidth.of(label))), x: inner.x, y: y, maxWidth: inner.width, style: Style(fg: .blue, bold: true))
            case let .object(id, cells):
                let selected = i == t.scroll.selection
                var style = Style.plain
                var mark = " "
                if let (m, _) = t.marks[id] {
                    switch m {
                    case .inserted: mark = "+"; style = Style(fg: .green, bold: true)
                    case .updated: mark = "~"; style = Style(fg: .yellow, bold: true)
                    case .moved: mark = "↕"; style = Style(fg: .cyan, bold: true)
                    }
                }
                let changedColumns = t.window.changed[id] ?? []
                if !changedColumns.isEmpty && mark == " " { mark = "*" }
                if selected { style = selectionStyle(s, .table) }
                b.fill(Rect(x: inner.x, y: y, width: inner.width, height: 1), style: selected ? style : .plain)
                b.put(mark, x: inner.x, y: y, style: style)
                var x = inner.x + markWidth
                for ci in cols {
                    let c = t.columns[ci]
                    let width = max(DisplayWidth.of(c.name) + 2, c.width)
                    let room = inner.maxX - x
                    if room <= 0 { break }
                    let text = ci < cells.count ? cells[ci] : ""
                    var cellStyle = style
                    if text == "nil" && !selected { cellStyle = Style.dim }
                    if changedColumns.contains(ci) { cellStyle = cellStyle.with(bold: true, underline: true) }
                    b.put(DisplayWidth.pad(text, to: min(width, room), alignRight: c.alignRight), x: x, y: y, maxWidth: room, style: cellStyle)
                    x += width + 1
                }
            }
        }
        // Position on the bottom border.
        if t.rowCount > 0 {
            var pos = " \(formatCount(min(t.rowCount, t.scroll.selection + 1))) of \(formatCount(t.rowCount)) "
            if let first = cols.first, let last = cols.last, cols.count < t.columns.count {
                pos = " cols \(first + 1)–\(last + 1)/\(t.columns.count)" + pos
            }
            let w = DisplayWidth.of(pos)
            if w + 4 < r.width { b.put(pos, x: r.maxX - 2 - w, y: r.maxY - 1, style: border) }
        }
    }
}
