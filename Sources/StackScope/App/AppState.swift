import CoreStack
import Foundation

/// The browser's whole state: everything `render` draws and `update` changes. A value, so a test
/// can build one, apply actions and compare; nothing in it touches the store.
///
/// ```swift
/// var state = AppState(store: StoreSummary(path: "/tmp/library.sqlite", modelVersion: "DemoLibrary", readOnly: true))
/// let commands = App.update(&state, .key(.char("j")))
/// ```
public struct AppState: Sendable {
    /// The store the browser has open, as the status bar shows it.
    public var store: StoreSummary
    /// The terminal size in cells; resize events update it.
    public var size = Size(width: 80, height: 24)
    /// The pane that receives keys.
    public var focus: Pane = .entities
    /// The entities pane.
    public var entities = EntityTreeState()
    /// The objects pane.
    public var table = TableState()
    /// The detail pane.
    public var detail = DetailState()
    /// The saves log pane.
    public var saves = SavesLogState()
    /// The status line's message.
    public var status = StatusState()
    /// Open modals, bottom first; the last one receives keys.
    public var modals: [Modal] = []
    /// `:` command history, oldest first.
    public var commandHistory: [String] = []
    /// Breadcrumb: the tables opened by following relationships, to go back to with Esc.
    public var navigation: [NavigationEntry] = []
    /// Whether mouse events are handled; off lets the terminal select text.
    public var mouseEnabled = true
    /// The detail pane shown beside the table (toggled on narrow terminals).
    public var showDetail = true
    /// The detail pane shown on narrow terminals (below 100 columns), where it is hidden at first.
    public var detailOnNarrow = false
    /// The focused pane takes the whole screen.
    public var zoomed = false
    /// A count typed before a motion (`5j`).
    public var pendingCount: Int?
    /// The clock as the app last saw it (ticks update it), for fading row marks.
    public var now = Date()
    /// Work in progress shown with a spinner in the status bar.
    public var busy: String?
    /// The frame of the busy spinner, advanced by each tick.
    public var spinnerPhase = 0
    /// Unsaved changes in the context in use (inserted, updated, deleted objects).
    public var pendingChanges = PendingChanges()
    /// Set by `q` when nothing needs confirming: the program ends.
    public var quitRequested = false
    /// The contexts open for reading and editing, main first (see ``ContextInfo``).
    public var contexts: [ContextInfo] = []
    /// The context the table and detail show and edits go to (`main` or a scratch context).
    public var currentContext = "main"
    /// Picking an object to link into a relationship.
    public var picking: PickState?

    /// The context in use, as last reported.
    public var currentContextInfo: ContextInfo? { contexts.first { $0.name == currentContext } }

    /// Creates the state for a store, with every pane empty.
    public init(store: StoreSummary) {
        self.store = store
    }

    /// The modal on top, if any.
    public var topModal: Modal? { modals.last }
}

/// What the status bar says about the store.
public struct StoreSummary: Sendable, Hashable {
    /// The store file's path.
    public var path: String
    /// The name of the model version the store was opened with.
    public var modelVersion: String
    /// Whether the store was opened read-only.
    public var readOnly: Bool
    /// The context the browser reads through.
    public var contextName: String
    /// Why nothing can be written (the edit keys say it).
    public var readOnlyReason: String?
    /// Creates a summary; the context name defaults to `main`.
    public init(path: String, modelVersion: String, readOnly: Bool, contextName: String = "main") {
        self.path = path
        self.modelVersion = modelVersion
        self.readOnly = readOnly
        self.contextName = contextName
    }
}

/// The panes, in Tab order.
///
/// ```swift
/// Pane.table.title   // "Objects"
/// ```
public enum Pane: String, Sendable, CaseIterable, Hashable {
    case entities, table, detail, saves

    /// The pane's title, as drawn in its border.
    public var title: String {
        switch self {
        case .entities: "Entities"
        case .table: "Objects"
        case .detail: "Detail"
        case .saves: "Saves"
        }
    }
}

/// A selection and scroll offset in a list, kept consistent by ``ensureVisible(height:count:)``.
///
/// ```swift
/// var s = ScrollState(selection: 40)
/// s.ensureVisible(height: 10, count: 100)   // offset 31
/// ```
public struct ScrollState: Sendable, Hashable {
    /// The selected row.
    public var selection = 0
    /// The first row shown.
    public var offset = 0

    /// Creates a scroll state with the given selection and offset.
    public init(selection: Int = 0, offset: Int = 0) {
        self.selection = selection
        self.offset = offset
    }

    /// Clamps the selection to `count` rows and scrolls so it is visible in `height` rows.
    public mutating func clamp(count: Int, height: Int) {
        selection = count == 0 ? 0 : min(max(0, selection), count - 1)
        ensureVisible(height: height, count: count)
    }

