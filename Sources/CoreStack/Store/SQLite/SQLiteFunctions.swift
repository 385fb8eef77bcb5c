import Foundation
import GRDB

/// The SQL functions CoreStack registers on every connection.
///
/// - `cs_match(op, value, pattern, options)`: the predicate string operators through
///   ``StringMatching`` so SQL and in-memory evaluation agree exactly. `op` is one of
///   `beginswith`, `endswith`, `contains`, `like`, `matches`, `equals`; NULL when `value` is NULL.
/// - `cs_fold(value, options)`: ``StringMatching/fold(_:options:)`` for sorting and ordering
///   comparisons with `[c]`/`[d]`.
/// - `cs_real(bits)`: the REAL whose IEEE-754 bits are the integer `bits`, and `cs_blob(hex)`: the
///   BLOB of a hexadecimal string; long `IN` lists bound as JSON (``SQLiteJSONList``) read their
///   REALs and BLOBs back exactly through them.
/// - `NSCoreDataDATriggerUpdatedAffectedObjectValue`, `NSCoreDataDATriggerInsertUpdatedAffectedObjectValue`:
///   no-ops, so writes to tables with Core Data's derived-attribute triggers succeed.
enum SQLiteFunctions {
    static func register(in db: Database) {
        db.add(function: match)
        db.add(function: fold)
        db.add(function: real)
        db.add(function: blob)
        for name in ["NSCoreDataDATriggerUpdatedAffectedObjectValue", "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue"] {
            db.add(function: DatabaseFunction(name, argumentCount: nil, pure: false) { _ in nil })
        }
    }

    private static func text(_ v: DatabaseValue) -> String? {
        switch v.storage {
        case let .string(s): s
        case let .int64(i): String(i)
        case let .double(d): String(d)
        case let .blob(b): String(data: b, encoding: .utf8)
        case .null: nil
        }
    }

    private static func options(_ v: DatabaseValue) -> Comparison.Options {
        if case let .int64(i) = v.storage { return Comparison.Options(rawValue: Int(i)) }
        return []
    }

    static let match = DatabaseFunction("cs_match", argumentCount: 4, pure: true) { args in
        guard let op = text(args[0]), let value = text(args[1]), let pattern = text(args[2]) else { return nil }
        let o = options(args[3])
        let result: Bool
        switch op {
        case "beginswith": result = StringMatching.beginsWith(value, pattern, options: o)
        case "endswith": result = StringMatching.endsWith(value, pattern, options: o)
        case "contains": result = StringMatching.contains(value, pattern, options: o)
        case "like": result = StringMatching.like(pattern, value, options: o)
        case "matches": result = StringMatching.matches(pattern, value, options: o)
        default: result = StringMatching.equals(value, pattern, options: o)
        }
        return result ? 1 : 0
    }

    static let fold = DatabaseFunction("cs_fold", argumentCount: 2, pure: true) { args in
        guard let value = text(args[0]) else { return nil }
        return StringMatching.fold(value, options: options(args[1]))
    }

    static let real = DatabaseFunction("cs_real", argumentCount: 1, pure: true) { args in
        guard case let .int64(bits) = args[0].storage else { return nil }
        return Double(bitPattern: UInt64(bitPattern: bits))
    }

    static let blob = DatabaseFunction("cs_blob", argumentCount: 1, pure: true) { args in
        guard case let .string(hex) = args[0].storage else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(hex.utf8.count / 2)
        var high: UInt8?
        for c in hex.utf8 {
            let n: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): n = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): n = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): n = c - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let h = high {
                bytes.append(h << 4 | n)
                high = nil
            } else {
                high = n
            }
        }
        guard high == nil else { return nil }
        return Data(bytes)
    }
}
