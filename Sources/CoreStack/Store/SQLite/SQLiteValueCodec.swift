import Foundation
import GRDB

/// Converts between ``AttributeValue`` and SQLite values, the way Core Data stores each type.
enum SQLiteValueCodec {
    /// A column value read back as a value of `type`.
    static func value(_ dbValue: DatabaseValue, type: AttributeType) -> AttributeValue {
        switch dbValue.storage {
        case .null: .null
        case let .int64(i): value(int64: i, type: type)
        case let .double(d): value(double: d, type: type)
        case let .string(s): value(string: s, type: type)
        case let .blob(data): value(blob: data, type: type)
        }
    }

    static func value(int64 i: Int64, type: AttributeType) -> AttributeValue {
        switch type {
        case .integer16, .integer32, .integer64: .integer(i)
        case .boolean: .bool(i != 0)
        case .double, .float: .double(Double(i))
        case .decimal: .decimal(Decimal(i))
        case .date: .date(Date(timeIntervalSinceReferenceDate: Double(i)))
        case .string: .string(String(i))
        case .uri: uri(String(i))
        default: .integer(i)
        }
    }

    static func value(double d: Double, type: AttributeType) -> AttributeValue {
        switch type {
        case .integer16, .integer32, .integer64:
            Int64(exactly: d.rounded(.towardZero)).map(AttributeValue.integer) ?? .double(d)
        case .boolean: .bool(d != 0)
        case .decimal: decimal(d).map(AttributeValue.decimal) ?? .double(d)  // shown as the REAL it is
        case .date: .date(Date(timeIntervalSinceReferenceDate: d))
        case .string: .string(String(d))
        default: .double(d)
        }
    }

    static func value(string s: String, type: AttributeType) -> AttributeValue {
        switch type {
        case .uri: uri(s)
        case .integer16, .integer32, .integer64: Int64(s).map(AttributeValue.integer) ?? .string(s)
        case .double, .float: Double(s).map(AttributeValue.double) ?? .string(s)
        case .decimal: Decimal(string: s).map(AttributeValue.decimal) ?? .string(s)
        case .boolean: Int64(s).map { .bool($0 != 0) } ?? .string(s)
        case .date: Double(s).map { .date(Date(timeIntervalSinceReferenceDate: $0)) } ?? .string(s)
        case .uuid: UUID(uuidString: s).map(AttributeValue.uuid) ?? .string(s)
        case .binaryData, .transformable: .data(Data(s.utf8))
        default: .string(s)
        }
    }

    /// A URI column's text: a URL when it reads back as the same text, else the text as stored
    /// (`URL(string:)` percent-encodes what is not a URL, `my site` → `my%20site`, which would show,
    /// export and save back text the store never held).
    static func uri(_ s: String) -> AttributeValue {
        guard let url = URL(string: s), url.absoluteString == s else { return .string(s) }
        return .url(url)
    }

    static func value(blob data: Data, type: AttributeType) -> AttributeValue {
        switch type {
        case .uuid:
            guard data.count == 16 else { return .data(data) }
            let b = [UInt8](data)
            return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        case .string: return String(data: data, encoding: .utf8).map(AttributeValue.string) ?? .data(data)
        default: return .data(data)
        }
    }

    /// The REAL nearest a decimal, parsed from its text: `NSDecimalNumber.doubleValue` can miss
    /// it by an ulp (35.49 became 35.489999999999995), which the shortest-text read then keeps.
    static func double(_ d: Decimal) -> Double {
        Double(NSDecimalNumber(decimal: d).description(withLocale: Locale(identifier: "en_US_POSIX")))
            ?? NSDecimalNumber(decimal: d).doubleValue
    }

    /// A decimal from a REAL, by its shortest decimal text (so 1.1 stays 1.1); nil for a REAL no
    /// decimal holds (±infinity, which `Decimal.init` traps on, NaN, or past Decimal's range),
    /// which a damaged or foreign store can hold in a decimal column.
    static func decimal(_ d: Double) -> Decimal? {
        guard let exact = AttributeValue.decimal(exactly: d) else { return nil }
        return Decimal(string: String(d)) ?? exact
    }

    /// The SQLite value stored for a value of an attribute of `type`.
    static func databaseValue(_ value: AttributeValue, type: AttributeType) -> DatabaseValue {
        switch value {
        case .null: return .null
        case let .integer(i):
            switch type {
            case .double, .float, .date: return Double(i).databaseValue
            case .boolean: return (i != 0 ? 1 : 0).databaseValue
            default: return i.databaseValue
            }
        case let .bool(b): return (b ? 1 : 0).databaseValue
        case let .double(d):
            if type.isInteger || type == .boolean, let i = Int64(exactly: d) { return i.databaseValue }
            return d.databaseValue
        case let .string(s): return s.databaseValue
        case let .date(d): return d.timeIntervalSinceReferenceDate.databaseValue
        case let .data(d): return d.databaseValue
        case let .uuid(u): return uuidData(u).databaseValue
        case let .decimal(d):
            let n = NSDecimalNumber(decimal: d)
            var rounded = d
            var copy = d
            NSDecimalRound(&rounded, &copy, 0, .plain)
            if rounded == d, let i = Int64(exactly: n.doubleValue) { return i.databaseValue }
            return double(d).databaseValue
        case let .url(u): return u.absoluteString.databaseValue
        }
    }

    /// The 16 raw bytes of a UUID.
    static func uuidData(_ u: UUID) -> Data {
        withUnsafeBytes(of: u.uuid) { Data($0) }
    }
}
