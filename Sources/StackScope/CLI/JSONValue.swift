import Foundation

/// A JSON value whose objects keep their keys in the order they were written, so command output is
/// stable and reads in a sensible order (`objectID` before `attributes`).
///
/// ```swift
/// let v: JSONValue = .object([("name", .string("Book")), ("count", .integer(12))])
/// v.rendered() // {\n  "name" : "Book",\n  "count" : 12\n}
/// ```
public indirect enum JSONValue: Equatable, Sendable {
    /// JSON `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer.
    case integer(Int64)
    /// A floating-point number.
    case double(Double)
    /// A number written exactly as given (decimals keep their digits).
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object: its keys and values in the order written.
    case object([(String, JSONValue)])

    /// Whether two values render to the same JSON text (so object key order counts).
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.rendered() == rhs.rendered() }

    /// The value as pretty-printed JSON (two-space indent, no trailing newline).
    public func rendered() -> String {
        var out = ""
        write(into: &out, indent: 0)
        return out
    }

    /// The value pretty-printed as if nested `indent` levels deep (its first line not indented):
    /// for writing the members of a long array one at a time.
    func rendered(indent: Int) -> String {
        var out = ""
        write(into: &out, indent: indent)
        return out
    }

    private func write(into out: inout String, indent: Int) {
        switch self {
        case .null: out += "null"
        case let .bool(b): out += b ? "true" : "false"
        case let .integer(i): out += String(i)
        case let .double(d): out += d.isFinite ? Self.format(d) : "null"
        case let .number(n): out += n
        case let .string(s): Self.writeString(s, into: &out)
        case let .array(items):
            if items.isEmpty { out += "[]"; return }
            out += "[\n"
            for (i, item) in items.enumerated() {
                out += String(repeating: "  ", count: indent + 1)
                item.write(into: &out, indent: indent + 1)
                out += i == items.count - 1 ? "\n" : ",\n"
            }
            out += String(repeating: "  ", count: indent) + "]"
        case let .object(members):
            if members.isEmpty { out += "{}"; return }
            out += "{\n"
            for (i, (key, value)) in members.enumerated() {
                out += String(repeating: "  ", count: indent + 1)
                Self.writeString(key, into: &out)
                out += ": "
                value.write(into: &out, indent: indent + 1)
                out += i == members.count - 1 ? "\n" : ",\n"
            }
            out += String(repeating: "  ", count: indent) + "}"
        }
    }

    /// Shortest round-tripping form; whole numbers keep a `.0` so they read back as doubles.
    private static func format(_ d: Double) -> String {
        let s = "\(d)"
        return s.contains("e") && !s.contains(".") ? s.replacingOccurrences(of: "e", with: ".0e") : s
    }

    private static func writeString(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20:
                let hex = String(c.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
