import CoreStack
import Foundation

/// How the browser writes attribute values: table cells on one line, detail values in full.
/// Dates are ISO 8601 in local time (to the millisecond when they have a fraction of a second), decimals exact, binary as
/// what it holds in one line (`ValueInspection/summary`: `archive NSArray · 3 items`,
/// `JPEG 120×90`, `plist dict · 12 keys`, else its size and first bytes in hex); files
/// written by `:export` get ``exported(_:)`` instead (dates in UTC to the millisecond, binary in base64).
///
/// ```swift
/// ValueFormatter.cell(.string("a\nb"))          // "a⏎b"
/// ValueFormatter.detail(.data(Data([1, 2])))     // "2 bytes · 01 02"
/// ValueFormatter.cell(.data(jpeg))               // "JPEG 120×90"
/// ```
public enum ValueFormatter {
    static let dateStyle = Date.ISO8601FormatStyle(timeZone: .current)
    static let fractionalDateStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .current)

    /// One line for a table cell: newlines and tabs shown as symbols, binary as its size.
    public static func cell(_ value: AttributeValue) -> String {
        switch value {
        case let .string(s):
            var out = ""
            out.reserveCapacity(s.utf8.count)
            for c in s {
                switch c {
                case "\n", "\r\n", "\r": out += "⏎"
                case "\t": out += "⇥"
                default: out.append(c)
                }
            }
            return out
        case let .data(d):
            if let uuid = SQLiteExternalBinaryData.missingReference(d) { return "missing external data " + uuid }
            return ValueInspector.summary(of: d, decodingAtMost: cellDecodeLimit)
        default: return detail(value)
        }
    }

    /// The value in full, for the detail pane and exports.
    public static func detail(_ value: AttributeValue) -> String {
        switch value {
        case .null: return "nil"
        case let .integer(i): return String(i)
        case let .double(d): return d.isFinite && d == d.rounded() && abs(d) < 1e15 ? String(format: "%.1f", d) : String(d)
        case let .string(s): return s
        case let .bool(b): return b ? "true" : "false"
        case let .date(d):
            // Core Data timestamps (`Date()` when saved) carry fractions of a second: shown to the
            // millisecond, so rows a second apart and rows a millisecond apart look different.
            guard let (rounded, whole) = toMillisecond(d) else { return d.formatted(dateStyle) }
            return rounded.formatted(whole ? dateStyle : fractionalDateStyle)
        case let .data(d):
            // An external value whose file is not in the store's support folder.
            if let uuid = SQLiteExternalBinaryData.missingReference(d) { return "missing external data " + uuid }
            // What the bytes hold (an archive, a property list, an image…); unknown bytes give
            // their size and first bytes, which already start with the size.
            let summary = ValueInspector.summary(of: d, decodingAtMost: detailDecodeLimit)
            return summary.hasPrefix(byteCount(d.count)) ? summary : byteCount(d.count) + " · " + summary
        case let .uuid(u): return u.uuidString
        case let .decimal(d): return NSDecimalNumber(decimal: d).description(withLocale: Locale(identifier: "en_US_POSIX"))
        case let .url(u): return u.absoluteString
        }
    }

    /// The value in full and without loss, for files (`:export`): dates in ISO 8601 UTC to the
    /// millisecond (as `stackscope dump` writes them), binary data in base64; the rest as
    /// ``detail(_:)`` writes it. An empty string for nil.
    ///
    /// ```swift
    /// ValueFormatter.exported(.date(Date(timeIntervalSinceReferenceDate: 0.25)))  // "2001-01-01T00:00:00.250Z"
    /// ValueFormatter.exported(.data(Data([1, 2])))                                // "AQI="
    /// ```
    public static func exported(_ value: AttributeValue) -> String {
        switch value {
        case .null: return ""
        case let .date(d): return (toMillisecond(d)?.date ?? d).formatted(exportDates)
        case let .data(d): return d.base64EncodedString()
        default: return detail(value)
        }
    }

    /// ISO 8601 in UTC with milliseconds, as `stackscope dump` writes dates.
    static let exportDates = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(secondsFromGMT: 0) ?? .gmt)

    /// The date rounded to the nearest millisecond, nudged a tenth of one up (the ISO 8601 style
    /// truncates, and 06.874 is 06.8739999… as a Double), and whether it is a whole second; nil
    /// for a date too far out to round.
    static func toMillisecond(_ d: Date) -> (date: Date, whole: Bool)? {
        let ms = (d.timeIntervalSinceReferenceDate * 1000).rounded()
        guard ms.isFinite, abs(ms) < 1e15 else { return nil }
        let whole = ms.truncatingRemainder(dividingBy: 1000) == 0
        return (Date(timeIntervalSinceReferenceDate: ms / 1000 + (whole ? 0 : 0.0001)), whole)
    }

    /// The largest value a table cell decodes (a row at a time, every frame); larger ones show
    /// their format from the first bytes and their size.
    static let cellDecodeLimit = 256 << 10

    /// The largest value the detail pane decodes each time the selection moves to its object
    /// (the value inspector, on Enter, decodes any size).
    static let detailDecodeLimit = 4 << 20

    static func byteCount(_ n: Int) -> String { n == 1 ? "1 byte" : "\(n) bytes" }

    /// The type's name as the model editor shows it.
    public static func typeName(_ type: AttributeType) -> String { type.xcodeName }

    /// Whether values of the type line up on the right (numbers).
    public static func isNumeric(_ type: AttributeType) -> Bool {
        switch type {
        case .integer16, .integer32, .integer64, .decimal, .double, .float: true
        default: false
        }
    }

    /// A short name for an object: its `name` or `title` attribute (or the first string attribute
    /// with a value), else its entity and primary key.
    public static func displayName(of object: ManagedObject) -> String {
        let e = object.entity
        let preferred = ["name", "title", "displayName", "label"]
        for key in preferred where e.attribute(named: key) != nil {
            if let v = try? object.attributeValue(forKey: key), case let .string(s) = v, !s.isEmpty { return cell(.string(s)) }
        }
        for a in e.allAttributes where a.type == .string {
            if let v = try? object.attributeValue(forKey: a.name), case let .string(s) = v, !s.isEmpty { return cell(.string(s)) }
        }
        return "\(e.name) \(object.objectID.uriRepresentation().lastPathComponent)"
    }
}
