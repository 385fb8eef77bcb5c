import CoreStack
import Foundation

// The diff view drawn: the entities with their counts of changes, the selected entity's changed
// objects, and the selected object's old and new values side by side.
extension DiffView {
    /// Draws the state into a frame of its size. Pure: reads nothing but the state.
    public static func render(_ s: DiffViewState) -> Frame {
        var b = ScreenBuffer(size: s.size)
        let l = Layout(size: s.size)
        renderTitle(s, l, &b)
        renderEntities(s, l.entities, &b)
        renderObjects(s, l.objects, &b)
        renderDetail(s, l.detail, &b)
        renderStatus(s, l, &b)
        renderFooter(s, l, &b)
        if let h = s.help {
            let cursor = KeyHelp.render(
                h, rows: KeyHelp.filtered(keyHelp, filter: h.filter.text), title: "Diff view keys · type to filter · Esc closes",
                size: s.size, into: &b)
            return Frame(buffer: b, cursor: cursor, mouse: s.mouseEnabled)
        }
        return Frame(buffer: b, cursor: nil, mouse: s.mouseEnabled)
    }

    static func paneStyle(_ s: DiffViewState, _ pane: DiffViewState.Pane) -> (border: Style, title: Style) {
        s.focus == pane ? (Style(fg: .cyan, bold: true), Style(fg: .cyan, bold: true)) : (Style.dim, Style.bold)
    }

    static func renderTitle(_ s: DiffViewState, _ l: Layout, _ b: inout ScreenBuffer) {
        let bar = Style(reverse: true)
        b.fill(l.title, style: bar)
        var text = " stackscope diff"
        if let r = s.report { text += r.matchedByPrimaryKey ? "  same store: matched by primary key" : "  different stores: matched by key" }
        text += "  old \(s.oldPath) → new \(s.newPath)"
        b.put(text, x: 0, y: l.title.y, maxWidth: l.title.width, style: bar.with(bold: true))
    }

    /// The counts of an entity's changes: `~3 +1 -2 links +1 -0`, or why it is not listed.
    static func counts(_ e: EntityDiff) -> String {
        if case .unmatched = e.match, !e.hasChanges { return "not compared" }
        guard e.hasChanges else { return "unchanged" }
        var parts: [String] = []
        if e.changedCount > 0 { parts.append("~\(App.formatCount(e.changedCount))") }
        if e.insertedCount > 0 { parts.append("+\(App.formatCount(e.insertedCount))") }
        if e.deletedCount > 0 { parts.append("-\(App.formatCount(e.deletedCount))") }
        if e.linkedCount + e.unlinkedCount > 0 { parts.append("links +\(e.linkedCount) -\(e.unlinkedCount)") }
        if e.reorderedCount > 0 { parts.append("↕\(App.formatCount(e.reorderedCount))") }
        return parts.joined(separator: " ")
    }

    static func renderEntities(_ s: DiffViewState, _ r: Rect, _ b: inout ScreenBuffer) {
        let (border, title) = paneStyle(s, .entities)
        b.box(r, title: "Entities", style: border, titleStyle: title)
        let inner = r.inset(1)
        guard inner.height > 0, inner.width > 2 else { return }
        if let error = s.error {
            for (i, line) in DisplayWidth.wrap(error, width: inner.width).prefix(inner.height).enumerated() {
                b.put(line, x: inner.x, y: inner.y + i, style: Style(fg: .red, bold: true))
            }
            return
        }
        let entities = s.entities
        for (i, e) in entities.enumerated().dropFirst(s.entityScroll.offset).prefix(inner.height) {
            let y = inner.y + i - s.entityScroll.offset
            let selected = i == s.entityScroll.selection
            let count = counts(e)
            let countStyle: Style = e.hasChanges ? Style(fg: .yellow) : .dim
            var style: Style = e.hasChanges ? .bold : .dim
            if selected { style = s.focus == .entities ? Style(reverse: true) : Style(bold: true, underline: true) }
            b.fill(Rect(x: inner.x, y: y, width: inner.width, height: 1), style: selected ? style : .plain)
            let cw = DisplayWidth.of(count)
            b.put(" " + e.name, x: inner.x, y: y, maxWidth: max(1, inner.width - cw - 2), style: style)
            if cw + 2 < inner.width { b.put(count, x: inner.maxX - cw - 1, y: y, style: selected ? style : countStyle) }
        }
    }

