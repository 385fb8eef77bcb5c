import Foundation

/// What ``ValueInspector`` found in the bytes of a binary or transformable value: the format,
/// the decoded tree (for archives, property lists, JSON, text and UUIDs), or why a value that
/// looked like a format could not be decoded.
///
/// ```swift
/// let archive = try NSKeyedArchiver.archivedData(withRootObject: NSArray(array: [1, 2, 3]), requiringSecureCoding: false)
/// let inspection = ValueInspector.inspect(archive)
/// inspection.format   // .keyedArchive
/// inspection.summary  // "archive NSArray · 3 items"
/// ```
public struct ValueInspection: Sendable, Equatable {
    /// The number of bytes inspected.
    public var byteCount: Int
    /// What the bytes are.
    public var format: ValueFormat
    /// The decoded tree (nil for images, unknown binary, and failures).
    public var value: InspectedValue?
    /// Why the bytes, which look like ``format``, could not be decoded (nil on success).
    public var failure: ValueInspectionError?
    /// The first bytes (at most 16), for the summary of unknown binary.
    public var head: [UInt8]

    /// Creates an inspection result.
    public init(
        byteCount: Int, format: ValueFormat, value: InspectedValue? = nil, failure: ValueInspectionError? = nil, head: [UInt8] = []
    ) {
        self.byteCount = byteCount
        self.head = Array(head.prefix(16))
        self.format = format
        self.value = value
        self.failure = failure
    }

    /// One line for a table cell or the detail pane: `archive NSArray · 3 items`, `JPEG 120×90`,
    /// `plist dict · 12 keys`, `JSON array · 40`, `text · 120 chars`, `zlib → plist dict · 3 keys`,
    /// `cannot decode: …`, or for unknown bytes their size and first bytes in hex.
    public var summary: String {
        if let failure { return failure.description }
        switch format {
        case .empty: return "0 bytes"
        case .keyedArchive: return "archive " + (value.map { Self.archiveSummary($0) } ?? "")
        case let .propertyList(binary):
            return (binary ? "plist " : "XML plist ") + (value.map { Self.plainSummary($0, dictionary: "dict") } ?? "")
        case .json: return "JSON " + (value.map { Self.plainSummary($0, dictionary: "object") } ?? "")
        case let .text(encoding):
            guard case let .string(s)? = value else { return "text" }
            let n = s.count
            return (encoding == "UTF-8" ? "text" : "\(encoding) text") + " · \(n) char\(n == 1 ? "" : "s") · " + Self.quoted(s, 40)
        case .uuid:
            guard case let .uuid(u)? = value else { return "UUID" }
            return "UUID " + u.uuidString
        case let .compressed(method, inner): return "\(method) → " + inner.summary
        case let .image(image): return image.summary
        case .binary:
            let hex = head.map { String(format: "%02X", $0) }.joined(separator: " ")
            return Self.byteCount(byteCount) + " · " + hex + (byteCount > head.count ? " …" : "")
        }
    }

    /// `3 bytes`.
    static func byteCount(_ n: Int) -> String { n == 1 ? "1 byte" : "\(n) bytes" }

    static func count(_ n: Int, _ noun: String) -> String {
        n == 1 ? "1 \(noun)" : "\(n) \(noun)s"
    }

    /// A string in quotes, cut to `max` characters, escapes shown.
    static func quoted(_ s: String, _ max: Int) -> String {
        var line = ""
        for c in s.prefix(max) {
            switch c {
            case "\n", "\r\n", "\r": line += "⏎"
            case "\t": line += "⇥"
            default: line.append(c)
            }
        }
        return "\"" + line + (s.count > max ? "…" : "") + "\""
    }

    /// The root of a property list or JSON document in a few words.
    static func plainSummary(_ value: InspectedValue, dictionary: String) -> String {
        switch value {
        case .array: "array · \(value.declaredCount)"
        case .dictionary: "\(dictionary) · " + count(value.declaredCount, "key")
        default: scalar(value)
        }
    }

    /// The root of a keyed archive: its class and what it holds.
    static func archiveSummary(_ value: InspectedValue) -> String {
        switch value {
        case let .array(className, _): "\(className ?? "NSArray") · " + count(value.declaredCount, "item")
        case let .dictionary(className, _): "\(className ?? "NSDictionary") · " + count(value.declaredCount, "key")
        case .string: "NSString · " + scalar(value)
        case .integer, .real, .bool: "NSNumber · " + scalar(value)
        case .date: "NSDate · " + scalar(value)
        case let .data(d): "NSData · " + byteCount(d.count)
        case .uuid: "NSUUID · " + scalar(value)
        case .url: "NSURL · " + scalar(value)
        case .null: "NSNull"
        case let .object(o):
            if let d = o.description { "\(o.className) · \(d)" } else {
                o.fields.isEmpty ? o.className : "\(o.className) · " + o.fields.prefix(4).map { "\($0.name): \(scalar($0.value))" }.joined(separator: ", ")
            }
        case let .reference(index, className): "\(className) (object \(index))"
        case let .elided(why): why
        case .truncated: scalar(value)
        }
    }

    /// A value in a few words: scalars in full (strings quoted and cut), containers by their size.
    static func scalar(_ value: InspectedValue) -> String {
        switch value {
        case .null: "null"
        case let .bool(b): b ? "true" : "false"
        case let .integer(i): String(i)
        case let .real(d): String(d)
        case let .string(s): quoted(s, 40)
        case let .date(d): d.formatted(isoStyle)
        case let .data(d): byteCount(d.count)
        case let .uuid(u): u.uuidString
        case let .url(u): u
        case let .array(c, _): "\(c ?? "array") · \(value.declaredCount)"
        case let .dictionary(c, _): "\(c ?? "dict") · " + count(value.declaredCount, "key")
        case let .object(o): o.description.map { "\(o.className) \($0)" } ?? o.className
        case let .reference(index, className): "→ \(className) (object \(index))"
        case let .elided(why): "… (\(why))"
        case let .truncated(remaining, limit): "… (\(remaining) more: more than \(limit) values)"
        }
    }

    /// ISO 8601 in UTC with milliseconds.
    static let isoStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(secondsFromGMT: 0) ?? .gmt)
}
