import CoreStack
import Foundation

// MARK: - Render

extension App {
    static let spinner = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

    /// Draws the state into a frame of the state's size. Pure: reads nothing but the state.
    public static func render(_ s: AppState) -> Frame {
        var b = ScreenBuffer(size: s.size)
        let l = layout(s)
        if l.tooSmall {
            renderTooSmall(s, &b)
            return Frame(buffer: b, cursor: nil, mouse: s.mouseEnabled)
        }
        renderTitle(s, l, &b)
        if let r = l.entities { renderEntities(s, r, &b) }
        if let r = l.table { renderTable(s, r, &b) }
        if let r = l.detail { renderDetail(s, r, &b) }
        if let r = l.saves { renderSaves(s, r, &b) }
        renderStatus(s, l, &b)
        renderFooter(s, l, &b)
        var cursor: (x: Int, y: Int)?
        for modal in s.modals {
            if let c = renderModal(s, modal, l, &b) { cursor = c }
        }
        return Frame(buffer: b, cursor: cursor, mouse: s.mouseEnabled)
    }

    static func renderTooSmall(_ s: AppState, _ b: inout ScreenBuffer) {
        let m = ScreenLayout.minimum
        let lines = ["Terminal too small", "\(s.size.width)×\(s.size.height), need \(m.width)×\(m.height)", "q quits"]
        let top = max(0, (s.size.height - lines.count) / 2)
        for (i, line) in lines.enumerated() {
            let text = DisplayWidth.truncate(line, to: s.size.width)
            b.put(text, x: max(0, (s.size.width - DisplayWidth.of(text)) / 2), y: top + i, style: i == 0 ? .bold : .plain)
        }
    }

    static func paneStyle(_ s: AppState, _ pane: Pane) -> (border: Style, title: Style) {
        s.focus == pane && s.modals.isEmpty
            ? (Style(fg: .cyan, bold: true), Style(fg: .cyan, bold: true, reverse: false))
            : (Style.dim, Style.bold)
    }

    /// The selected row's style: reverse in the focused pane, underlined elsewhere.
    static func selectionStyle(_ s: AppState, _ pane: Pane) -> Style {
        s.focus == pane && s.modals.isEmpty ? Style(reverse: true) : Style(bold: true, underline: true)
    }

    static func renderTitle(_ s: AppState, _ l: ScreenLayout, _ b: inout ScreenBuffer) {
        let bar = Style(reverse: true)
        b.fill(l.title, style: bar)
        var text = " stackscope"
        if s.store.readOnly { text += "  [read-only]" }
        text += "  model \(s.store.modelVersion)  \(s.store.path)"
        b.put(text, x: 0, y: 0, maxWidth: l.title.width, style: bar.with(bold: true))
        if !s.navigation.isEmpty, case let .relationship(_, _, _, title)? = s.table.source {
            let crumb = " " + (s.navigation.map { $0.table.source?.entityName ?? "" } + [title]).joined(separator: " › ") + " "
            let w = DisplayWidth.of(crumb)
            if w < l.title.width / 2 { b.put(crumb, x: l.title.width - w, y: 0, style: bar) }
        }
    }

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
            let count = s.entities.counts[n.name].map { formatCount($0) } ?? "…"
            var style = n.isAbstract ? Style(fg: .default, dim: false).with(underline: false) : Style.plain
            if n.isAbstract { style = Style(fg: .magenta) }
            let isOpen = s.table.source == .entity(n.name)
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
            if let k = t.sort.firstIndex(where: { $0.column == c.name }) {
                name += t.sort[k].ascending ? "↑" : "↓"
                if t.sort.count > 1 { name += "\(k + 1)" }
            }
            let width = max(DisplayWidth.of(c.name) + 2, c.width)
            var style = Style(bold: true, underline: true)
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

