/// Every command the browser has, by a stable name that `:` accepts too (`row.next`, `quit`).
///
/// ```swift
/// CommandID(rawValue: "sort")   // .sort, as `:sort` runs it
/// ```
public enum CommandID: String, Sendable, CaseIterable, Hashable {
    case quit = "quit"
    case forceQuit = "quit!"
    case help = "help"
    case commandLine = "command"
    case paneNext = "pane.next"
    case panePrevious = "pane.previous"
    case focusEntities = "pane.entities"
    case focusTable = "pane.objects"
    case focusDetail = "pane.detail"
    case focusSaves = "pane.saves"
    case down = "row.next"
    case up = "row.previous"
    case top = "row.first"
    case bottom = "row.last"
    case pageDown = "page.down"
    case pageUp = "page.up"
    case halfPageDown = "halfpage.down"
    case halfPageUp = "halfpage.up"
    case left = "column.previous"
    case right = "column.next"
    case open = "open"
    case back = "back"
    case sort = "sort"
    case sortSecondary = "sort.secondary"
    case sections = "sections"
    case filter = "filter"
    case clearFilter = "filter.clear"
    case search = "search"
    case searchNext = "search.next"
    case searchPrevious = "search.previous"
    case refresh = "refresh"
    case copy = "copy"
    case toggleMouse = "mouse"
    case toggleDetail = "detail"
    case zoom = "zoom"
    case redraw = "redraw"
    case suspend = "suspend"
    case savesFilterContext = "saves.context"
    case savesFollow = "saves.follow"
    case edit = "edit"
    case insert = "insert"
    case delete = "delete"
    case setNil = "nil"
    case write = "write"
    case discard = "discard"
    case undo = "undo"
    case redo = "redo"
    case contexts = "contexts"
    case moveUp = "move.up"
    case moveDown = "move.down"
    case model = "model"
    /// The selected column's statistics (`I`, as `:stats` with no property).
    case columnStats = "column.stats"
}

/// Where a binding applies: a pane, a modal, or everywhere.
///
/// ```swift
/// KeyScope(.table).title   // "Objects pane"
/// ```
public enum KeyScope: String, Sendable, Hashable, CaseIterable {
    case global, entities, table, detail, saves, help, confirm

    /// The scope's heading in the help screen.
    public var title: String {
        switch self {
        case .global: "Global"
        case .entities: "Entities pane"
        case .table: "Objects pane"
        case .detail: "Detail pane"
        case .saves: "Saves pane"
        case .help: "Help"
        case .confirm: "Confirmation"
        }
    }

    /// The scope of a pane's keys.
    public init(_ pane: Pane) {
        switch pane {
        case .entities: self = .entities
        case .table: self = .table
        case .detail: self = .detail
        case .saves: self = .saves
        }
    }
}

/// One key binding: its keys, the command, where it applies, its help text, and whether it is
/// hinted in the footer. The keymap is the one table the dispatcher, the footer, the `?` help and
/// the generated key reference all read, so they cannot drift apart.
///
/// ```swift
/// Binding([.char("s")], .sort, .table, "Sort by the column", footer: "sort").keyLabel   // "s"
/// ```
public struct Binding: Sendable {
    /// The keys that run the command (the first is shown in the footer).
    public var keys: [Key]
    /// The command the keys run.
    public var command: CommandID
    /// Where the binding applies.
    public var scope: KeyScope
    /// The help text.
    public var help: String
    /// A short label for the footer (nil: not in the footer).
    public var footer: String?
    /// The help screen's group the binding is listed under.
    public var group: String

    /// Creates a binding; not in the footer and in the `Actions` group by default.
    public init(_ keys: [Key], _ command: CommandID, _ scope: KeyScope, _ help: String, footer: String? = nil, group: String = "Actions") {
        self.keys = keys
        self.command = command
        self.scope = scope
        self.help = help
        self.footer = footer
        self.group = group
    }

    /// The keys as shown in help: `j ↓`.
    public var keyLabel: String { keys.map(\.description).joined(separator: " ") }
}

