// The store picker's `?` help (the browser's overlay, ``KeyHelp``, over the picker's keys) and
// its mouse: a click selects a store, the wheel scrolls the list.
extension StorePickerView {
    /// The picker's keys, as the `?` help lists them.
    ///
    /// ```swift
    /// KeyHelp.filtered(StorePickerView.keyHelp, filter: "open").map(\.keys)   // ["Enter", "mouse"]
    /// ```
    public static let keyHelp: [KeyHelp.Row] = [
        KeyHelp.Row(section: "Stores"),
        KeyHelp.Row(keys: "Enter", help: "open the selected store in the browser (its q comes back here)"),
        KeyHelp.Row(keys: "↓ C-n  ↑ C-p", help: "the next / previous store"),
        KeyHelp.Row(keys: "PgDn  PgUp", help: "a page down / up"),
        KeyHelp.Row(keys: "Home  End", help: "the first / last store"),
        KeyHelp.Row(keys: "mouse", help: "a click selects a store (Enter opens it); the wheel scrolls the list"),
        KeyHelp.Row(section: "Filter"),
        KeyHelp.Row(keys: "type", help: "narrow the list to the paths containing the text (any case)"),
        KeyHelp.Row(keys: "Backspace C-u", help: "delete a character / the whole filter"),
        KeyHelp.Row(keys: "Esc", help: "clear the filter; with none, quit"),
        KeyHelp.Row(section: "Screen"),
        KeyHelp.Row(keys: "?", help: "this help, when the filter is empty (type to filter it; Esc closes)"),
        KeyHelp.Row(keys: "C-l", help: "redraw"),
        KeyHelp.Row(keys: "C-z", help: "suspend"),
        KeyHelp.Row(keys: "C-c", help: "quit"),
    ]

    /// A key while the help is shown.
    static func handleHelpKey(_ s: inout StorePickerState, _ key: Key) -> [Command] {
        KeyHelp.handle(&s.help, key, rows: keyHelp, size: s.size)
        return []
    }

    /// The first row of the list on the screen (under the title, the box's top and the column heading).
    static let firstListRow = 3

    /// A mouse event: a press on a store selects it, the wheel moves the selection by three.
    static func handleMouse(_ s: inout StorePickerState, _ m: MouseEvent) -> [Command] {
        if s.help != nil { return handleHelpKey(&s, .mouse(m)) }
        let height = listRows(s)
        switch m.kind {
        case .wheelUp, .wheelDown:
            s.scroll.selection += m.kind == .wheelDown ? 3 : -3
        case .press:
            let row = m.y - firstListRow
            let i = s.scroll.offset + row
            guard row >= 0, row < height, i < s.visible.count else { return [] }
            s.scroll.selection = i
        case .release:
            return []
        }
        s.scroll.clamp(count: s.visible.count, height: height)
        return []
    }
}
