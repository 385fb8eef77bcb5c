import CoreStack
import Foundation

// The plain table view: a table under "Other tables" full screen, rows and columns as SQLite has them.
extension App {
    /// The widest a column of the plain table view is drawn.
    static let plainColumnMaximum = 40

    static func renderPlainTable(_ s: AppState, _ v: PlainTableViewState, _ l: ScreenLayout, _ b: inout ScreenBuffer) {
        let r = Rect(x: 0, y: 0, width: l.size.width, height: l.size.height)
        b.fill(r)
        var title = "\(v.table) · other table · \(formatCount(v.rowCount)) row\(v.rowCount == 1 ? "" : "s")"
        if let f = v.query.filter { title += " · filter: \(f.text)" }
        let frame = Style(fg: .yellow, bold: true)
        b.box(r, title: title, style: frame, titleStyle: frame)
        let inner = r.inset(1)
        guard inner.height > 2, inner.width > 4 else { return }
        let height = plainTableHeight(s)
        let shown = v.scroll.offset..<min(v.rowCount, v.scroll.offset + height)
        // Each column as wide as its header and the cells on screen, at most plainColumnMaximum.
        let widths = v.columns.indices.map { ci in
            let cells = shown.compactMap { v.window[$0]?.cells }.map { ci < $0.count ? DisplayWidth.of($0[ci]) : 0 }
            return min(plainColumnMaximum, max(DisplayWidth.of(v.columns[ci].name) + 2, cells.max() ?? 0))
        }
        // From the first column, or later so that the selected one fits.
        var first = 0
        while first < v.selectedColumn && (first...v.selectedColumn).reduce(0, { $0 + widths[$1] + 1 }) > inner.width - 1 { first += 1 }
        var x = inner.x + 1
        var columns: [Int] = []
        for ci in first..<v.columns.count where x < inner.maxX {
            columns.append(ci)
            var name = v.columns[ci].name
            if let key = v.query.sort.first(where: { $0.column == v.columns[ci].name }) { name += key.ascending ? "↑" : "↓" }
            let style = ci == v.selectedColumn ? Style(fg: .cyan, bold: true, reverse: true) : Style(bold: true, underline: true)
            b.put(DisplayWidth.pad(name, to: widths[ci]), x: x, y: inner.y, maxWidth: inner.maxX - x, style: style)
            x += widths[ci] + 1
        }
        if let error = v.error {
            b.put(error, x: inner.x + 1, y: inner.y + 1, maxWidth: inner.width - 1, style: Style(fg: .red, bold: true))
        } else if v.rowCount == 0 {
            b.put(v.query.filter == nil ? "No rows" : "No row contains “\(v.query.filter?.text ?? "")”", x: inner.x + 1, y: inner.y + 1, style: .dim)
        }
        for (k, i) in shown.enumerated() where v.error == nil {
            let y = inner.y + 1 + k
            guard let row = v.window[i] else {
                b.put("…", x: inner.x + 1, y: y, style: .dim)
                continue
            }
            let selected = i == v.scroll.selection
            if selected { b.fill(Rect(x: inner.x, y: y, width: inner.width, height: 1), style: .reverse) }
            var x = inner.x + 1
            for ci in columns where x < inner.maxX {
                let text = ci < row.cells.count ? row.cells[ci] : ""
                var style: Style = text == "NULL" ? .dim : .plain
                if selected { style = ci == v.selectedColumn ? Style(fg: .cyan, bold: true, reverse: true) : .reverse }
                b.put(DisplayWidth.pad(DisplayWidth.truncate(text, to: widths[ci]), to: widths[ci]), x: x, y: y, maxWidth: inner.maxX - x, style: style)
                x += widths[ci] + 1
            }
        }
        // The status line is under the view: its message (a sort, a filter, a refusal) on the bottom border.
        if let message = s.status.message {
            let style = s.status.level == .info ? Style(fg: .yellow, bold: true) : Style(fg: .red, bold: true)
            b.put(" \(message) ", x: r.x + 2, y: r.maxY - 1, maxWidth: max(0, r.width - 4), style: style)
        }
        let position = v.rowCount == 0 ? "" : " (\(formatCount(v.scroll.selection + 1)) of \(formatCount(v.rowCount)))"
        b.put("↑↓ PgUp PgDn g G rows\(position) · ←→ column · s sort · f / filter · Enter inspects the cell · Esc closes",
              x: inner.x + 1, y: inner.maxY - 1, maxWidth: inner.width - 1, style: .dim)
    }
}