    static func rowStyle(_ row: DiffViewState.Row) -> Style {
        switch row {
        case .changed: Style(fg: .yellow)
        case .inserted: Style(fg: .green)
        case .deleted: Style(fg: .red)
        case let .link(l): Style(fg: l.isLinked ? .green : .red)
        case .reordered: Style(fg: .magenta)
        }
    }

    static func renderObjects(_ s: DiffViewState, _ r: Rect, _ b: inout ScreenBuffer) {
        let (border, titleStyle) = paneStyle(s, .objects)
        var title = "Objects"
        if let e = s.selectedEntity {
            title = "\(e.name) · \(e.changedCount) changed, \(e.insertedCount) inserted, \(e.deletedCount) deleted"
            if e.linkedCount + e.unlinkedCount > 0 { title += ", \(e.linkedCount) linked, \(e.unlinkedCount) unlinked" }
            if e.reorderedCount > 0 { title += ", \(e.reorderedCount) reordered" }
            let listed = e.changed.count + e.inserted.count + e.deleted.count + e.links.count + e.reorders.count
            let total = e.changedCount + e.insertedCount + e.deletedCount + e.linkedCount + e.unlinkedCount + e.reorderedCount
            if listed < total { title += " · \(listed) listed" }
            title += " · \(e.oldCount) → \(e.newCount) objects"
        }
        b.box(r, title: title, style: border, titleStyle: titleStyle)
        let inner = r.inset(1)
        guard inner.height > 0, inner.width > 2 else { return }
        guard let e = s.selectedEntity else {
            if s.report == nil, s.error == nil { b.put("Comparing the stores…", x: inner.x + 1, y: inner.y, style: .dim) }
            return
        }
        let rows = s.rows
        if rows.isEmpty {
            let why: String
            if case let .unmatched(reason) = e.match { why = "Not compared: \(reason)" } else { why = "No differences in \(e.name)" }
            for (i, line) in DisplayWidth.wrap(why, width: inner.width - 1).prefix(inner.height).enumerated() {
                b.put(line, x: inner.x + 1, y: inner.y + i, style: .dim)
            }
            return
        }
        for (i, row) in rows.enumerated().dropFirst(s.objectScroll.offset).prefix(inner.height) {
            let y = inner.y + i - s.objectScroll.offset
            let selected = i == s.objectScroll.selection
            var style = rowStyle(row)
            if selected {
                style = s.focus == .objects ? style.with(reverse: true) : style.with(bold: true, underline: true)
                b.fill(Rect(x: inner.x, y: y, width: inner.width, height: 1), style: style)
            }
            b.put(" " + row.text, x: inner.x, y: y, maxWidth: inner.width, style: style)
        }
    }