    static func renderDetail(_ s: AppState, _ r: Rect, _ b: inout ScreenBuffer) {
        let (border, titleStyle) = paneStyle(s, .detail)
        guard let snap = s.detail.snapshot else {
            b.box(r, title: "Detail", style: border, titleStyle: titleStyle)
            let inner = r.inset(1)
            let text = s.detail.error ?? "No object selected"
            for (i, line) in DisplayWidth.wrap(text, width: max(1, inner.width - 1)).prefix(max(0, inner.height)).enumerated() {
                b.put(line, x: inner.x + 1, y: inner.y + i, style: s.detail.error == nil ? .dim : Style(fg: .red, bold: true))
            }
            return
        }
        b.box(r, title: "\(snap.entityName): \(snap.title)", style: border, titleStyle: titleStyle)
        let inner = r.inset(1)
        guard inner.height > 1, inner.width > 8 else { return }
        b.put(snap.uri, x: inner.x, y: inner.y, maxWidth: inner.width, style: .dim)
        let nameWidth = min(max(8, snap.properties.map { DisplayWidth.of($0.name) }.max() ?? 8), inner.width / 3)
        let valueX = inner.x + nameWidth + 2
        let valueWidth = max(1, inner.maxX - valueX)
        var y = inner.y + 1
        var i = s.detail.scroll.offset
        while y < inner.maxY, i < snap.properties.count {
            let p = snap.properties[i]
            let selected = i == s.detail.scroll.selection
            let lines: [String]
            var style = Style.plain
            switch p.kind {
            case let .attribute(type):
                let v = DisplayWidth.wrap(p.value, width: valueWidth)
                lines = (v.isEmpty ? [""] : v) + (selected ? [type] : [])
                if p.value == "nil" { style = .dim }
            case let .toOne(destination, _):
                lines = ["→ " + p.value + "  (\(destination))"]
                style = Style(fg: .blue)
            case let .toMany(destination, count, ordered):
                lines = ["⇉ \(formatCount(count)) \(destination)\(ordered ? ", ordered" : "")"]
                style = Style(fg: .blue)
            }
            if p.changed { style = Style(fg: .yellow, bold: true) }
            let nameStyle = selected ? selectionStyle(s, .detail) : Style.bold
            b.put(DisplayWidth.pad(p.name, to: nameWidth), x: inner.x, y: y, style: nameStyle)
            for (k, line) in lines.prefix(8).enumerated() where y < inner.maxY {
                let isTypeLine = selected && k == lines.count - 1 && !p.isRelationship
                b.put(line, x: valueX, y: y, maxWidth: valueWidth, style: isTypeLine ? .dim : style)
                y += 1
                _ = k
            }
            i += 1
        }
    }

    /// `HH:mm:ss.SSS` in local time.
    static func clockTime(_ date: Date) -> String {
        let c = Calendar.current.dateComponents([.hour, .minute, .second, .nanosecond], from: date)
        let ms = (c.nanosecond ?? 0) / 1_000_000
        func two(_ n: Int?) -> String { let v = n ?? 0; return v < 10 ? "0\(v)" : "\(v)" }
        return "\(two(c.hour)):\(two(c.minute)):\(two(c.second)).\(ms < 10 ? "00" : ms < 100 ? "0" : "")\(ms)"
    }

    static func renderSaves(_ s: AppState, _ r: Rect, _ b: inout ScreenBuffer) {
        let (border, titleStyle) = paneStyle(s, .saves)
        var title = "Saves"
        if let f = s.saves.contextFilter { title += " · context \(f)" }
        if !s.saves.follow { title += " · paused (F follows)" }
        b.box(r, title: title, style: border, titleStyle: titleStyle)
        let inner = r.inset(1)
        let vis = s.saves.visibleIndices
        if vis.isEmpty {
            b.put("No saves yet. Saves of every context of the stack appear here; R re-reads the store for other processes' saves.", x: inner.x + 1, y: inner.y, maxWidth: inner.width - 1, style: .dim)
            return
        }
        var y = inner.y
        var k = s.saves.scroll.offset
        while y < inner.maxY, k < vis.count {
            let idx = vis[k]
            let e = s.saves.entries[idx]
            let selected = k == s.saves.scroll.selection
            let time = clockTime(e.date)
            var line = "\(time)  \(DisplayWidth.pad(e.contextName, to: 22))  "
            if e.origin == .refresh {
                line += e.note ?? "refresh"
            } else {
                line += "+\(e.inserted.count) inserted  ~\(e.updated.count) updated  -\(e.deleted.count) deleted"
                if let note = e.note { line += "  " + note }
            }
            let expanded = s.saves.expanded.contains(s.saves.dropped + idx)
            let marker = expanded ? "▾ " : "▸ "
            let style = selected ? selectionStyle(s, .saves) : (e.origin == .refresh ? Style(fg: .magenta) : .plain)
            if selected { b.fill(Rect(x: inner.x, y: y, width: inner.width, height: 1), style: style) }
            b.put(marker + line, x: inner.x, y: y, maxWidth: inner.width, style: style)
            y += 1
            if expanded {
                let ids = e.inserted.map { "+ " + $0 } + e.updated.map { "~ " + $0 } + e.deleted.map { "- " + $0 }
                for id in ids where y < inner.maxY {
                    b.put("    " + id, x: inner.x, y: y, maxWidth: inner.width, style: .dim)
                    y += 1
                }
            }
            k += 1
        }
    }

