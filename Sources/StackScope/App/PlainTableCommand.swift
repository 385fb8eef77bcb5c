import CoreStack

/// What the program reads for the plain table view (``PlainTableViewState``) of a table under
/// "Other tables".
///
/// ```swift
/// let open = Command.plainTable(.open(table: "NOTES"))
/// ```
public enum PlainTableCommand: Sendable, Hashable {
    /// Reads the table's columns, count and first rows and shows the view.
    case open(table: String)
    /// Reads the rows `range` of `query` (and its count) for the view's `generation`.
    case load(table: String, query: SQLitePlainTableQuery, range: Range<Int>, generation: Int)
    /// Opens the value inspector on one cell (read through SQLite's blob I/O, or a bounded
    /// `SELECT` in a table without `rowid`).
    case inspect(PlainCell)
    /// Writes one cell's stored bytes to a file (`:save-value FILE`).
    case save(PlainCell, path: String)
}