    static func renderDetail(_ s: DiffViewState, _ r: Rect, _ b: inout ScreenBuffer) {
        let (border, titleStyle) = paneStyle(s, .detail)
        b.box(r, title: s.detail?.title ?? "Old and new", style: border, titleStyle: titleStyle)
        let inner = r.inset(1)
        guard inner.height > 1, inner.width > 10 else { return }
        if let error = s.detailError {
            for (i, line) in DisplayWidth.wrap(error, width: inner.width - 1).prefix(inner.height).enumerated() {
                b.put(line, x: inner.x + 1, y: inner.y + i, style: Style(fg: .red, bold: true))
            }
            return
        }
        guard let d = s.detail else {
            if s.selectedRow == nil { b.put("Select a changed object", x: inner.x + 1, y: inner.y, style: .dim) }
            return
        }
        let nameWidth = min(24, max(6, (d.lines.filter { !$0.isHeading }.map { DisplayWidth.of($0.name) }.max() ?? 4) + 2))
        let sideWidth = max(4, (inner.width - nameWidth - 3) / 2)
        let oldX = inner.x + 1 + nameWidth
        let newX = oldX + sideWidth + 1
        b.put("old: " + d.oldTitle, x: oldX, y: inner.y, maxWidth: sideWidth - 1, style: Style(fg: .red, bold: true))
        b.put("new: " + d.newTitle, x: newX, y: inner.y, maxWidth: inner.maxX - newX, style: Style(fg: .green, bold: true))
        var lines: [(DiffObjectDetail.Line?, String?)] = d.lines.map { ($0, nil) }
        if !d.changes.isEmpty { lines += [(nil, "")] + [(nil, "Relationship changes")] + d.changes.map { (nil, "  " + $0) } }
        for (i, item) in lines.dropFirst(s.detailOffset).prefix(inner.height - 1).enumerated() {
            let y = inner.y + 1 + i
            guard let line = item.0 else {
                let text = item.1 ?? ""
                let style: Style = text.hasPrefix("  +") ? Style(fg: .green) : text.hasPrefix("  -") ? Style(fg: .red)
                    : text.hasPrefix("  ↕") ? Style(fg: .magenta) : text.hasPrefix("  ") ? Style(fg: .yellow) : .bold
                b.put(text, x: inner.x + 1, y: y, maxWidth: inner.width - 1, style: style)
                continue
            }
            if line.isHeading {
                // Another object's lines follow: its name, and where each store has it.
                let sides = [line.old.map { "old: " + $0 }, line.new.map { "new: " + $0 }].compactMap { $0 }
                let text = ([line.name] + (sides.isEmpty ? [] : [sides.joined(separator: " · ")])).joined(separator: "   ")
                b.put(text, x: inner.x + 1, y: y, maxWidth: inner.width - 1, style: Style(fg: .cyan, bold: true))
                continue
            }
            b.put((line.changed ? "≠ " : "  ") + line.name, x: inner.x, y: y, maxWidth: nameWidth + 1, style: line.changed ? Style(fg: .yellow, bold: true) : .plain)
            let oldStyle: Style = line.old == nil ? .dim : line.changed ? Style(fg: .red, bold: true) : .plain
            let newStyle: Style = line.new == nil ? .dim : line.changed ? Style(fg: .green, bold: true) : .plain
            b.put(line.old ?? "—", x: oldX, y: y, maxWidth: sideWidth - 1, style: oldStyle)
            b.put(line.new ?? "—", x: newX, y: y, maxWidth: inner.maxX - newX, style: newStyle)
        }
    }

    static func renderStatus(_ s: DiffViewState, _ l: Layout, _ b: inout ScreenBuffer) {
        b.fill(l.status, style: Style(reverse: true))
        if let p = s.progress {
            b.put(" \(App.spinner[s.spinnerPhase % App.spinner.count]) \(p)… (Esc stops)", x: 0, y: l.status.y, maxWidth: l.status.width, style: Style(reverse: true))
        } else if let e = s.error {
            b.put(" " + e, x: 0, y: l.status.y, maxWidth: l.status.width, style: Style(fg: .red, bold: true, reverse: true))
        } else if let m = s.status {
            b.put(" " + m, x: 0, y: l.status.y, maxWidth: l.status.width, style: Style(reverse: true))
        }
    }

    static func renderFooter(_ s: DiffViewState, _ l: Layout, _ b: inout ScreenBuffer) {
        let keys = [("Tab", "next pane"), ("↑↓", "move"), ("Enter", "open"), ("Esc", "back"), ("?", "help"), ("PgDn", "page"), ("q", "quit")]
        b.putKeyHints(keys, y: l.footer.y)
    }
}
