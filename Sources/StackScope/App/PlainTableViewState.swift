import CoreStack

/// A table under "Other tables" (one neither the model nor Core Data explains) shown full
/// screen as plain rows: `s` sorts by the selected column (ascending, descending, off), `f` or
/// `/` keeps the rows containing a text, Enter opens the selected cell in the value inspector.
/// Only the rows on screen (and a page either side) are read (`SQLitePlainTable`).
///
/// ```swift
/// var view = PlainTableViewState(table: "NOTES", columns: [.init(name: "ID", declaredType: "INTEGER")], hasRowID: true, rowCount: 3)
/// view.needsRows(height: 20)   // 0..<3 until they are read
/// ```
public struct PlainTableViewState: Sendable {
    /// The table's name.
    public var table: String
    /// Its columns.
    public var columns: [SQLitePlainTable.Column]
    /// Whether its rows have a `rowid` (cells can be inspected).
    public var hasRowID: Bool
    /// The sort and filter in force.
    public var query = SQLitePlainTableQuery()
    /// The rows the query keeps.
    public var rowCount: Int
    /// The rows read, by position, for `generation`.
    public var window: [Int: PlainTableRow] = [:]
    /// Bumped whenever the query changes: rows read for an older one are dropped.
    public var generation = 0
    /// The selected row and the first row shown.
    public var scroll = ScrollState()
    /// The selected column.
    public var selectedColumn = 0
    /// Why the rows could not be read.
    public var error: String?

    /// A view of `table`'s `rowCount` rows, none read yet.
    public init(table: String, columns: [SQLitePlainTable.Column], hasRowID: Bool, rowCount: Int) {
        self.table = table
        self.columns = columns
        self.hasRowID = hasRowID
        self.rowCount = rowCount
    }

    /// The rows to read so that the `height` rows from the first shown are there (with a page
    /// either side), or nil when they are.
    public func needsRows(height: Int) -> Range<Int>? {
        let shown = scroll.offset..<min(rowCount, scroll.offset + max(1, height))
        guard shown.contains(where: { window[$0] == nil }) else { return nil }
        let page = max(1, height)
        return max(0, scroll.offset - page)..<min(rowCount, scroll.offset + 2 * page)
    }

    /// The selected column's sort direction, cycling ascending → descending → off; the other
    /// sort keys are dropped (one key at a time).
    public mutating func cycleSort() {
        guard columns.indices.contains(selectedColumn) else { return }
        let name = columns[selectedColumn].name
        switch query.sort.first(where: { $0.column == name })?.ascending {
        case nil: query.sort = [.init(column: name, ascending: true)]
        case true?: query.sort = [.init(column: name, ascending: false)]
        case false?: query.sort = []
        }
        restart()
    }

    /// Keeps the rows containing `text` in any column (all rows when empty).
    public mutating func filter(_ text: String) {
        query.filter = text.isEmpty ? nil : .init(column: nil, contains: text)
        restart()
    }

    /// A new query: the rows read are dropped and the selection goes to the top.
    private mutating func restart() {
        generation += 1
        window = [:]
        scroll = ScrollState()
    }
}
