import Foundation
import GRDB

/// The values of a long `IN` list bound as a few JSON arrays, one `?` each, read back with
/// `json_each`: `key IN (SELECT value FROM json_each(?))`. A list of any length then costs one
/// SQL variable and one node of SQLite's expression tree, where one `?` per value runs into
/// SQLite's limits ("too many SQL variables", "Expression tree is too large").
///
/// The values come already encoded as the store binds them (``DatabaseValue``), and come back
/// from SQLite bit for bit:
/// - integers and text are JSON integers and strings, which `json_each` returns as they are;
/// - REALs (doubles, dates, decimals stored as REAL) are their IEEE-754 bits as a JSON integer,
///   turned back by `cs_real` (JSON's decimal text would go through SQLite's own number parser);
/// - BLOBs (UUIDs, binary data, text holding NUL) are hexadecimal strings, turned back by `cs_blob`.
///
/// ```swift
/// let list = SQLiteJSONList([1.databaseValue, 2.5.databaseValue, "x".databaseValue])
/// list.sources { $0 }
/// // [("SELECT value FROM json_each(?)", "[1,\"x\"]"),
/// //  ("SELECT cs_real(value) FROM json_each(?)", "[4612811918334230528]")]
/// ```
struct SQLiteJSONList {
    /// Integers and text.
    private(set) var plain: [DatabaseValue] = []
    /// REALs.
    private(set) var reals: [Double] = []
    /// BLOBs.
    private(set) var blobs: [Data] = []

    /// Sorts `values` by storage class; NULLs are left out (`IN` never matches them).
    init(_ values: [DatabaseValue]) {
        for v in values {
            switch v.storage {
            case .int64, .string: plain.append(v)
            case let .double(d): reals.append(d)
            case let .blob(b): blobs.append(b)
            case .null: continue
            }
        }
    }

    /// One `SELECT … FROM json_each(?)` per storage class present, with the JSON text to bind;
    /// `wrap` turns the SQL of each value into the expression compared (`cs_fold(…)` for `[c]`).
    func sources(_ wrap: (String) -> String) -> [(sql: String, json: String)] {
        var out: [(sql: String, json: String)] = []
        if !plain.isEmpty {
            let json = Self.array(plain) { v, s in
                switch v.storage {
                case let .int64(i): s += String(i)
                case let .string(t): Self.appendString(t, to: &s)
                default: s += "null"
                }
            }
            out.append(("SELECT \(wrap("value")) FROM json_each(?)", json))
        }
        if !reals.isEmpty {
            let json = Self.array(reals) { d, s in s += String(Int64(bitPattern: d.bitPattern)) }
            out.append(("SELECT \(wrap("cs_real(value)")) FROM json_each(?)", json))
        }
        if !blobs.isEmpty {
            let json = Self.array(blobs) { b, s in
                s += "\""
                s += Self.hex(b)
                s += "\""
            }
            out.append(("SELECT \(wrap("cs_blob(value)")) FROM json_each(?)", json))
        }
        return out
    }

    private static func array<T>(_ items: [T], _ append: (T, inout String) -> Void) -> String {
        var s = "["
        s.reserveCapacity(items.count * 8)
        for (i, item) in items.enumerated() {
            if i > 0 { s += "," }
            append(item, &s)
        }
        s += "]"
        return s
    }

    /// A JSON string literal: `"` and `\` escaped, control characters as `\u00XX`.
    static func appendString(_ t: String, to s: inout String) {
        s += "\""
        for u in t.unicodeScalars {
            switch u {
            case "\"": s += "\\\""
            case "\\": s += "\\\\"
            case _ where u.value < 0x20:
                let h = String(u.value, radix: 16)
                s += "\\u" + String(repeating: "0", count: 4 - h.count) + h
            default: s.unicodeScalars.append(u)
            }
        }
        s += "\""
    }

    private static let digits = Array("0123456789abcdef".unicodeScalars)

    static func hex(_ data: Data) -> String {
        var s = String.UnicodeScalarView()
        for byte in data {
            s.append(digits[Int(byte >> 4)])
            s.append(digits[Int(byte & 0x0F)])
        }
        return String(s)
    }
}