    static func renderStatus(_ s: AppState, _ l: ScreenLayout, _ b: inout ScreenBuffer) {
        let r = l.status
        b.fill(r, style: Style(reverse: true))
        var left = ""
        var style = Style(reverse: true)
        if let busy = s.busy {
            left = " \(spinner[s.spinnerPhase % spinner.count]) \(busy)… (Esc cancels waiting)"
        } else if let m = s.status.message {
            left = " " + m
            switch s.status.level {
            case .info: break
            case .warning: style = Style(fg: .yellow, bold: true, reverse: true)
            case .error: style = Style(fg: .red, bold: true, reverse: true)
            }
        }
        var right = "ctx \(s.store.contextName) · \(s.pendingChanges.total) pending"
        if let c = s.pendingCount { right = "\(c)  " + right }
        if !s.mouseEnabled { right = "mouse off · " + right }
        right += " "
        let rw = DisplayWidth.of(right)
        b.put(left, x: 0, y: r.y, maxWidth: max(0, r.width - rw - 1), style: style)
        if rw < r.width { b.put(right, x: r.width - rw, y: r.y, style: Style(reverse: true)) }
    }

    static func renderFooter(_ s: AppState, _ l: ScreenLayout, _ b: inout ScreenBuffer) {
        let r = l.footer
        var x = 0
        let scopes = [KeyScope(s.focus), .global]
        var seen = Set<String>()
        for scope in scopes {
            for bnd in Keymap.all where bnd.scope == scope {
                guard let label = bnd.footer, let key = bnd.keys.first, !seen.contains(label) else { continue }
                seen.insert(label)
                let k = key.description
                let need = DisplayWidth.of(k) + DisplayWidth.of(label) + 3
                if x + need > r.width { return }
                b.put(k, x: x + 1, y: r.y, style: Style(fg: .cyan, bold: true))
                b.put(label, x: x + 2 + DisplayWidth.of(k), y: r.y, style: .plain)
                x += need
            }
        }
    }

