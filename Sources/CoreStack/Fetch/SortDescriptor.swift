import Foundation

/// One key of a fetch's order: a key path, a direction, and how strings compare.
///
/// ```swift
/// let byTitle = SortDescriptor("title", ascending: true, comparison: .caseInsensitive)
/// let request = FetchRequest<Book>(entityName: "Book", sortDescriptors: [byTitle])
/// ```
public struct SortDescriptor: Sendable, Hashable, CustomStringConvertible {
    /// How strings compare.
    public enum Comparison: Sendable, Hashable {
        /// Code-point order (SQLite's BINARY collation).
        case `default`
        /// Case-insensitive (Unicode case folding).
        case caseInsensitive
        /// Case- and diacritic-insensitive.
        case caseAndDiacriticInsensitive
    }

    /// The key path sorted on (`"title"`, `"publisher.name"`).
    public var key: String
    /// Ascending or descending.
    public var ascending: Bool
    /// How strings compare.
    public var comparison: Comparison

    /// Sorts on a key path; `comparison` chooses how strings compare.
    ///
    /// ```swift
    /// SortDescriptor("title", ascending: false)
    /// ```
    public init(_ key: String, ascending: Bool = true, comparison: Comparison = .default) {
        self.key = key
        self.ascending = ascending
        self.comparison = comparison
    }

    /// `SortDescriptor(key: "title", ascending: true)`, as Core Data spells it.
    public init(key: String, ascending: Bool) {
        self.init(key, ascending: ascending)
    }

    /// `key ASC` or `key DESC`.
    public var description: String { "\(key) \(ascending ? "ASC" : "DESC")" }
}
