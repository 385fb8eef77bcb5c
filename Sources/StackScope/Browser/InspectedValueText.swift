import CoreStack
import Foundation

/// A decoded value as text for people and programs: an indented tree (one node a line, the
/// key first), a hex dump, or JSON. Used by `stackscope value` and the browser's inspector.
///
/// ```swift
/// let inspection = ValueInspector.inspect(data)
/// InspectedValueText.tree(inspection)   // ["archive NSArray · 2 items", "[0] \"a\"", "[1] 2"]
/// InspectedValueText.hexDump(data)      // ["00000000  62 70 6c 69 …  |bplist00…|", …]
/// ```
public enum InspectedValueText {
    /// The tree: the summary first, then every node indented two spaces a level.
    public static func tree(_ inspection: ValueInspection) -> [String] {
        treeLines(inspection).lines
    }

    /// ``tree(_:)``, and the number of the first line standing for values a bound of
    /// `ValueInspectionLimits.maximumNodes` left out (nil when none did): the lines before it
    /// are the same whatever the bound.
    ///
    /// ```swift
    /// var limits = ValueInspectionLimits()
    /// limits.maximumNodes = 100
    /// InspectedValueText.treeLines(ValueInspector.inspect(bigArchive, limits: limits)).firstTruncated  // 101
    /// ```
    public static func treeLines(_ inspection: ValueInspection) -> (lines: [String], firstTruncated: Int?) {
        var lines = [inspection.summary]
        var firstTruncated: Int?
        var current = inspection
        while case let .compressed(_, inner) = current.format { current = inner }
        if let value = current.value, value.childCount > 0 || current.format == .keyedArchive {
            append(value, label: nil, indent: 0, into: &lines, firstTruncated: &firstTruncated)
        } else if case let .string(s)? = current.value, current.failure == nil {
            lines += s.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
        return (lines, firstTruncated)
    }

    private static func append(_ value: InspectedValue, label: String?, indent: Int, into lines: inout [String], firstTruncated: inout Int?) {
        let pad = String(repeating: "  ", count: indent)
        let prefix = label.map { "\($0): " } ?? ""
        let n = value.declaredCount
        switch value {
        case let .array(className, items):
            lines.append(pad + prefix + "\(className ?? "array") · \(n) item\(n == 1 ? "" : "s")")
            for (i, item) in items.enumerated() {
                append(item, label: "[\(i)]", indent: indent + 1, into: &lines, firstTruncated: &firstTruncated)
            }
        case let .dictionary(className, entries):
            lines.append(pad + prefix + "\(className ?? "dict") · \(n) key\(n == 1 ? "" : "s")")
            for e in entries {
                let key: String
                if case let .string(s) = e.key { key = s } else { key = line(e.key) }
                append(e.value, label: key, indent: indent + 1, into: &lines, firstTruncated: &firstTruncated)
            }
        case let .object(o):
            var head = o.className
            if let d = o.description { head += " · " + d }
            if o.classChain.count > 1 { head += "  (" + o.classChain.joined(separator: " → ") + ")" }
            lines.append(pad + prefix + head)
            for f in o.fields { append(f.value, label: f.name, indent: indent + 1, into: &lines, firstTruncated: &firstTruncated) }
        case .truncated:
            if firstTruncated == nil { firstTruncated = lines.count }
            lines.append(pad + prefix + line(value))
        default:
            lines.append(pad + prefix + line(value))
        }
    }

    /// A leaf in one line: strings quoted and escaped whole, data by its size and what it holds.
    public static func line(_ value: InspectedValue) -> String {
        switch value {
        case .null: return "null"
        case let .bool(b): return b ? "true" : "false"
        case let .integer(i): return String(i)
        case let .real(d): return String(d)
        case let .string(s): return s.debugDescription
        case let .date(d): return d.formatted(dates)
        case let .data(d): return "data · " + ValueInspector.inspect(d).summary
        case let .uuid(u): return "UUID " + u.uuidString
        case let .url(u): return "URL " + u
        case let .array(c, _): return "\(c ?? "array") · \(value.declaredCount)"
        case let .dictionary(c, _): return "\(c ?? "dict") · \(value.declaredCount)"
        case let .object(o): return o.description.map { "\(o.className) · \($0)" } ?? o.className
        case let .reference(index, className): return "→ \(className) (object \(index), shown above)"
        case let .elided(why): return "… (\(why))"
        case let .truncated(remaining, limit): return "… (\(remaining) more: the tree stops at \(limit) values)"
        }
    }

    static let dates = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(secondsFromGMT: 0) ?? .gmt)