    /// Moves the offset so the selection is within `height` rows, and keeps the offset within `count` rows.
    public mutating func ensureVisible(height: Int, count: Int) {
        let h = max(1, height)
        if selection < offset { offset = selection }
        if selection >= offset + h { offset = selection - h + 1 }
        offset = max(0, min(offset, max(0, count - h)))
    }
}

/// One visible row of the entity tree.
public struct EntityNode: Sendable, Hashable {
    /// The entity name.
    public var name: String
    /// The nesting level: 0 for a root entity, 1 for its sub-entities, and so on.
    public var depth: Int
    /// Whether the entity is abstract (has no instances of its own).
    public var isAbstract: Bool
    /// Whether the entity has sub-entities.
    public var hasChildren: Bool
    /// What the row is: an entity, or the "Other tables" heading and its tables.
    public enum Kind: Sendable, Hashable {
        /// An entity of the model.
        case entity
        /// The "Other tables" heading: tables neither the model nor Core Data explains.
        case otherTablesHeading
        /// A table under "Other tables" (`name` is the table's), browsed as plain rows.
        case otherTable
    }
    /// What the row is (an entity unless said).
    public var kind: Kind = .entity
    /// Creates a tree row.
    public init(name: String, depth: Int, isAbstract: Bool, hasChildren: Bool, kind: Kind = .entity) {
        self.name = name
        self.depth = depth
        self.isAbstract = isAbstract
        self.hasChildren = hasChildren
        self.kind = kind
    }
}

/// The entities pane: all entities as a tree, collapsed nodes and the live counts.
public struct EntityTreeState: Sendable {
    /// Every entity in tree order (parents before their sub-entities).
    public var all: [EntityNode] = []
    /// The names of the collapsed entities, whose sub-entities are hidden.
    public var collapsed: Set<String> = []
    /// The object count of each entity, by name.
    public var counts: [String: Int] = [:]
    /// The row count of each table under "Other tables", by name.
    public var tableCounts: [String: Int] = [:]
    /// Entities whose count changed recently, with when (for a short highlight).
    public var changedAt: [String: Date] = [:]
    /// The selection and scroll offset in `visible`.
    public var scroll = ScrollState()

    /// Creates an empty tree.
    public init() {}

    /// The rows shown: nodes whose ancestors are all expanded.
    public var visible: [EntityNode] {
        var out: [EntityNode] = []
        var hiddenBelow: Int?
        for n in all {
            if let d = hiddenBelow {
                if n.depth > d { continue }
                hiddenBelow = nil
            }
            out.append(n)
            if collapsed.contains(n.name) { hiddenBelow = n.depth }
        }
        return out
    }

    /// The name of the selected visible entity, or `nil` when there is none.
    public var selectedName: String? {
        let v = visible
        return v.indices.contains(scroll.selection) ? v[scroll.selection].name : nil
    }
}

/// Where a table's rows come from.
public enum TableSource: Sendable, Hashable {
    /// Every object of an entity (sub-entities included).
    case entity(String)
    /// The objects of a to-many relationship of one object.
    case relationship(owner: ManagedObjectID, key: String, destination: String, title: String)

    /// The entity whose objects the table lists.
    public var entityName: String {
        switch self {
        case let .entity(n): n
        case let .relationship(_, _, d, _): d
        }
    }
}

/// One sort key of the table.
public struct SortKey: Sendable, Hashable {
    /// The column (attribute name) to sort by.
    public var column: String
    /// Whether the sort is ascending.
    public var ascending: Bool
    /// Creates a sort key.
    public init(column: String, ascending: Bool) {
        self.column = column
        self.ascending = ascending
    }
}

/// A column of the table: an attribute, its type, and the width fitted so far.
public struct ColumnInfo: Sendable, Hashable {
    /// The attribute name.
    public var name: String
    /// The attribute type's name, shown in the header.
    public var typeName: String
    /// Whether values are aligned right (numbers).
    public var alignRight: Bool
    /// The column width in cells.
    public var width: Int
    /// Whether the attribute is raw: a column of the store nothing explained, read as it is
    /// (`AttributeDescription/isRaw`); its header is drawn in yellow and ends with `≈`.
    public var isRaw: Bool
    /// Creates a column.
    ///
    /// ```swift
    /// let column = ColumnInfo(name: "extra", typeName: "String", alignRight: false, width: 7, isRaw: true)
    /// ```
    public init(name: String, typeName: String, alignRight: Bool, width: Int, isRaw: Bool = false) {
        self.name = name
        self.typeName = typeName
        self.alignRight = alignRight
        self.width = width
        self.isRaw = isRaw
    }
}

