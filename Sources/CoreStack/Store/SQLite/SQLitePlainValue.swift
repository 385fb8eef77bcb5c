import Foundation

/// One value of a plain table's row as SQLite stores it. A blob brings only its first bytes
/// (read through SQLite's blob I/O, so a 100 MB blob costs a few KiB) and its size; the whole
/// value is read with ``SQLitePlainTable/storedValue(column:rowID:)``.
///
/// ```swift
/// switch row.values[2] {
/// case let .blob(prefix, count): print(ValueInspector.sniff(prefix) ?? "", count)
/// default: print(row.values[2].text)
/// }
/// ```
public enum SQLitePlainValue: Sendable, Hashable {
    /// SQL `NULL`.
    case null
    /// An SQL integer.
    case integer(Int64)
    /// An SQL real.
    case real(Double)
    /// A text value, at most its first ``SQLitePlainTable/textPrefix`` characters, and its length in characters.
    case text(String, length: Int)
    /// A blob: at most its first ``SQLitePlainTable/blobPrefix`` bytes, and its size in bytes.
    case blob(prefix: Data, count: Int)

    /// The value as one line of text: `NULL`, the number, the text, or `N bytes` for a blob.
    ///
    /// ```swift
    /// SQLitePlainValue.integer(12).text          // "12"
    /// SQLitePlainValue.blob(prefix: Data(), count: 3).text  // "3 bytes"
    /// ```
    public var text: String {
        switch self {
        case .null: "NULL"
        case let .integer(n): String(n)
        case let .real(d): String(d)
        case let .text(s, length): length > s.count ? s + "…" : s
        case let .blob(_, count): count == 1 ? "1 byte" : "\(count) bytes"
        }
    }
}