    /// A hex dump: offset, 16 bytes in hex (two groups of 8), the printable ASCII characters.
    ///
    /// ```swift
    /// InspectedValueText.hexDump(Data("AB".utf8))  // ["00000000  41 42                                             |AB|"]
    /// ```
    /// `base` is the offset in the whole value of `data`'s first byte (a range read of a larger
    /// value): the offsets printed start there.
    public static func hexDump(_ data: Data, from offset: Int = 0, lines count: Int = .max, base: Int = 0) -> [String] {
        var lines: [String] = []
        var at = max(0, offset - offset % 16)
        let digits = "0123456789abcdef".map { $0 }
        while at < data.count, lines.count < count {
            let row = data[(data.startIndex + at)..<(data.startIndex + min(at + 16, data.count))]
            var hex = ""
            var chars = ""
            for (i, byte) in row.enumerated() {
                if i == 8 { hex += " " }
                hex.append(digits[Int(byte >> 4)])
                hex.append(digits[Int(byte & 0xF)])
                hex += " "
                chars.append(byte >= 0x20 && byte < 0x7F ? Character(UnicodeScalar(byte)) : ".")
            }
            hex += String(repeating: " ", count: 49 - hex.count)
            let offsetText = String(base + at, radix: 16)
            lines.append(String(repeating: "0", count: max(0, 8 - offsetText.count)) + offsetText + "  " + hex + " |" + chars + "|")
            at += 16
        }
        return lines
    }

    /// The decoded value as JSON: dictionaries with string keys as objects, data in base64,
    /// dates in ISO 8601, archived objects as `{"$class": …, "$classes": […], fields…}`,
    /// references as `{"$ref": N, "$class": …}`; a value with no tree (an image, unknown bytes,
    /// a failure) as its format, size and summary.
    public static func json(_ inspection: ValueInspection) -> JSONValue {
        var current = inspection
        while case let .compressed(_, inner) = current.format { current = inner }
        if let value = current.value, current.failure == nil { return json(value) }
        var fields: [(String, JSONValue)] = [("bytes", .integer(Int64(current.byteCount))), ("summary", .string(inspection.summary))]
        if case let .image(image) = current.format {
            fields.insert(("format", .string(image.format.rawValue)), at: 0)
            if let w = image.width, let h = image.height { fields += [("width", .integer(Int64(w))), ("height", .integer(Int64(h)))] }
        }
        if let failure = inspection.failure ?? current.failure { fields.append(("error", .string(failure.description))) }
        return .object(fields)
    }

    /// One node as JSON.
    public static func json(_ value: InspectedValue) -> JSONValue {
        switch value {
        case .null: return .null
        case let .bool(b): return .bool(b)
        case let .integer(i): return .integer(Int64(i))
        case let .real(d): return .double(d)
        case let .string(s): return .string(s)
        case let .date(d): return .string(d.formatted(dates))
        case let .data(d): return .object([("$data", .string(d.base64EncodedString()))])
        case let .uuid(u): return .string(u.uuidString)
        case let .url(u): return .string(u)
        case let .array(_, items): return .array(items.map(json))
        case let .dictionary(_, entries):
            return .object(entries.map { e in
                if case let .string(k) = e.key { return (k, json(e.value)) }
                return (line(e.key), json(e.value))
            })
        case let .object(o):
            var fields: [(String, JSONValue)] = [("$class", .string(o.className)), ("$classes", .array(o.classChain.map { .string($0) }))]
            if let d = o.description { fields.append(("$description", .string(d))) }
            return .object(fields + o.fields.map { ($0.name, json($0.value)) })
        case let .reference(index, className): return .object([("$ref", .integer(Int64(index))), ("$class", .string(className))])
        case let .elided(why): return .object([("$elided", .string(why))])
        case let .truncated(remaining, limit):
            return .object([("$elided", .string("more than \(limit) values")), ("$remaining", .integer(Int64(remaining)))])
        }
    }
}