/// How a row was changed by the last saves, for the short highlight.
public enum RowMark: String, Sendable, Hashable {
    case inserted, updated, moved
}

/// One displayed row of the table: a section header or an object.
public enum TableRow: Sendable, Hashable {
    case section(name: String, count: Int)
    case object(id: ManagedObjectID, cells: [String])

    /// The row's object, or `nil` for a section header.
    public var objectID: ManagedObjectID? {
        if case let .object(id, _) = self { id } else { nil }
    }
}

/// The formatted rows of the table around what is visible (a page of margin each side), refilled
/// by the program when the view moves beyond it or the data changes: render reads only this.
public struct RowWindow: Sendable, Hashable {
    /// The absolute row indices the window holds.
    public var range: Range<Int> = 0..<0
    /// The rows for `range`, in order.
    public var rows: [TableRow] = []
    /// The data generation the rows were read at.
    public var generation = -1
    /// Per object, the columns whose values the context in use changed and has not saved.
    public var changed: [ManagedObjectID: Set<Int>] = [:]
    /// Creates an empty window that is refilled at once (its generation is -1).
    public init() {}
    /// Creates a window of rows read at `generation`.
    public init(range: Range<Int>, rows: [TableRow], generation: Int, changed: [ManagedObjectID: Set<Int>] = [:]) {
        self.range = range
        self.rows = rows
        self.generation = generation
        self.changed = changed
    }

    /// The row at absolute index `i`, or `nil` when it is outside the window.
    public func row(_ i: Int) -> TableRow? {
        range.contains(i) && i - range.lowerBound < rows.count ? rows[i - range.lowerBound] : nil
    }
}

/// The objects pane.
public struct TableState: Sendable {
    /// Where the rows come from; `nil` before an entity is opened.
    public var source: TableSource?
    /// The columns shown, one per attribute.
    public var columns: [ColumnInfo] = []
    /// The sort keys, most significant first.
    public var sort: [SortKey] = []
    /// Sections by the first sort key, shown as group headers.
    public var sectioned = false
    /// While a re-sort's fetch runs: the sort keys and sectioning of the rows still shown (Esc
    /// puts them back); nil otherwise.
    public var sortShown: (sort: [SortKey], sectioned: Bool)?
    /// The filter in force (a predicate that parsed and ran).
    public var filter: String?
    /// Rows in all, section headers included.
    public var rowCount = 0
    /// Objects in all.
    public var objectCount = 0
    /// The selected row and scroll offset.
    public var scroll = ScrollState()
    /// The selected object, so that changes keep the selection on it.
    public var selectedID: ManagedObjectID?
    /// The selected column (index in `columns`).
    public var selectedColumn = 0
    /// The first column shown when the columns do not fit.
    public var columnOffset = 0
    /// The formatted rows around the visible ones.
    public var window = RowWindow()
    /// Bumped whenever the rows change; windows of older generations are refilled.
    public var generation = 0
    /// Rows changed by recent saves, with how and when, for a fading highlight.
    public var marks: [ManagedObjectID: (RowMark, Date)] = [:]
    /// The term of the last `/` search, for `n` to search again.
    public var search: String?
    /// Why the rows could not be read, shown in the pane.
    public var error: String?

    /// Creates an empty table with no source.
    public init() {}

    /// The entity the table lists, or `nil` without a source.
    public var entityName: String? { source?.entityName }
}

/// One attribute or relationship line of the detail pane.
public struct DetailProperty: Sendable, Hashable {
    /// What kind of property a line shows.
    public enum Kind: Sendable, Hashable {
        case attribute(type: String)
        case toOne(destination: String, target: ManagedObjectID?)
        case toMany(destination: String, count: Int, ordered: Bool)
    }
    /// The property name.
    public var name: String
    /// Whether it is an attribute or a relationship, and its details.
    public var kind: Kind
    /// The formatted value (possibly several lines: wrapped strings, hex previews).
    public var value: String
    /// Whether the context in use changed the value and has not saved it.
    public var changed: Bool
    /// Whether the attribute is raw: a column nothing in the model explains, read as it is
    /// (its name is drawn in yellow and ends with `≈`, as in the table's header).
    public var isRaw: Bool
    /// Creates a property line.
    public init(name: String, kind: Kind, value: String, changed: Bool = false, isRaw: Bool = false) {
        self.name = name
        self.kind = kind
        self.value = value
        self.changed = changed
        self.isRaw = isRaw
    }

    /// Whether the property is a relationship (to-one or to-many).
    public var isRelationship: Bool {
        if case .attribute = kind { false } else { true }
    }
}

