/// The order keys (`Z_FOK_…`) one member of ordered to-manys kept by foreign keys gets in a save,
/// by order column. A member is nearly always in one such relationship, so the first key is held
/// inline and an array is made only for a second: a save of 100,000 chapters allocates none.
///
/// ```swift
/// var keys = PendingOrderKeys(column: "Z_FOK_BOOK", key: 1024)
/// keys.key(for: "Z_FOK_BOOK")                 // 1024
/// keys.allColumns { $0.hasPrefix("Z_FOK_") }  // true
/// ```
struct PendingOrderKeys {
    private let firstColumn: String
    private let firstKey: Int64
    private var more: [(column: String, key: Int64)] = []

    /// The keys of a member with one key so far.
    init(column: String, key: Int64) {
        firstColumn = column
        firstKey = key
    }

    /// Adds a key for another column (the first key of a column is the one kept).
    mutating func append(column: String, key: Int64) {
        more.append((column, key))
    }

    /// The key for `column`, if the member has one.
    func key(for column: String) -> Int64? {
        if firstColumn == column { return firstKey }
        return more.first(where: { $0.column == column })?.key
    }

    /// Whether every column with a key satisfies `isIncluded`.
    func allColumns(_ isIncluded: (String) -> Bool) -> Bool {
        isIncluded(firstColumn) && more.allSatisfy { isIncluded($0.column) }
    }
}
