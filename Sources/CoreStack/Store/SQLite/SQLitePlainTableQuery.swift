/// What rows of a plain table to read, and in what order: sort keys by column, and a filter
/// that keeps the rows whose column (or any column) contains a text. Used by ``SQLitePlainTable``.
///
/// ```swift
/// var query = SQLitePlainTableQuery()
/// query.sort = [.init(column: "TITLE", ascending: false)]
/// query.filter = .init(column: nil, contains: "draft")
/// let rows = try table.rows(query, offset: 0, limit: 50)
/// ```
public struct SQLitePlainTableQuery: Sendable, Hashable {
    /// One sort key: a column of the table and a direction.
    public struct SortKey: Sendable, Hashable {
        /// The column, as the file spells it.
        public var column: String
        /// Whether the smallest values come first.
        public var ascending: Bool
        /// Creates a sort key.
        ///
        /// ```swift
        /// let newestFirst = SQLitePlainTableQuery.SortKey(column: "CREATED", ascending: false)
        /// ```
        public init(column: String, ascending: Bool = true) {
            self.column = column
            self.ascending = ascending
        }
    }

    /// Keeps the rows whose column (`column`, or any column when nil) contains `text`, ignoring
    /// the case of ASCII letters; numbers are compared as their text, blobs never match.
    public struct Filter: Sendable, Hashable {
        /// The column looked in, or nil for every column.
        public var column: String?
        /// The text looked for.
        public var text: String
        /// Creates a filter.
        ///
        /// ```swift
        /// let filter = SQLitePlainTableQuery.Filter(column: "NAME", contains: "ann")
        /// ```
        public init(column: String?, contains text: String) {
            self.column = column
            self.text = text
        }
    }

    /// The sort keys, most significant first; rows equal on all of them (or with no sort key) come in `rowid` order.
    public var sort: [SortKey]
    /// The filter, or nil for every row.
    public var filter: Filter?

    /// Every row in `rowid` order, or as given.
    ///
    /// ```swift
    /// let all = SQLitePlainTableQuery()
    /// ```
    public init(sort: [SortKey] = [], filter: Filter? = nil) {
        self.sort = sort
        self.filter = filter
    }
}
