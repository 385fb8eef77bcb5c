import CoreStack
import Foundation

// The modals drawn over the base screen: command line, prompts, help, confirmations.
extension App {
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
            let rows = helpRows(filter: h.filter.text, focus: s.focus).map { row -> KeyHelp.Row in
                if let title = row.title { return KeyHelp.Row(section: title) }
                if let c = row.command { return KeyHelp.Row(keys: ":" + c.name, help: c.help, trailing: ":" + c.usage) }
                guard let bnd = row.binding else { return KeyHelp.Row(keys: "", help: "") }
                return KeyHelp.Row(keys: bnd.keyLabel, help: bnd.help, trailing: ":" + bnd.command.rawValue)
            }
            return KeyHelp.render(h, rows: rows, title: "Help · type to filter · Enter runs · Esc closes", size: l.size, into: &b)
        case let .confirm(c):
            let height = min(l.size.height - 4, c.lines.count + 4)
            let widest = c.lines.map(DisplayWidth.of).max() ?? 40
            let r = centered(l.size, width: min(l.size.width - 4, max(60, min(110, widest + 4))), height: height)
            b.fill(r)
            b.box(r, title: c.title, style: Style(fg: .yellow, bold: true), titleStyle: Style(fg: .yellow, bold: true))
            let inner = r.inset(1)
            let room = max(0, inner.height - 1)
            let selected = c.filters.isEmpty ? nil : c.selectedLine ?? c.filters.keys.min()
            for (i, line) in c.lines.dropFirst(c.scroll.offset).prefix(room).enumerated() {
                let style = c.scroll.offset + i == selected ? Style(reverse: true) : Style.plain
                b.put(line, x: inner.x + 1, y: inner.y + i, maxWidth: inner.width - 1, style: style)
            }
            var keys = c.keysLine
            if c.lines.count > room { keys += " · ↑↓ scroll (\(c.scroll.offset + 1)–\(min(c.lines.count, c.scroll.offset + room)) of \(c.lines.count))" }
            b.put(keys, x: inner.x + 1, y: inner.maxY - 1, maxWidth: inner.width - 1, style: .bold)
            return nil
        case let .model(m):
            let r = centered(l.size, width: l.size.width - 4, height: l.size.height - 4)
            b.fill(r)
            let title = m.focus.map { "Model · \($0) and its neighbours" }
                ?? "Model · \(m.graph.entities.count) entities\(m.showsWholeModel ? " drawn in layers" : "")"
            b.box(r, title: title, style: Style(fg: .cyan, bold: true), titleStyle: Style(fg: .cyan, bold: true))
            let inner = r.inset(1)
            b.put("jump to: " + m.filter.text, x: inner.x + 1, y: inner.y, maxWidth: inner.width - 1, style: .bold)
            let rows = m.visibleEntities
            let listWidth = min(max(20, (rows.map { DisplayWidth.of($0.name) + 2 * $0.depth }.max() ?? 0) + 4), inner.width / 3)
            let height = modelListHeight(s)
            for row in 0..<max(0, min(height, inner.height - 3)) {
                let i = m.scroll.offset + row
                guard rows.indices.contains(i) else { break }
                let selected = i == m.scroll.selection
                let style = selected ? Style(reverse: true) : Style.plain
                let y = inner.y + 2 + row
                if selected { b.fill(Rect(x: inner.x, y: y, width: listWidth, height: 1), style: style) }
                let text = String(repeating: "  ", count: rows[i].depth) + rows[i].name
                b.put(text, x: inner.x + 1, y: y, maxWidth: listWidth - 2, style: style.with(bold: true))
            }
            if rows.isEmpty {
                b.put("No entity matches", x: inner.x + 1, y: inner.y + 2, maxWidth: listWidth - 2, style: .dim)
            }
            let cardX = inner.x + listWidth + 1
            let card = m.selectedEntity.map { m.panel(for: $0) } ?? []
            for (i, line) in card.dropFirst(m.cardOffset).prefix(max(0, min(height, inner.height - 3))).enumerated() {
                let isHeading = m.focus == nil && !m.showsWholeModel && i + m.cardOffset == 0
                b.put(String(line.dropFirst(m.column)), x: cardX, y: inner.y + 2 + i, maxWidth: max(0, inner.maxX - cardX - 1), style: isHeading ? Style(fg: .blue, bold: true) : .plain)
            }
            // In the whole drawing, the selected entity's title in reverse video.
            if m.showsWholeModel, let name = m.selectedEntity, let box = m.drawing?.boxes[name] {
                let row = box.y + 1 - m.cardOffset
                let col = box.x + 2 - m.column
                let room = max(0, min(height, inner.height - 3))
                if row >= 0, row < room, col >= 0 {
                    let x = cardX + col
                    if x < inner.maxX - 1 {
                        b.put(DisplayWidth.pad(card.indices.contains(box.y + 1) ? String(card[box.y + 1].dropFirst(box.x + 2).prefix(box.width - 4)) : name, to: box.width - 4),
                              x: x, y: inner.y + 2 + row, maxWidth: max(0, inner.maxX - 1 - x), style: Style(reverse: true))
                    }
                }
            }
            let keys = m.showsWholeModel
                ? "type to jump · ↑↓ entity · PgUp/PgDn ←→ scroll · → to-one ⇉ to-many △ parent · Tab card · Enter opens · Esc closes"
                : m.focus == nil
                ? "type to jump · ↑↓ entity · PgUp/PgDn card · Tab draw with neighbours · Enter opens · Esc closes"
                : "↑↓ entity · PgUp/PgDn ←→ scroll the drawing · Tab whole model · Enter opens · Esc closes"
            b.put(keys, x: inner.x + 1, y: inner.maxY - 1, maxWidth: inner.width - 1, style: .dim)
            return (min(inner.maxX - 1, inner.x + 10 + m.filter.cursorColumn), inner.y)
        case let .valueInspector(v):
            // Full screen: the box, the summary, the lines of the mode, the keys.
            let r = Rect(x: 0, y: 0, width: l.size.width, height: l.size.height)
            b.fill(r)
            b.box(r, title: "\(v.title) · \(v.mode.rawValue)", style: Style(fg: .cyan, bold: true), titleStyle: Style(fg: .cyan, bold: true))
            let inner = r.inset(1)
            b.put(v.summary, x: inner.x + 1, y: inner.y, maxWidth: inner.width - 1, style: .bold)
            let room = max(0, inner.height - 2)
            for (i, line) in v.lines(from: v.offset, count: room).enumerated() {
                var failed = false
                if v.mode == .picture, v.offset + i == 0, case .failure? = v.picture { failed = true }
                b.put(line, x: inner.x + 1, y: inner.y + 1 + i, maxWidth: inner.width - 1, style: failed ? Style(fg: .red, bold: true) : .plain)
            }
            let count = v.lineCount
            let shown = count == 0 ? "empty" : "\(v.offset + 1)–\(min(count, v.offset + room)) of \(count)\(v.lineCountIsFinal ? "" : "+")"
            let modes = v.modes.map(\.rawValue).joined(separator: "/")
            // The status bar is under the inspector: its message is shown on the box's bottom edge.
            if let message = s.busy.map({ "\($0)…" }) ?? s.status.message {
                let style: Style = switch s.status.level {
                case _ where s.busy != nil: .bold
                case .info: Style(fg: .cyan, bold: true)
                case .warning: Style(fg: .yellow, bold: true)
                case .error: Style(fg: .red, bold: true)
                }
                b.put(" \(message) ", x: r.x + 2, y: r.maxY - 1, maxWidth: max(0, r.width - 4), style: style)
            }
            b.put("Tab/m \(modes) · ↑↓ PgUp PgDn g G scroll (\(shown)) · / n N search · y copies JSON · :save-value FILE · Esc closes", x: inner.x + 1, y: inner.maxY - 1, maxWidth: inner.width - 1, style: .dim)
            return nil
        case let .plainTable(v):
            renderPlainTable(s, v, l, &b)
            return nil
        case let .editor(e):
            let r = centered(l.size, width: min(l.size.width - 4, 90), height: 8)
            b.fill(r)
            b.box(r, title: "Edit \(e.objectTitle).\(e.field.key)", style: Style(fg: .cyan, bold: true), titleStyle: Style(fg: .cyan, bold: true))
            let inner = r.inset(1)
            var heading = e.field.typeDescription
            if !e.next.isEmpty { heading += " · then \(e.next.map(\.key).joined(separator: ", "))" }
            b.put(heading, x: inner.x + 1, y: inner.y, maxWidth: inner.width - 1, style: .dim)
            let label = e.field.isFilePath ? "file: " : "value: "
            let lw = b.put(label, x: inner.x + 1, y: inner.y + 2, style: .bold)
            let inputStyle = e.error == nil ? Style(underline: true) : Style(fg: .red, bold: true, underline: true)
            let fieldWidth = max(1, inner.width - 2 - lw)
            let (shown, cursor) = e.line.visible(width: fieldWidth)
            b.put(DisplayWidth.pad(shown, to: fieldWidth), x: inner.x + 1 + lw, y: inner.y + 2, maxWidth: fieldWidth, style: inputStyle)
            if let error = e.error {
                for (i, line) in DisplayWidth.wrap("✗ " + error, width: inner.width - 2).prefix(2).enumerated() {
                    b.put(line, x: inner.x + 1, y: inner.y + 3 + i, style: Style(fg: .red, bold: true))
                }
            }
            // A new object's required values: Esc leaves the object without them (u undoes the insert).
            let esc = e.insertion ? "Esc leaves it unset (u undoes the insert)" : "Esc cancels (nothing changes)"
            let hint = e.field.isMultiLine
                ? "Enter sets · C-o new line (shown ⏎) · \(esc)"
                : e.insertion ? "Enter sets · \(esc)" : "Enter sets · \(esc) · x on the property sets nil"
            b.put(e.applying ? "Applying …" : hint, x: inner.x + 1, y: inner.maxY - 1, maxWidth: inner.width - 1, style: .dim)
            return (min(inner.maxX - 1, inner.x + 1 + lw + cursor), inner.y + 2)
        }
    }

    static func centered(_ size: Size, width: Int, height: Int) -> Rect {
        Rect(x: max(0, (size.width - width) / 2), y: max(0, (size.height - height) / 2), width: width, height: height)
    }
}
