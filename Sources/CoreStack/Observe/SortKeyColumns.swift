import Foundation

/// The sort values of a section's rows, one column per sort descriptor (a row's values are the
/// `row`-th element of each column), already folded as the descriptors ask.
///
/// Columns instead of an array per row: a controller over a million rows keeps one array per
/// sort key (24 bytes a value, plus a string's storage when it is longer than 15 bytes) instead of
/// a million small arrays.
struct SortKeyColumns {
    /// One column per sort descriptor, each as long as the section.
    private(set) var columns: [[AttributeValue]]

    /// Empty columns for `width` sort descriptors.
    init(width: Int) {
        columns = Array(repeating: [], count: width)
    }

    /// Columns given whole (each as long as the others).
    init(columns: [[AttributeValue]]) {
        self.columns = columns
    }

    /// The sort values of one row.
    subscript(row: Int) -> [AttributeValue] {
        columns.map { $0[row] }
    }

    /// Orders row `row` against a row of sort values, directions applied, as
    /// ``SortDescriptor/compare(_:_:by:)`` does.
    func compare(row: Int, to key: [AttributeValue], by descriptors: [SortDescriptor]) -> ComparisonResult {
        for (i, d) in descriptors.enumerated() where i < columns.count && i < key.count {
            let r = columns[i][row].compare(to: key[i]) ?? .orderedSame
            if r == .orderedSame { continue }
            return d.ascending ? r : (r == .orderedAscending ? .orderedDescending : .orderedAscending)
        }
        return .orderedSame
    }

    /// Orders two rows, directions applied.
    func compare(row a: Int, row b: Int, by descriptors: [SortDescriptor]) -> ComparisonResult {
        for (i, d) in descriptors.enumerated() where i < columns.count {
            let r = columns[i][a].compare(to: columns[i][b]) ?? .orderedSame
            if r == .orderedSame { continue }
            return d.ascending ? r : (r == .orderedAscending ? .orderedDescending : .orderedAscending)
        }
        return .orderedSame
    }

    mutating func append(_ key: [AttributeValue]) {
        for i in columns.indices { columns[i].append(i < key.count ? key[i] : .null) }
    }

    mutating func insert(_ key: [AttributeValue], at row: Int) {
        for i in columns.indices { columns[i].insert(i < key.count ? key[i] : .null, at: row) }
    }

    /// Inserts rows of sort values in one pass (see `Array.insert(_:atPositions:)`).
    mutating func insert(_ keys: [[AttributeValue]], atPositions positions: [Int]) {
        for i in columns.indices {
            columns[i].insert(keys.map { i < $0.count ? $0[i] : .null }, atPositions: positions)
        }
    }

    mutating func remove(at row: Int) {
        for i in columns.indices { columns[i].remove(at: row) }
    }

    /// Keeps only these rows, in this order.
    mutating func select(_ rows: [Int]) {
        for i in columns.indices {
            let column = columns[i]
            columns[i] = rows.map { column[$0] }
        }
    }

    mutating func reserveCapacity(_ n: Int) {
        for i in columns.indices { columns[i].reserveCapacity(n) }
    }
}
