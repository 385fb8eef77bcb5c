import Foundation

/// What one column of an entity holds, computed in SQL over every matching object (never by
/// loading objects): counts, distinct values, range, the most common values and, for numbers and
/// dates, a histogram. VisiData's frequency sheet for a Core Data store.
///
/// For a to-one relationship the values are the destination objects (how many objects point at
/// each); for a to-many relationship, the number of objects each object links to.
///
/// ```swift
/// let stats = try store.columnStatistics(ColumnStatisticsRequest(entity: book, property: "pages"))
/// print(stats.rowCount, stats.nullCount, stats.distinctCount, stats.mean ?? .nan)
/// for common in stats.mostCommon { print(common.value, common.count) }
/// ```
public struct ColumnStatistics: Sendable, Equatable {
    /// One value of the column.
    public enum Value: Sendable, Hashable, CustomStringConvertible {
        /// No value (NULL, or a to-one relationship that is not set).
        case null
        /// An attribute's value.
        case attribute(AttributeValue)
        /// The destination of a to-one relationship.
        case object(ManagedObjectID)
        /// How many objects a to-many relationship links to.
        case count(Int)

        /// The value as a short text.
        ///
        /// ```swift
        /// print(ColumnStatistics.Value.count(3))   // "3"
        /// ```
        public var description: String {
            switch self {
            case .null: "nil"
            case let .attribute(value): "\(value)"
            case let .object(id): id.uriRepresentation().absoluteString
            case let .count(n): String(n)
            }
        }
    }

    /// A value with the number of objects that hold it.
    public struct ValueCount: Sendable, Equatable {
        /// The value.
        public var value: Value
        /// How many matching objects hold it.
        public var count: Int

        /// A value and its count.
        ///
        /// ```swift
        /// let common = ColumnStatistics.ValueCount(value: .count(2), count: 40)
        /// ```
        public init(value: Value, count: Int) {
            self.value = value
            self.count = count
        }
    }

    /// One bin of a histogram: values from `lowerBound` up to `upperBound` (the last bin includes
    /// its upper bound). Dates are seconds since 2001-01-01, as Core Data stores them.
    public struct Bin: Sendable, Equatable {
        /// The bin's first value.
        public var lowerBound: Double
        /// Where the next bin starts.
        public var upperBound: Double
        /// How many matching objects have a value in the bin.
        public var count: Int

        /// A bin.
        ///
        /// ```swift
        /// let bin = ColumnStatistics.Bin(lowerBound: 0, upperBound: 10, count: 4)
        /// ```
        public init(lowerBound: Double, upperBound: Double, count: Int) {
            self.lowerBound = lowerBound
            self.upperBound = upperBound
            self.count = count
        }
    }

    /// The entity.
    public var entityName: String
    /// The attribute or relationship.
    public var propertyName: String
    /// Matching objects (after the request's predicate).
    public var rowCount: Int
    /// Objects with no value.
    public var nullCount: Int
    /// Distinct values, no value not counted.
    public var distinctCount: Int
    /// The smallest value (nil when every value is nil).
    public var minimum: Value?
    /// The largest value (nil when every value is nil).
    public var maximum: Value?
    /// The mean, for numbers, dates (seconds since 2001) and to-many counts.
    public var mean: Double?
    /// The most common values, most common first (ties in value order).
    public var mostCommon: [ValueCount]
    /// A histogram in equal bins from the minimum to the maximum, for numbers, dates and to-many
    /// counts; empty for other columns.
    public var histogram: [Bin]
}
