import Foundation

/// A value held in one property slot of a managed object or a store row.
///
/// Managed objects keep their attribute values in an array of these, indexed by property, rather
/// than in a `[String: Any]` (see <doc:Architecture>: ~10× cheaper to build and read).
///
/// ```swift
/// let title: AttributeValue = "Dune"      // .string("Dune")
/// let pages: AttributeValue = 412         // .integer(412)
/// title.stringValue                       // "Dune"
/// ```
public enum AttributeValue: Sendable, Hashable {
    /// No value (nil).
    case null
    /// An integer of any width (the integer attribute types).
    case integer(Int64)
    /// A floating-point number (double and float attributes).
    case double(Double)
    /// A string.
    case string(String)
    /// A Boolean.
    case bool(Bool)
    /// A date.
    case date(Date)
    /// Bytes (binary and transformable attributes).
    case data(Data)
    /// A UUID.
    case uuid(UUID)
    /// A decimal number.
    case decimal(Decimal)
    /// A URL.
    case url(URL)

    /// True for `.null`.
    @inlinable public var isNull: Bool { if case .null = self { true } else { false } }

    /// The value as a string, when it is one.
    @inlinable public var stringValue: String? { if case let .string(s) = self { s } else { nil } }

    /// The value as an integer: integers, booleans, and doubles or decimals with no fraction.
    @inlinable public var integerValue: Int64? {
        switch self {
        case let .integer(i): i
        case let .bool(b): b ? 1 : 0
        case let .double(d): d.rounded(.towardZero) == d && abs(d) < 9.2e18 ? Int64(d) : nil
        case let .decimal(d): Int64(exactly: NSDecimalNumber(decimal: d).doubleValue)
        default: nil
        }
    }

    /// The value as a double, for every numeric case (and booleans as 0/1).
    @inlinable public var doubleValue: Double? {
        switch self {
        case let .integer(i): Double(i)
        case let .double(d): d
        case let .bool(b): b ? 1 : 0
        case let .decimal(d): NSDecimalNumber(decimal: d).doubleValue
        case let .date(d): d.timeIntervalSinceReferenceDate
        default: nil
        }
    }

    /// The value as a boolean: booleans and integers (non-zero is true).
    @inlinable public var boolValue: Bool? {
        switch self {
        case let .bool(b): b
        case let .integer(i): i != 0
        default: nil
        }
    }

    /// The value as a date, when it is one.
    @inlinable public var dateValue: Date? { if case let .date(d) = self { d } else { nil } }

    /// The value as data, when it is one.
    @inlinable public var dataValue: Data? { if case let .data(d) = self { d } else { nil } }

    /// The value as a UUID, when it is one.
    @inlinable public var uuidValue: UUID? { if case let .uuid(u) = self { u } else { nil } }

    /// The value as a URL, when it is one.
    @inlinable public var urlValue: URL? { if case let .url(u) = self { u } else { nil } }

    /// The value as a decimal: decimals, integers and doubles (nil for a double no decimal can
    /// hold: ±infinity, NaN, or a magnitude of 1e165 or more).
    @inlinable public var decimalValue: Decimal? {
        switch self {
        case let .decimal(d): d
        case let .integer(i): Decimal(i)
        case let .double(d): Self.decimal(exactly: d)
        default: nil
        }
    }

    /// `Decimal(d)` when a decimal can hold `d`, else nil: `Decimal.init(_: Double)` traps on
    /// ±infinity and gives NaN for NaN and for magnitudes past Decimal's range (about 3.4e165).
    ///
    /// ```swift
    /// AttributeValue.decimal(exactly: 2.5)        // 2.5
    /// AttributeValue.decimal(exactly: .infinity)  // nil
    /// ```
    @inlinable public static func decimal(exactly d: Double) -> Decimal? {
        guard d.isFinite, abs(d) < 1e165 else { return nil }
        return Decimal(d)
    }

    /// A short name of the case, for error messages ("a String", "an Integer").
    public var kindDescription: String {
        switch self {
        case .null: "nil"
        case .integer: "an Integer"
        case .double: "a Double"
        case .string: "a String"
        case .bool: "a Boolean"
        case .date: "a Date"
        case .data: "Binary data"
        case .uuid: "a UUID"
        case .decimal: "a Decimal"
        case .url: "a URI"
        }
    }
}

extension AttributeValue: CustomStringConvertible {
    /// The value as text, for logs and the browser.
    public var description: String {
        switch self {
        case .null: "nil"
        case let .integer(i): String(i)
        case let .double(d): String(d)
        case let .string(s): s
        case let .bool(b): b ? "true" : "false"
        case let .date(d): ISO8601DateFormatter.coreStack.string(from: d)
        case let .data(d): "<\(d.count) bytes>"
        case let .uuid(u): u.uuidString
        case let .decimal(d): "\(d)"
        case let .url(u): u.absoluteString
        }
    }
}

extension AttributeValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral
{
    /// `"Dune"` is `.string("Dune")`.
    public init(stringLiteral value: String) { self = .string(value) }
    /// `3` is `.integer(3)`.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// `1.5` is `.double(1.5)`.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// `true` is `.bool(true)`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension AttributeValue {
    /// Two strings in code-point order: their UTF-8 bytes compared with `memcmp` (one pass, no
    /// per-byte iteration; a fetched-results controller compares a million sort keys this way).
    static func compareUTF8(_ a: String, _ b: String) -> ComparisonResult {
        var a = a, b = b
        return a.withUTF8 { pa in
            b.withUTF8 { pb in
                let n = min(pa.count, pb.count)
                if n > 0, let x = pa.baseAddress, let y = pb.baseAddress {
                    let r = memcmp(x, y, n)
                    if r != 0 { return r < 0 ? .orderedAscending : .orderedDescending }
                }
                return pa.count == pb.count ? .orderedSame : (pa.count < pb.count ? .orderedAscending : .orderedDescending)
            }
        }
    }

    /// Orders two values the way sort descriptors and comparisons do: nil first, numbers by value,
    /// strings by code point, dates by time. Returns nil for values of unrelated kinds.
    public func compare(to other: AttributeValue) -> ComparisonResult? {
        func cmp<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
            a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
        }
        switch (self, other) {
        case (.null, .null): return .orderedSame
        case (.null, _): return .orderedAscending
        case (_, .null): return .orderedDescending
        case let (.integer(a), .integer(b)): return cmp(a, b)
        case let (.string(a), .string(b)):
            // Code-point order, as SQLite's BINARY collation sorts UTF-8.
            // Byte equality, not Swift's canonical equivalence: "é" precomposed and decomposed differ in SQL too.
            return Self.compareUTF8(a, b)
        case let (.date(a), .date(b)): return cmp(a, b)
        case let (.uuid(a), .uuid(b)): return cmp(a.uuidString, b.uuidString)
        case let (.url(a), .url(b)): return cmp(a.absoluteString, b.absoluteString)
        case let (.data(a), .data(b)): return a == b ? .orderedSame : (a.lexicographicallyPrecedes(b) ? .orderedAscending : .orderedDescending)
        case let (.decimal(a), .decimal(b)): return cmp(a, b)
        case (.date, _), (_, .date): return nil
        default:
            if let a = self.doubleValue, let b = other.doubleValue { return cmp(a, b) }
            return nil
        }
    }
}

extension ISO8601DateFormatter {
    /// The formatter CoreStack uses for dates in text output (fractional seconds, UTC).
    nonisolated(unsafe) static let coreStack: ISO8601DateFormatter = {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f
    }()
}