    static func renderModal(_ s: AppState, _ modal: Modal, _ l: ScreenLayout, _ b: inout ScreenBuffer) -> (x: Int, y: Int)? {
        switch modal {
        case let .commandLine(cl):
            let r = l.footer
            b.fill(r)
            b.put(":", x: 0, y: r.y, style: .bold)
            let w = b.put(cl.line.text, x: 1, y: r.y, maxWidth: r.width - 1)
            if let c = completions(s, cl.line.text).first, c.hasPrefix(cl.line.text) {
                b.put(String(c.dropFirst(cl.line.text.count)), x: 1 + w, y: r.y, maxWidth: max(0, r.width - 1 - w), style: .dim)
            }
            return (min(r.width - 1, 1 + cl.line.cursorColumn), r.y)
        case let .prompt(p):
            // The prompt on the status row; below it, on the footer row, a caret under the error's
            // column followed by the message (or the usage hint).
            let r = l.status
            b.fill(r)
            let label = p.purpose == .filter ? "filter: " : "/"
            let lw = b.put(label, x: 0, y: r.y, style: Style(fg: .cyan, bold: true))
            b.put(p.line.text, x: lw, y: r.y, maxWidth: r.width - lw, style: p.error == nil ? .plain : Style(fg: .red, bold: true))
            let f = l.footer
            b.fill(f)
            if let error = p.error {
                let errorStyle = Style(fg: .red, bold: true)
                if let off = p.errorOffset {
                    let col = min(r.width - 1, lw + DisplayWidth.of(String(p.line.chars.prefix(off))))
                    let message = "✗ " + error
                    b.put("^", x: col, y: f.y, style: errorStyle)
                    if col + 2 + DisplayWidth.of(message) <= f.width {
                        b.put(message, x: col + 2, y: f.y, style: errorStyle)
                    } else {
                        b.put(message, x: 0, y: f.y, maxWidth: max(0, col - 1), style: errorStyle)
                    }
                } else {
                    b.put("✗ " + error, x: 0, y: f.y, maxWidth: f.width, style: errorStyle)
                }
            } else if p.purpose == .filter {
                b.put("Enter applies · empty clears · Esc cancels · e.g. title BEGINSWITH[c] \"a\" AND pages > 300", x: 0, y: f.y, maxWidth: f.width, style: .dim)
            } else {
                b.put("Enter searches the visible columns · n / N: next / previous · Esc cancels", x: 0, y: f.y, maxWidth: f.width, style: .dim)
            }
            return (min(r.width - 1, lw + p.line.cursorColumn), r.y)
        case let .help(h):
            let r = centered(l.size, width: min(l.size.width - 4, 96), height: l.size.height - 4)
            b.fill(r)
            b.box(r, title: "Help · type to filter · Enter runs · Esc closes", style: Style(fg: .cyan, bold: true), titleStyle: Style(fg: .cyan, bold: true))
            let inner = r.inset(1)
            b.put("filter: " + h.filter.text, x: inner.x + 1, y: inner.y, maxWidth: inner.width - 1, style: .bold)
            let rows = helpRows(filter: h.filter.text, focus: s.focus)
            let listHeight = inner.height - 2
            for row in 0..<max(0, listHeight) {
                let i = h.scroll.offset + row
                guard rows.indices.contains(i) else { break }
                let y = inner.y + 2 + row
                if let title = rows[i].title {
                    b.put(title, x: inner.x + 1, y: y, style: Style(fg: .blue, bold: true, underline: true))
                } else if let bnd = rows[i].binding {
                    let selected = i == h.scroll.selection
                    let style = selected ? Style(reverse: true) : Style.plain
                    if selected { b.fill(Rect(x: inner.x, y: y, width: inner.width, height: 1), style: style) }
                    b.put(DisplayWidth.pad(bnd.keyLabel, to: 14), x: inner.x + 2, y: y, style: style.with(bold: true))
                    b.put(DisplayWidth.pad(bnd.help, to: max(1, inner.width - 40)), x: inner.x + 17, y: y, style: style)
                    b.put(":" + bnd.command.rawValue, x: inner.maxX - 22, y: y, maxWidth: 21, style: selected ? style : .dim)
                }
            }
            return (inner.x + 9 + h.filter.cursorColumn, inner.y)
        case let .confirm(c):
            let height = min(l.size.height - 4, c.lines.count + 4)
            let r = centered(l.size, width: min(l.size.width - 4, 80), height: height)
            b.fill(r)
            b.box(r, title: c.title, style: Style(fg: .yellow, bold: true), titleStyle: Style(fg: .yellow, bold: true))
            let inner = r.inset(1)
            for (i, line) in c.lines.prefix(max(0, inner.height - 1)).enumerated() {
                b.put(line, x: inner.x + 1, y: inner.y + i, maxWidth: inner.width - 1)
            }
            b.put("y / Enter: yes    n / Esc: no", x: inner.x + 1, y: inner.maxY - 1, style: .bold)
            return nil
        }
    }

    static func centered(_ size: Size, width: Int, height: Int) -> Rect {
        Rect(x: max(0, (size.width - width) / 2), y: max(0, (size.height - height) / 2), width: width, height: height)
    }
}
