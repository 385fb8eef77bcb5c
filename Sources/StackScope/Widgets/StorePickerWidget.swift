import Foundation

// The store picker drawn: the stores found as a table (path, size, modified, model, entities,
// objects, history, -wal), the filter line, the search's progress and the keys.
extension StorePickerView {
    /// A column of the list: its heading, width, and the cell of a store.
    struct Column {
        var title: String
        var width: Int
        var alignRight: Bool
        var cell: (FoundStore) -> String
    }

    /// The columns after the path.
    static func columns() -> [Column] {
        let dates = DateFormatter()
        dates.locale = Locale(identifier: "en_US_POSIX")
        dates.dateFormat = "yyyy-MM-dd HH:mm"
        return [
            Column(title: "Size", width: 8, alignRight: true) { FindCommand.size($0.size) },
            Column(title: "Modified", width: 16, alignRight: false) { dates.string(from: $0.modified) },
            Column(title: "Model", width: 8, alignRight: false) { $0.model.rawValue },
            Column(title: "Entities", width: 8, alignRight: true) { $0.entityCount.map { String($0) } ?? "?" },
            Column(title: "Objects", width: 10, alignRight: true) { $0.objectCount.map { $0.formatted() } ?? "?" },
            Column(title: "History", width: 7, alignRight: false) { $0.hasHistory.map { $0 ? "yes" : "no" } ?? "?" },
            Column(title: "-wal", width: 8, alignRight: true) { $0.hasWAL ? FindCommand.size($0.walSize) : "" },
        ]
    }

    /// Draws the state into a frame of its size. Pure: reads nothing but the state.
    public static func render(_ s: StorePickerState) -> Frame {
        var b = ScreenBuffer(size: s.size)
        let w = s.size.width, h = max(8, s.size.height)
        let bar = Style(reverse: true)
        b.fill(Rect(x: 0, y: 0, width: w, height: 1), style: bar)
        b.put(" stackscope  stores under \(s.folders.joined(separator: ", "))", x: 0, y: 0, maxWidth: w, style: bar.with(bold: true))

        let visible = s.visible
        var title = "\(visible.count) \(visible.count == 1 ? "store" : "stores")"
        if !s.filter.chars.isEmpty { title += " of \(s.search.stores.count) · filter: \(s.filter.text)" }
        if !s.search.skippedFolders.isEmpty {
            title += " · \(s.search.skippedFolders.count) \(s.search.skippedFolders.count == 1 ? "folder" : "folders") could not be read"
        }
        let box = Rect(x: 0, y: 1, width: w, height: h - 4)
        b.box(box, title: title, style: Style(fg: .cyan, bold: true), titleStyle: Style(fg: .cyan, bold: true))
        let inner = box.inset(1)
        // The columns that fit after a path of at least 24 cells, from the left.
        var shown: [Column] = []
        var used = 0
        for c in columns() where used + c.width + 2 + 24 <= inner.width {
            shown.append(c)
            used += c.width + 2
        }
        let pathWidth = max(4, inner.width - used - 2)
        func putRow(_ path: String, _ cells: [String], y: Int, style: Style, cellStyle: Style? = nil) {
            b.put(" " + leftEllipsized(path, to: pathWidth), x: inner.x, y: y, maxWidth: pathWidth + 1, style: style)
            var x = inner.x + 1 + pathWidth + 2
            for (c, text) in zip(shown, cells) {
                b.put(DisplayWidth.pad(DisplayWidth.truncate(text, to: c.width), to: c.width, alignRight: c.alignRight), x: x, y: y, style: cellStyle ?? style)
                x += c.width + 2
            }
        }
        if inner.height > 0 { putRow("Path", shown.map(\.title), y: inner.y, style: Style(bold: true, underline: true)) }
        if let error = s.error {
            b.put(error, x: inner.x + 1, y: inner.y + 1, maxWidth: inner.width - 1, style: Style(fg: .red, bold: true))
        } else if visible.isEmpty {
            let text = s.scanning ? "Searching…" : s.filter.chars.isEmpty ? "No Core Data store found" : "No store's path contains “\(s.filter.text)”"
            b.put(text, x: inner.x + 1, y: inner.y + 1, maxWidth: inner.width - 1, style: .dim)
        }
        for (i, store) in visible.enumerated().dropFirst(s.scroll.offset).prefix(max(0, inner.height - 1)) {
            let y = inner.y + 1 + i - s.scroll.offset
            let selected = i == s.scroll.selection
            let style: Style = selected ? Style(reverse: true) : .plain
            if selected { b.fill(Rect(x: inner.x, y: y, width: inner.width, height: 1), style: style) }
            var cells = shown.map { $0.cell(store) }
            // A store that could not be read: its problem where its counts would be.
            if let problem = store.problem, let at = shown.firstIndex(where: { $0.title == "Model" }) {
                cells = Array(cells.prefix(at)) + [problem]
                putRow(s.shownPath(store.path), cells, y: y, style: style)
                let x = inner.x + 1 + pathWidth + 2 + shown.prefix(at).reduce(0) { $0 + $1.width + 2 }
                b.put(problem, x: x, y: y, maxWidth: max(0, inner.maxX - x), style: selected ? style : Style(fg: .red))
                continue
            }
            putRow(s.shownPath(store.path), cells, y: y, style: style)
        }

        // The filter line, with the cursor in it.
        let filterY = h - 3
        b.put(" Filter: ", x: 0, y: filterY, style: .bold)
        let (text, cursor) = s.filter.visible(width: max(1, w - 10))
        b.put(text, x: 9, y: filterY, maxWidth: w - 10)
        if s.filter.chars.isEmpty { b.put("type to filter by path", x: 9, y: filterY, style: .dim) }

        b.fill(Rect(x: 0, y: h - 2, width: w, height: 1), style: bar)
        if s.scanning {
            let line = " \(App.spinner[s.spinnerPhase % App.spinner.count]) Searching: \(s.progressLine)… (Enter opens what is found, Esc quits)"
            b.put(line, x: 0, y: h - 2, maxWidth: w, style: bar)
        } else if let status = s.status {
            b.put(" " + status.text, x: 0, y: h - 2, maxWidth: w, style: status.isError ? Style(fg: .red, bold: true, reverse: true) : bar)
        }
        let keys = [("↑↓", "move"), ("Enter", "open"), ("type", "filter"), ("Esc", s.filter.chars.isEmpty ? "quit" : "clear filter"), ("?", "help"), ("q in the browser", "back here")]
        b.putKeyHints(keys, y: h - 1)
        if let help = s.help {
            let at = KeyHelp.render(
                help, rows: KeyHelp.filtered(keyHelp, filter: help.filter.text), title: "Store picker keys · type to filter · Esc closes",
                size: s.size, into: &b)
            return Frame(buffer: b, cursor: at, mouse: true)
        }
        return Frame(buffer: b, cursor: (x: 9 + cursor, y: filterY), mouse: true)
    }

    /// `text` in `width` cells, its start cut with `…` when too long (a path's end is what tells stores apart).
    static func leftEllipsized(_ text: String, to width: Int) -> String {
        guard DisplayWidth.of(text) > width, width > 1 else { return DisplayWidth.truncate(text, to: width) }
        var chars = Array(text)
        while !chars.isEmpty && DisplayWidth.of(String(chars)) > width - 1 { chars.removeFirst() }
        return "…" + String(chars)
    }
}
