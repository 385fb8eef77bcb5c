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
    public var store: StoreSummary
    public var size = Size(width: 80, height: 24)
    public var focus: Pane = .entities
    public var entities = EntityTreeState()
    public var table = TableState()
    public var detail = DetailState()
    public var saves = SavesLogState()
    public var status = StatusState()
    public var modals: [Modal] = []
    /// `:` command history, oldest first.
    public var commandHistory: [String] = []
    /// Breadcrumb: the tables opened by following relationships, to go back to with Esc.
    public var navigation: [NavigationEntry] = []
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

    public init(store: StoreSummary) {
        self.store = store
    }

    /// The modal on top, if any.
    public var topModal: Modal? { modals.last }
}

/// What the status bar says about the store.
public struct StoreSummary: Sendable, Hashable {
    public var path: String
    public var modelVersion: String
    public var readOnly: Bool
    /// The context the browser reads through.
    public var contextName: String
    /// Why nothing can be written (the edit keys say it).
    public var readOnlyReason: String?
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
    public var selection = 0
    public var offset = 0

    public init(selection: Int = 0, offset: Int = 0) {
        self.selection = selection
        self.offset = offset
    }

    /// Clamps the selection to `count` rows and scrolls so it is visible in `height` rows.
    public mutating func clamp(count: Int, height: Int) {
        selection = count == 0 ? 0 : min(max(0, selection), count - 1)
        ensureVisible(height: height, count: count)
    }

    public mutating func ensureVisible(height: Int, count: Int) {
        let h = max(1, height)
        if selection < offset { offset = selection }
        if selection >= offset + h { offset = selection - h + 1 }
        offset = max(0, min(offset, max(0, count - h)))
    }
}

/// One visible row of the entity tree.
public struct EntityNode: Sendable, Hashable {
    public var name: String
    public var depth: Int
    public var isAbstract: Bool
    public var hasChildren: Bool
    public init(name: String, depth: Int, isAbstract: Bool, hasChildren: Bool) {
        self.name = name
        self.depth = depth
        self.isAbstract = isAbstract
        self.hasChildren = hasChildren
    }
}

/// The entities pane: all entities as a tree, collapsed nodes and the live counts.
public struct EntityTreeState: Sendable {
    /// Every entity in tree order (parents before their sub-entities).
    public var all: [EntityNode] = []
    public var collapsed: Set<String> = []
    public var counts: [String: Int] = [:]
    /// Entities whose count changed recently, with when (for a short highlight).
    public var changedAt: [String: Date] = [:]
    public var scroll = ScrollState()

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

    public var entityName: String {
        switch self {
        case let .entity(n): n
        case let .relationship(_, _, d, _): d
        }
    }
}

/// One sort key of the table.
public struct SortKey: Sendable, Hashable {
    public var column: String
    public var ascending: Bool
    public init(column: String, ascending: Bool) {
        self.column = column
        self.ascending = ascending
    }
}

/// A column of the table: an attribute, its type, and the width fitted so far.
public struct ColumnInfo: Sendable, Hashable {
    public var name: String
    public var typeName: String
    public var alignRight: Bool
    public var width: Int
    public init(name: String, typeName: String, alignRight: Bool, width: Int) {
        self.name = name
        self.typeName = typeName
        self.alignRight = alignRight
        self.width = width
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

    public var objectID: ManagedObjectID? {
        if case let .object(id, _) = self { id } else { nil }
    }
}

/// The formatted rows of the table around what is visible (a page of margin each side), refilled
/// by the program when the view moves beyond it or the data changes: render reads only this.
public struct RowWindow: Sendable, Hashable {
    public var range: Range<Int> = 0..<0
    public var rows: [TableRow] = []
    /// The data generation the rows were read at.
    public var generation = -1
    /// Per object, the columns whose values the context in use changed and has not saved.
    public var changed: [ManagedObjectID: Set<Int>] = [:]
    public init() {}
    public init(range: Range<Int>, rows: [TableRow], generation: Int, changed: [ManagedObjectID: Set<Int>] = [:]) {
        self.range = range
        self.rows = rows
        self.generation = generation
        self.changed = changed
    }

