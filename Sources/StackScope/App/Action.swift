import CoreStack
import Foundation

/// Everything that can happen to the browser: keys and mouse from the terminal, signals, timer
/// ticks, and the results of commands (data loaded, data changed). ``App/update(_:_:)`` is the
/// only place they change the state.
///
/// ```swift
/// program.dispatch(.key(.char("j")))
/// program.dispatch(.commandLine("entity Author"))
/// ```
public indirect enum Action: Sendable {
    case key(Key)
    case resized(Size)
    case tick(Date)
    /// Run a command of the keymap by its ID (from a key, `:`, the help screen or a test).
    case run(CommandID)
    /// A `:` command line to execute.
    case commandLine(String)

    // Results of commands.
    case entitiesLoaded([EntityNode], counts: [String: Int])
    case countsChanged([String: Int], at: Date)
    case tableOpened(TableOpened)
    case tableFailed(source: TableSource, message: String)
    /// Rows read for the window, with the columns of each object changed in the context in use.
    case windowLoaded(generation: Int, range: Range<Int>, rows: [TableRow], changed: [ManagedObjectID: Set<Int>] = [:])
    /// Rows of the plain table shown (``PlainTableViewState``) were read, or could not be.
    case plainRowsLoaded(PlainRowsLoaded)
    /// The row counts of the tables under "Other tables".
    case otherTablesCounted([String: Int])
    /// The table's results changed (FRC changes): new totals, marks, where the selected object is now.
    case tableChanged(TableChange)
    /// The owner of the relationship shown gained or lost objects (in the context in use): the
    /// table is fetched again, its sort, filter and selection kept.
    case relationshipChanged(TableSource, keepSelection: ManagedObjectID?)
    case detailLoaded(DetailSnapshot?, error: String?)
    case saveLogged(SaveLogEntry)
    case searchFound(index: Int?, term: String)
    /// Long work reports how far it got (the status bar's progress line).
    case progress(String)
    case message(String, StatusState.Level)
    /// The context in use has this many unsaved changes now.
    case pendingChanged(PendingChanges)
    /// Save the context in use, then quit (the answer to quitting with unsaved changes).
    case saveAndQuit
    case quitNow

    // Editing.
    /// Run a command (the answer to a confirmation).
    case perform(Command)
    /// Show a question or a report the program prepared (a save preview, a merge result).
    case showModal(Modal)
    /// The attribute editor's value was applied (nil) or refused (the reason).
    case editResult(error: String?)
    /// The contexts and which one is in use changed (opened, switched, edited, saved).
    case contextsChanged([ContextInfo], current: String)
    /// Start picking an object to link (the program opened the destination's table).
    case pickStarted(PickState)
    /// The store was reset or replaced (at `date`): every pane starts again on the new contexts.
    case storeReplaced(note: String, at: Date)
    /// Another process (or coordinator) committed to the store.
    case remoteChanged(RemoteStoreChange)
}

/// What opening a table produced.
public struct TableOpened: Sendable {
    /// Where the table's rows come from.
    public var source: TableSource
    /// The columns to show.
    public var columns: [ColumnInfo]
    /// The sort keys in force.
    public var sort: [SortKey]
    /// Whether the rows are grouped in sections by the first sort key.
    public var sectioned: Bool
    /// The filter in force, if any.
    public var filter: String?
    /// Rows in all, section headers included.
    public var rowCount: Int
    /// Objects in all.
    public var objectCount: Int
    /// Where the previously selected object is now, if it is still there.
    public var selectedIndex: Int?
    /// Creates the result of opening a table.
    public init(
        source: TableSource, columns: [ColumnInfo], sort: [SortKey], sectioned: Bool, filter: String?, rowCount: Int,
        objectCount: Int, selectedIndex: Int?
    ) {
        self.source = source
        self.columns = columns
        self.sort = sort
        self.sectioned = sectioned
        self.filter = filter
        self.rowCount = rowCount
        self.objectCount = objectCount
        self.selectedIndex = selectedIndex
    }
}

/// A change of the table's results reported by its fetched results controller.
public struct TableChange: Sendable {
    /// Rows in all now, section headers included.
    public var rowCount: Int
    /// Objects in all now.
    public var objectCount: Int
    /// The rows whose objects were inserted, updated or moved, for the highlight.
    public var marks: [ManagedObjectID: RowMark]
    /// The selected object's row now (nil: it left the results).
    public var selectedIndex: Int?
    /// When the change was reported.
    public var date: Date
    /// The table the change is about (nil: the one shown). A change of a table the app has just
    /// left is ignored.
    public var source: TableSource?
    /// Creates a change; the source defaults to the table shown.
    public init(rowCount: Int, objectCount: Int, marks: [ManagedObjectID: RowMark], selectedIndex: Int?, date: Date, source: TableSource? = nil) {
        self.rowCount = rowCount
        self.objectCount = objectCount
        self.marks = marks
        self.selectedIndex = selectedIndex
        self.date = date
        self.source = source
    }
}

/// Work for the program's effect runner, asked for by ``App/update(_:_:)``; results come back as
/// ``Action``s.
///
/// ```swift
/// App.update(&state, .key(.char("q")))   // [.quit] when nothing is pending
/// ```
public enum Command: Sendable, Hashable {
    /// Open a table: fetch with this sort, sections and filter, keeping `keepSelection` selected.
    case openTable(TableSource, sort: [SortKey], sectioned: Bool, filter: String?, keepSelection: ManagedObjectID?)
    /// Read rows of the current table into the window.
    case loadWindow(generation: Int, range: Range<Int>)
    case loadDetail(ManagedObjectID?)
    /// Open the value inspector on an attribute of an object (its bytes read in the context in use).
    case inspectValue(ManagedObjectID, key: String, title: String)
    /// Reads for the plain table view of a table under "Other tables": open it, load rows, inspect a cell.
    case plainTable(PlainTableCommand)
    /// Write the stored bytes of an attribute of an object to a file (`:save-value FILE`).
    case saveValue(ManagedObjectID, key: String, path: String)
    /// Find the next row (from an index, forward or back) whose visible cells contain the term.
    case search(term: String, from: Int, forward: Bool)
    /// Re-read the store: refetch everything and log what changed.
    case refresh
    case export(format: String, path: String)
    /// Put text on the terminal's clipboard (OSC 52).
    case copy(String)
    case startTicking
    /// Save the context in use (and the stack above it) to the store.
    case saveAll(thenQuit: Bool)
    case suspend
    case redraw
    case quit
    /// Work on the contexts: edits, saves, undo, merge policies, reset.
    case edit(EditCommand)
    /// Merge another process's commit into the stack (or re-read the store when it keeps no history).
    case mergeRemote(RemoteStoreChange)
    /// Stop the long work under way (a search in steps) and drop the results of work not started yet.
    case cancelWork
}
