/// The `?` help overlay's logic, shared by the browser, the diff view and the store picker: a list
/// of keys with what they do, in sections, narrowed by a filter typed into it, with a selection
/// (``HelpState``). Each screen hands in its own rows; ``KeyHelp/render(_:rows:title:size:into:)``
/// (Widgets/KeyHelpWidget.swift) draws it.
///
/// ```swift
/// var help = HelpState()
/// let rows = KeyHelp.filtered(DiffView.keyHelp, filter: help.filter.text)
/// switch KeyHelp.handle(&help, .down, rowCount: { KeyHelp.filtered(DiffView.keyHelp, filter: $0).count }, height: 20) {
/// case .open: break                      // still shown
/// case .closed: break                    // Esc, q or ? closed it
/// case let .chosen(index): print(rows[index].help)
/// }
/// ```
public enum KeyHelp {
    /// One row: a section title, or a key with its help and an optional third column (the
    /// browser's `:command`).
    public struct Row: Sendable, Hashable {
        /// A section's title; nil for a key's row.
        public var title: String?
        /// The keys, as shown (`j ↓`).
        public var keys: String
        /// What they do.
        public var help: String
        /// A third, dimmed column; empty for none.
        public var trailing: String

        /// A key's row.
        ///
        /// ```swift
        /// KeyHelp.Row(keys: "Tab", help: "the next pane")
        /// ```
        public init(keys: String, help: String, trailing: String = "") {
            self.title = nil
            self.keys = keys
            self.help = help
            self.trailing = trailing
        }

        /// A section's title row.
        ///
        /// ```swift
        /// KeyHelp.Row(section: "Moving")
        /// ```
        public init(section: String) {
            self.title = section
            self.keys = ""
            self.help = ""
            self.trailing = ""
        }
    }

    /// What a key did to the overlay.
    public enum Outcome: Sendable, Hashable {
        /// It is still shown.
        case open
        /// Esc, `q`, `?` (with an empty filter) or Ctrl-C closed it.
        case closed
        /// Enter on the row at this index (of the filtered rows); the overlay is to close.
        case chosen(Int)
    }

    /// The rows whose keys, help or third column contain `filter` (any case), with the titles of
    /// the sections they are in; all rows for an empty filter.
    ///
    /// ```swift
    /// KeyHelp.filtered(rows, filter: "pane").count
    /// ```
    public static func filtered(_ rows: [Row], filter: String) -> [Row] {
        let f = filter.lowercased()
        guard !f.isEmpty else { return rows }
        var result: [Row] = []
        var pendingTitle: Row?
        for row in rows {
            if row.title != nil {
                pendingTitle = row
                continue
            }
            guard row.keys.lowercased().contains(f) || row.help.lowercased().contains(f) || row.trailing.lowercased().contains(f)
            else { continue }
            if let t = pendingTitle {
                result.append(t)
                pendingTitle = nil
            }
            result.append(row)
        }
        return result
    }

    /// Applies a key to the overlay: ↑↓ (C-p C-n) PgUp PgDn move the selection, editing keys
    /// change the filter, Enter chooses, Esc (and `q` or `?` with an empty filter) closes.
    /// `rowCount` gives the number of rows shown for a filter, `height` how many fit.
    public static func handle(_ h: inout HelpState, _ key: Key, rowCount: (_ filter: String) -> Int, height: Int) -> Outcome {
        switch key {
        case .escape, .ctrl("c"):
            return .closed
        case .char("?") where h.filter.chars.isEmpty, .char("q") where h.filter.chars.isEmpty:
            return .closed
        case .enter:
            return .chosen(h.scroll.selection)
        case .down, .ctrl("n"): h.scroll.selection += 1
        case .up, .ctrl("p"): h.scroll.selection -= 1
        case .pageDown: h.scroll.selection += height
        case .pageUp: h.scroll.selection -= height
        case let .mouse(m) where m.kind == .wheelDown: h.scroll.selection += 3
        case let .mouse(m) where m.kind == .wheelUp: h.scroll.selection -= 3
        default:
            if h.filter.handle(key) { h.scroll = ScrollState() }
        }
        h.scroll.clamp(count: rowCount(h.filter.text), height: height)
        return .open
    }

    /// Applies a key to the overlay of a screen that keeps it as an optional over its own `rows`
    /// (nil: not shown): the overlay closes (becomes nil) on Esc, `q`, `?` or Enter.
    ///
    /// ```swift
    /// if state.help != nil { KeyHelp.handle(&state.help, key, rows: DiffView.keyHelp, size: state.size) }
    /// ```
    public static func handle(_ help: inout HelpState?, _ key: Key, rows: [Row], size: Size) {
        guard var h = help else { return }
        let outcome = handle(&h, key, rowCount: { filtered(rows, filter: $0).count }, height: listHeight(size))
        help = outcome == .open ? h : nil
    }

    /// How many rows the overlay lists on a screen of `size` (its box is the screen less two
    /// cells each side; a filter line and a blank above the list).
    public static func listHeight(_ size: Size) -> Int { max(1, size.height - 8) }
}
