import Foundation
import GRDB

/// Orders match-key values the way SQLite's `ORDER BY` does with the BINARY collation, so the
/// merge walk of ``StoreDiff`` agrees with the order the rows arrive in: NULL, then numbers
/// (integers and reals by value), then text (by UTF-8 bytes), then blobs (by bytes).
enum StoreDiffKeyOrder {
    /// -1, 0 or 1 as `a` sorts before, with, or after `b`.
    static func compare(_ a: DatabaseValue, _ b: DatabaseValue) -> Int {
        let ra = rank(a), rb = rank(b)
        if ra != rb { return ra < rb ? -1 : 1 }
        switch (a.storage, b.storage) {
        case (.null, .null): return 0
        case let (.int64(x), .int64(y)): return x < y ? -1 : (x == y ? 0 : 1)
        case let (.int64(x), .double(y)): return compare(Double(x), y)
        case let (.double(x), .int64(y)): return compare(x, Double(y))
        case let (.double(x), .double(y)): return compare(x, y)
        case let (.string(x), .string(y)): return bytes(Array(x.utf8), Array(y.utf8))
        case let (.blob(x), .blob(y)): return bytes(Array(x), Array(y))
        default: return 0
        }
    }

    private static func rank(_ v: DatabaseValue) -> Int {
        switch v.storage {
        case .null: 0
        case .int64, .double: 1
        case .string: 2
        case .blob: 3
        }
    }

    private static func compare(_ x: Double, _ y: Double) -> Int { x < y ? -1 : (x == y ? 0 : 1) }

    private static func bytes(_ x: [UInt8], _ y: [UInt8]) -> Int {
        for (p, q) in zip(x, y) where p != q { return p < q ? -1 : 1 }
        return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
    }
}
