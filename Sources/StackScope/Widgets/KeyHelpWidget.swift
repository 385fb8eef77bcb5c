// The `?` help overlay drawn (the browser's, the diff view's and the store picker's).
extension KeyHelp {
    /// Draws the overlay over `b`: a box nearly the screen's size titled `title`, the filter line,
    /// then the rows from the selection's scroll offset (section titles underlined, the selected
    /// row reversed). Returns where the cursor goes (the end of the filter).
    ///
    /// ```swift
    /// let cursor = KeyHelp.render(help, rows: KeyHelp.filtered(rows, filter: help.filter.text),
    ///                             title: "Help · type to filter · Esc closes", size: size, into: &buffer)
    /// ```
    @discardableResult
    public static func render(_ h: HelpState, rows: [Row], title: String, size: Size, into b: inout ScreenBuffer) -> (x: Int, y: Int) {
        let r = App.centered(size, width: min(size.width - 4, 96), height: size.height - 4)
        b.fill(r)
        b.box(r, title: title, style: Style(fg: .cyan, bold: true), titleStyle: Style(fg: .cyan, bold: true))
        let inner = r.inset(1)
        b.put("filter: " + h.filter.text, x: inner.x + 1, y: inner.y, maxWidth: inner.width - 1, style: .bold)
        let hasTrailing = rows.contains { !$0.trailing.isEmpty }
        for row in 0..<max(0, inner.height - 2) {
            let i = h.scroll.offset + row
            guard rows.indices.contains(i) else { break }
            let y = inner.y + 2 + row
            if let title = rows[i].title {
                b.put(title, x: inner.x + 1, y: y, style: Style(fg: .blue, bold: true, underline: true))
                continue
            }
            let selected = i == h.scroll.selection
            let style = selected ? Style(reverse: true) : Style.plain
            if selected { b.fill(Rect(x: inner.x, y: y, width: inner.width, height: 1), style: style) }
            b.put(DisplayWidth.pad(rows[i].keys, to: 14), x: inner.x + 2, y: y, style: style.with(bold: true))
            b.put(DisplayWidth.pad(rows[i].help, to: max(1, inner.width - (hasTrailing ? 40 : 18))), x: inner.x + 17, y: y, style: style)
            if hasTrailing {
                b.put(DisplayWidth.ellipsize(rows[i].trailing, to: 21), x: inner.maxX - 22, y: y, maxWidth: 21, style: selected ? style : .dim)
            }
        }
        return (inner.x + 9 + h.filter.cursorColumn, inner.y)
    }
}
