import CoreStack

/// One cell of a table under "Other tables": its table, its column and its row, by `rowid`
/// (read through SQLite's blob I/O) or, in a table without one (`WITHOUT ROWID`, virtual), by
/// its position in the view's order (read with a plain `SELECT`).
///
/// ```swift
/// let cell = PlainCell(table: "NOTES", column: "BODY", row: .rowID(7))
/// cell.title  // "NOTES.BODY · row 7"
/// ```
public struct PlainCell: Sendable, Hashable {
    /// How the cell's row is found.
    public enum Row: Sendable, Hashable {
        /// By its `rowid`.
        case rowID(Int64)
        /// The `offset`-th row (0 is the first) of the query, in a table without `rowid`.
        case position(SQLitePlainTableQuery, Int)
    }

    /// The table, as the file spells it.
    public var table: String
    /// The column.
    public var column: String
    /// The row.
    public var row: Row

    /// Creates a cell.
    public init(table: String, column: String, row: Row) {
        self.table = table
        self.column = column
        self.row = row
    }

    /// `TABLE.COLUMN · row 7` (by `rowid`), `TABLE.COLUMN · row 4 of the view` (by position).
    public var title: String {
        switch row {
        case let .rowID(id): "\(table).\(column) · row \(id)"
        case let .position(_, offset): "\(table).\(column) · row \(offset + 1) of the view"
        }
    }
}
