// The diff view's `?` help (the browser's overlay, ``KeyHelp``, over the diff view's keys) and
// its mouse: a click selects a pane and a line of it, the wheel scrolls the pane under the pointer.
extension DiffView {
    /// The diff view's keys, as the `?` help lists them.
    ///
    /// ```swift
    /// KeyHelp.filtered(DiffView.keyHelp, filter: "pane").map(\.keys)   // ["Tab", "S-Tab", "Esc ← h"]
    /// ```
    public static let keyHelp: [KeyHelp.Row] = [
        KeyHelp.Row(section: "Panes"),
        KeyHelp.Row(keys: "Tab", help: "the next pane (entities, objects, old and new)"),
        KeyHelp.Row(keys: "S-Tab", help: "the previous pane"),
        KeyHelp.Row(keys: "Enter → l", help: "open: an entity's changed objects, an object's old and new values"),
        KeyHelp.Row(keys: "Esc ← h", help: "back to the pane on the left"),
        KeyHelp.Row(section: "Moving"),
        KeyHelp.Row(keys: "↓ j  ↑ k", help: "the next / previous line (the old and new pane scrolls)"),
        KeyHelp.Row(keys: "PgDn C-d", help: "a page down"),
        KeyHelp.Row(keys: "PgUp C-u", help: "a page up"),
        KeyHelp.Row(keys: "g Home", help: "the first line"),
        KeyHelp.Row(keys: "G End", help: "the last line"),
        KeyHelp.Row(keys: "mouse", help: "a click selects a pane and its line; the wheel scrolls the pane under it"),
        KeyHelp.Row(section: "Marks in the objects pane"),
        KeyHelp.Row(keys: "~", help: "changed: its attributes or to-one relationships differ"),
        KeyHelp.Row(keys: "+  -", help: "inserted / deleted, or a join-table link made / removed"),
        KeyHelp.Row(keys: "↕", help: "an ordered relationship whose members moved (old index → new index)"),
        KeyHelp.Row(section: "Screen"),
        KeyHelp.Row(keys: "?", help: "this help (type to filter it; Esc closes)"),
        KeyHelp.Row(keys: "M", help: "mouse capture on/off (off: the terminal selects text)"),
        KeyHelp.Row(keys: "C-l", help: "redraw"),
        KeyHelp.Row(keys: "C-z", help: "suspend"),
        KeyHelp.Row(keys: "q C-c", help: "quit (while comparing, Esc quits too)"),
    ]

    /// A key while the help is shown.
    static func handleHelpKey(_ s: inout DiffViewState, _ key: Key) -> [Command] {
        KeyHelp.handle(&s.help, key, rows: keyHelp, size: s.size)
        return []
    }

    /// A mouse event: a press focuses the pane under it and selects the line clicked (entities,
    /// objects); the wheel moves the pane under it by three lines without focusing it.
    static func handleMouse(_ s: inout DiffViewState, _ m: MouseEvent) -> [Command] {
        guard s.mouseEnabled else { return [] }
        if s.help != nil { return handleHelpKey(&s, .mouse(m)) }
        let l = Layout(size: s.size)
        let panes: [(DiffViewState.Pane, Rect)] = [(.entities, l.entities), (.objects, l.objects), (.detail, l.detail)]
        guard let (pane, rect) = panes.first(where: { $0.1.contains(x: m.x, y: m.y) }) else { return [] }
        switch m.kind {
        case .wheelUp, .wheelDown:
            let focus = s.focus
            s.focus = pane
            let commands = move(&s, by: m.kind == .wheelDown ? 3 : -3)
            s.focus = focus
            return commands
        case .press:
            s.focus = pane
            let row = m.y - rect.y - 1
            switch pane {
            case .entities:
                let i = s.entityScroll.offset + row
                guard row >= 0, row < rect.height - 2, i < s.entities.count else { return [] }
                return move(&s, by: i - s.entityScroll.selection)
            case .objects:
                let i = s.objectScroll.offset + row
                guard row >= 0, row < rect.height - 2, i < s.rows.count else { return [] }
                return move(&s, by: i - s.objectScroll.selection)
            case .detail:
                return []
            }
        case .release:
            return []
        }
    }
}