/// What the detail pane shows of one object.
public struct DetailSnapshot: Sendable, Hashable {
    /// The object shown.
    public var objectID: ManagedObjectID
    /// The object's entity name.
    public var entityName: String
    /// A short title for the object (the pane's heading).
    public var title: String
    /// The object's URI representation.
    public var uri: String
    /// The object's attributes and relationships, in display order.
    public var properties: [DetailProperty]
    /// Creates a snapshot.
    public init(objectID: ManagedObjectID, entityName: String, title: String, uri: String, properties: [DetailProperty]) {
        self.objectID = objectID
        self.entityName = entityName
        self.title = title
        self.uri = uri
        self.properties = properties
    }
}

/// The detail pane.
public struct DetailState: Sendable {
    /// The object shown, or `nil` when none is selected.
    public var snapshot: DetailSnapshot?
    /// The selected line and scroll offset.
    public var scroll = ScrollState()
    /// Why the object could not be read, shown in the pane.
    public var error: String?
    /// Creates an empty detail pane.
    public init() {}
}

/// One line of the saves log.
public struct SaveLogEntry: Sendable, Hashable {
    /// Where a log line came from.
    public enum Origin: String, Sendable, Hashable {
        /// A did-save of a context in this process.
        case context
        /// What a refresh found changed in the store (another process's saves).
        case refresh
        /// Something the browser did to the store or its contexts (a merge result, a reset).
        case event
        /// Another process (or another coordinator) committed to the store file.
        case remote
    }
    /// When the change happened.
    public var date: Date
    /// The name of the context that saved (or the event's context).
    public var contextName: String
    /// Where the entry came from.
    public var origin: Origin
    /// The URIs of the objects inserted.
    public var inserted: [String]
    /// The URIs of the objects updated.
    public var updated: [String]
    /// The URIs of the objects deleted.
    public var deleted: [String]
    /// A note (for refresh lines: what changed, per entity).
    public var note: String?
    /// Creates a log line; the origin defaults to `.context`.
    public init(
        date: Date, contextName: String, origin: Origin = .context, inserted: [String], updated: [String], deleted: [String],
        note: String? = nil
    ) {
        self.date = date
        self.contextName = contextName
        self.origin = origin
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.note = note
    }
}

/// The saves pane: a bounded log that follows its tail until scrolled up.
public struct SavesLogState: Sendable {
    /// The most entries kept; older ones are dropped.
    public static let capacity = 1_000
    /// The entries kept, oldest first.
    public var entries: [SaveLogEntry] = []
    /// Entries dropped off the front since start.
    public var dropped = 0
    /// The selected entry and scroll offset.
    public var scroll = ScrollState()
    /// Whether the selection follows new entries (off once scrolled up, `F` turns it back on).
    public var follow = true
    /// Expanded entries by absolute number (dropped + index).
    public var expanded: Set<Int> = []
    /// Only entries of this context.
    public var contextFilter: String?
    /// Creates an empty log.
    public init() {}

    /// The indices in `entries` shown: all, or only those of `contextFilter`.
    public var visibleIndices: [Int] {
        guard let f = contextFilter else { return Array(entries.indices) }
        return entries.indices.filter { entries[$0].contextName == f }
    }

    /// Appends an entry, dropping the oldest beyond `capacity` and shifting the selection and expanded entries.
    public mutating func append(_ e: SaveLogEntry) {
        entries.append(e)
        if entries.count > Self.capacity {
            let extra = entries.count - Self.capacity
            entries.removeFirst(extra)
            dropped += extra
            scroll.selection = max(0, scroll.selection - extra)
            expanded = Set(expanded.filter { $0 >= dropped })
        }
    }
}

/// The status line's message.
public struct StatusState: Sendable, Hashable {
    /// How serious a message is, which sets its colour.
    public enum Level: Sendable, Hashable { case info, warning, error }
    /// The message shown, or `nil` for none.
    public var message: String?
    /// How serious the message is.
    public var level: Level = .info
    /// Creates an empty status.
    public init() {}
}

/// A table the user came from (followed a relationship), to return to with Esc.
public struct NavigationEntry: Sendable {
    /// The table as it was.
    public var table: TableState
    /// The pane that had the focus.
    public var focus: Pane
    /// What the breadcrumb shows for this entry.
    public var label: String
    /// The detail as it was (its scroll comes back with the object).
    public var detail = DetailState()
}

/// How many objects a context has inserted, updated and deleted and not saved.
public struct PendingChanges: Sendable, Hashable {
    /// Objects inserted and not saved.
    public var inserted = 0
    /// Objects updated and not saved.
    public var updated = 0
    /// Objects deleted and not saved.
    public var deleted = 0
    /// Creates counts, zero by default.
    public init(inserted: Int = 0, updated: Int = 0, deleted: Int = 0) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }
    /// All unsaved changes: inserted, updated and deleted.
    public var total: Int { inserted + updated + deleted }
}