/// The browser's key bindings.
///
/// ```swift
/// Keymap.binding(for: .char("j"), scopes: [.table, .global])?.command   // .down
/// ```
public enum Keymap {
    /// Every binding, in help order.
    public static let all: [Binding] = [
        // Navigation, in every pane.
        Binding([.char("j"), .down], .down, .global, "Move down", group: "Navigation"),
        Binding([.char("k"), .up], .up, .global, "Move up", group: "Navigation"),
        Binding([.char("g"), .home], .top, .global, "Go to the first row", group: "Navigation"),
        Binding([.char("G"), .end], .bottom, .global, "Go to the last row", group: "Navigation"),
        Binding([.pageDown], .pageDown, .global, "Page down", group: "Navigation"),
        Binding([.pageUp], .pageUp, .global, "Page up", group: "Navigation"),
        Binding([.ctrl("d")], .halfPageDown, .global, "Half a page down", group: "Navigation"),
        Binding([.ctrl("u")], .halfPageUp, .global, "Half a page up", group: "Navigation"),
        Binding([.tab], .paneNext, .global, "Next pane", footer: "pane", group: "Navigation"),
        Binding([.backTab], .panePrevious, .global, "Previous pane", group: "Navigation"),
        Binding([.enter], .open, .global, "Open: entity, object, relationship, log line", footer: "open", group: "Navigation"),
        Binding([.escape], .back, .global, "Back along the breadcrumb", footer: "back", group: "Navigation"),
        // Global actions.
        Binding([.char("?")], .help, .global, "Help: every key and : command, searchable", footer: "help"),
        Binding([.char("m")], .model, .global, "Model view: entities, their attributes and relationships; type to jump, Tab draws one with its neighbours, then the whole model in layers; Enter opens"),
        Binding([.char(":")], .commandLine, .global, "Command line (Tab completes)", footer: "cmd"),
        Binding([.char("q")], .quit, .global, "Quit (asks first when changes are unsaved)", footer: "quit"),
        Binding([.ctrl("c")], .forceQuit, .global, "Quit at once"),
        Binding([.char("R")], .refresh, .global, "Re-read the store (see other processes' saves)", footer: "refresh"),
        Binding([.char("y")], .copy, .global, "Copy the selected value or row (OSC 52)"),
        Binding([.char("M")], .toggleMouse, .global, "Mouse capture on/off (off: the terminal selects text)"),
        Binding([.char("v")], .toggleDetail, .global, "Show or hide the detail pane"),
        Binding([.char("z")], .zoom, .global, "Zoom the focused pane"),
        Binding([.ctrl("l")], .redraw, .global, "Redraw the screen"),
        Binding([.ctrl("z")], .suspend, .global, "Suspend (fg to come back)"),
        // Entities pane.
        Binding([.char("l"), .right], .right, .entities, "Expand the entity's sub-entities", group: "Entities"),
        Binding([.char("h"), .left], .left, .entities, "Collapse the entity's sub-entities", group: "Entities"),
        // Objects pane.
        Binding([.char("h"), .left], .left, .table, "Previous column", group: "Objects"),
        Binding([.char("l"), .right], .right, .table, "Next column", group: "Objects"),
        Binding([.char("s")], .sort, .table, "Sort by the column: ascending, descending, off", footer: "sort", group: "Objects"),
        Binding([.char("S")], .sortSecondary, .table, "Add the column as a further sort key", group: "Objects"),
        Binding([.char("=")], .sections, .table, "Group rows in sections by the first sort key", footer: "sections", group: "Objects"),
        Binding([.char("f")], .filter, .table, "Filter with a predicate (Core Data's format)", footer: "filter", group: "Objects"),
        Binding([.char("F")], .clearFilter, .table, "Clear the filter", group: "Objects"),
        Binding([.char("I")], .columnStats, .table, "Statistics of the column over the filtered objects (as :stats): nil, distinct, range, most common values, histogram; Enter filters to one", group: "Objects"),
        Binding([.char("/")], .search, .table, "Search the visible columns", footer: "search", group: "Objects"),
        Binding([.char("n")], .searchNext, .table, "Next match", group: "Objects"),
        Binding([.char("N")], .searchPrevious, .table, "Previous match", group: "Objects"),
        // Editing (in scratch contexts).
        Binding([.char("e")], .edit, .table, "Edit the selected cell in a scratch context", footer: "edit", group: "Editing"),
        Binding([.char("a")], .insert, .table, "Insert an object of this entity (required values asked for; in a relationship's table, linked to its owner)", group: "Editing"),
        Binding([.char("d")], .delete, .table, "Delete the object (shows what the delete rules take with it)", group: "Editing"),
        Binding([.char("x")], .setNil, .table, "Set the cell to nil; in a relationship's table: unlink the object", group: "Editing"),
        Binding([.char("K")], .moveUp, .table, "Ordered relationship's table: move the object up in its owner's order", group: "Editing"),
        Binding([.char("J")], .moveDown, .table, "Ordered relationship's table: move the object down in its owner's order", group: "Editing"),
        Binding([.char("e")], .edit, .detail, "Edit the property: a value, or pick objects to link", footer: "edit", group: "Editing"),
        Binding([.char("x")], .setNil, .detail, "Set the attribute to nil / unlink a to-one", group: "Editing"),
        Binding([.char("d")], .delete, .detail, "Delete the object", group: "Editing"),
        Binding([.char("s")], .write, .detail, "Save the context in use (shows the changes first)", footer: "save", group: "Editing"),
        Binding([.char("W")], .write, .global, "Save the context in use (shows the changes first)", group: "Editing"),
        Binding([.char("u")], .undo, .global, "Undo the last edit in the context in use", group: "Editing"),
        Binding([.ctrl("r")], .redo, .global, "Redo", group: "Editing"),
        Binding([.char("C")], .contexts, .global, "Contexts: switch, open a child, sibling or own-coordinator one", footer: "ctx", group: "Editing"),
        // Saves pane.
        Binding([.char("c")], .savesFilterContext, .saves, "Only the selected line's context (again: all)", footer: "context", group: "Saves"),
        Binding([.char("F")], .savesFollow, .saves, "Follow the newest saves", footer: "follow", group: "Saves"),
    ]

