/// One row of a plain table as the view shows it: its `rowid` and one line per cell (a blob as
/// what it holds: `JPEG 120×90`, `plist dict · 3 keys`, or its size and first bytes).
///
/// ```swift
/// let row = PlainTableRow(rowID: 7, cells: ["7", "draft", "archive NSArray · 3 items"])
/// ```
public struct PlainTableRow: Sendable, Hashable {
    /// The row's `rowid` (nil in a table without one: its cells cannot be inspected).
    public var rowID: Int64?
    /// One line per column.
    public var cells: [String]

    /// Creates a row.
    public init(rowID: Int64?, cells: [String]) {
        self.rowID = rowID
        self.cells = cells
    }
}