    public func row(_ i: Int) -> TableRow? {
        range.contains(i) && i - range.lowerBound < rows.count ? rows[i - range.lowerBound] : nil
    }
}

/// The objects pane.
public struct TableState: Sendable {
    public var source: TableSource?
    public var columns: [ColumnInfo] = []
    public var sort: [SortKey] = []
    /// Sections by the first sort key, shown as group headers.
    public var sectioned = false
    /// The filter in force (a predicate that parsed and ran).
    public var filter: String?
    /// Rows in all, section headers included.
    public var rowCount = 0
    /// Objects in all.
    public var objectCount = 0
    public var scroll = ScrollState()
    /// The selected object, so that changes keep the selection on it.
    public var selectedID: ManagedObjectID?
    public var selectedColumn = 0
    public var columnOffset = 0
    public var window = RowWindow()
    /// Bumped whenever the rows change; windows of older generations are refilled.
    public var generation = 0
    public var marks: [ManagedObjectID: (RowMark, Date)] = [:]
    public var search: String?
    public var error: String?

    public init() {}

    public var entityName: String? { source?.entityName }
}

/// One attribute or relationship line of the detail pane.
public struct DetailProperty: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case attribute(type: String)
        case toOne(destination: String, target: ManagedObjectID?)
        case toMany(destination: String, count: Int, ordered: Bool)
    }
    public var name: String
    public var kind: Kind
    /// The formatted value (possibly several lines: wrapped strings, hex previews).
    public var value: String
    public var changed: Bool
    public init(name: String, kind: Kind, value: String, changed: Bool = false) {
        self.name = name
        self.kind = kind
        self.value = value
        self.changed = changed
    }

    public var isRelationship: Bool {
        if case .attribute = kind { false } else { true }
    }
}

/// What the detail pane shows of one object.
public struct DetailSnapshot: Sendable, Hashable {
    public var objectID: ManagedObjectID
    public var entityName: String
    public var title: String
    public var uri: String
    public var properties: [DetailProperty]
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
    public var snapshot: DetailSnapshot?
    public var scroll = ScrollState()
    public var error: String?
    public init() {}
}

/// One line of the saves log.
public struct SaveLogEntry: Sendable, Hashable {
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
    public var date: Date
    public var contextName: String
    public var origin: Origin
    public var inserted: [String]
    public var updated: [String]
    public var deleted: [String]
    /// A note (for refresh lines: what changed, per entity).
    public var note: String?
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
    public static let capacity = 1_000
    public var entries: [SaveLogEntry] = []
    /// Entries dropped off the front since start.
    public var dropped = 0
    public var scroll = ScrollState()
    public var follow = true
    /// Expanded entries by absolute number (dropped + index).
    public var expanded: Set<Int> = []
    /// Only entries of this context.
    public var contextFilter: String?
    public init() {}

    public var visibleIndices: [Int] {
        guard let f = contextFilter else { return Array(entries.indices) }
        return entries.indices.filter { entries[$0].contextName == f }
    }

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
    public enum Level: Sendable, Hashable { case info, warning, error }
    public var message: String?
    public var level: Level = .info
    public init() {}
}

/// A table the user came from (followed a relationship), to return to with Esc.
public struct NavigationEntry: Sendable {
    public var table: TableState
    public var focus: Pane
    public var label: String
    /// The detail as it was (its scroll comes back with the object).
    public var detail = DetailState()
}

/// How many objects a context has inserted, updated and deleted and not saved.
public struct PendingChanges: Sendable, Hashable {
    public var inserted = 0
    public var updated = 0
    public var deleted = 0
    public init(inserted: Int = 0, updated: Int = 0, deleted: Int = 0) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }
    public var total: Int { inserted + updated + deleted }
}
