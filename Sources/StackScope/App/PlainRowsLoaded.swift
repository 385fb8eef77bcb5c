import CoreStack

/// Rows of a plain table read for the view's window (or why they could not be).
///
/// ```swift
/// let loaded = PlainRowsLoaded(table: "NOTES", generation: 1, range: 0..<2, rowCount: 2,
///                              rows: [PlainTableRow(rowID: 1, cells: ["1", "first"])])
/// ```
public struct PlainRowsLoaded: Sendable, Hashable {
    /// The table read.
    public var table: String
    /// The view's generation the rows were read for (older ones are dropped).
    public var generation: Int
    /// The rows' positions.
    public var range: Range<Int>
    /// How many rows the query keeps in all.
    public var rowCount: Int
    /// The rows, formatted.
    public var rows: [PlainTableRow]
    /// Why nothing could be read.
    public var error: String?

    /// Creates a result.
    public init(table: String, generation: Int, range: Range<Int>, rowCount: Int, rows: [PlainTableRow], error: String? = nil) {
        self.table = table
        self.generation = generation
        self.range = range
        self.rowCount = rowCount
        self.rows = rows
        self.error = error
    }
}