    /// The first binding of `key` in the scopes, tried in order.
    public static func binding(for key: Key, scopes: [KeyScope]) -> Binding? {
        for scope in scopes {
            if let b = all.first(where: { $0.scope == scope && $0.keys.contains(key) }) { return b }
        }
        return nil
    }

    /// The bindings of a command.
    public static func bindings(of command: CommandID) -> [Binding] { all.filter { $0.command == command } }

    /// The key reference as Markdown (Sources/CoreStack/CoreStack.docc/Reference/KEYS.md is this, checked by a test).
    public static func markdown() -> String {
        var out = "# stackscope keys\n\nGenerated from `Keymap.all` (`swift test` checks this file is current). Every command can also be typed after `:` by its name.\n"
        for scope in KeyScope.allCases {
            let rows = all.filter { $0.scope == scope }
            guard !rows.isEmpty else { continue }
            out += "\n## \(scope.title)\n\n| keys | command | what it does |\n|---|---|---|\n"
            for b in rows {
                let keys = b.keys.map { "`\($0.description == "|" ? "\\|" : $0.description)`" }.joined(separator: " ")
                out += "| \(keys) | `\(b.command.rawValue)` | \(b.help) |\n"
            }
        }
        out += "\n## Command line\n\n"
        for c in CommandLine.commands {
            out += "- `:\(c.usage)` — \(c.help)\n"
        }
        return out
    }
}

/// The `:` commands beyond the keymap's command names.
///
/// ```swift
/// CommandLine.names.contains("export")   // true
/// ```
public enum CommandLine {
    /// One `:` command: its name, its usage line and its help text.
    public struct Entry: Sendable {
        /// The command name.
        public var name: String
        /// The usage line, with the arguments.
        public var usage: String
        /// What the command does.
        public var help: String
    }

    /// The `:` commands, in help order.
    public static let commands: [Entry] = [
        Entry(name: "entity", usage: "entity NAME", help: "open an entity's objects"),
        Entry(name: "filter", usage: "filter PREDICATE", help: "filter the objects (empty: clear)"),
        Entry(name: "sort", usage: "sort COLUMN [asc|desc]", help: "sort by a column"),
        Entry(name: "search", usage: "search TEXT", help: "search the visible columns"),
        Entry(name: "export", usage: "export csv|json FILE", help: "write the current table (all rows, filter applied; binary values as base64)"),
        Entry(name: "save-value", usage: "save-value FILE", help: "write the stored bytes of the value in the inspector (or the binary value selected in the detail pane, or the cell selected in a table under Other tables)"),
        Entry(name: "refresh", usage: "refresh", help: "re-read the store"),
        Entry(name: "mouse", usage: "mouse [on|off]", help: "mouse capture"),
        Entry(name: "w", usage: "w", help: "save the context in use (after a preview of its changes)"),
        Entry(name: "discard", usage: "discard", help: "drop the changes of the context in use (after a preview)"),
        Entry(name: "ctx", usage: "ctx [NAME | new child|sibling|coordinator]", help: "switch context, or open a scratch context"),
        Entry(name: "mergepolicy", usage: "mergepolicy error|objecttrump|storetrump|overwrite|rollback", help: "the merge policy where the context's saves meet the store"),
        Entry(name: "reset", usage: "reset", help: "delete the store and start again empty (asks first)"),
        Entry(name: "corrupt", usage: "corrupt", help: "demo store: damage the file and watch the manager quarantine it"),
        Entry(name: "reseed", usage: "reseed", help: "demo store: fill it with the demo library again (asks first when the store is not empty)"),
        Entry(name: "history", usage: "history", help: "the store's persistent history: transactions, who made them, what changed"),
        Entry(name: "stats", usage: "stats [PROPERTY]", help: "a column's figures over the table's objects (its filter too): nil, distinct, range, mean, most common values, histogram"),
        Entry(name: "q", usage: "q", help: "quit"),
    ]

    /// Names completed after `:`: the commands, then the keymap's command names.
    public static var names: [String] {
        commands.map(\.name) + CommandID.allCases.map(\.rawValue)
    }
}
