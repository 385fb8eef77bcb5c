import Foundation

/// A value of a binary property list as `NSKeyedArchiver` writes it, including the `UID` type
/// (`CF$UID` references) that Foundation's `PropertyListSerialization` cannot write from Swift.
///
/// ```swift
/// let data = BinaryPropertyList.dictionary([("$top", .dictionary([("root", .uid(1))]))]).encoded()
/// ```
enum BinaryPropertyList {
    case string(String)
    case integer(Int64)
    case real(Double)
    case bool(Bool)
    case data(Data)
    case uid(Int)
    case array([BinaryPropertyList])
    /// Keys in the order given (written in that order).
    case dictionary([(String, BinaryPropertyList)])

    /// The `bplist00` bytes: objects written depth first, one per value (no sharing), then the
    /// offset table and the trailer.
    func encoded() -> Data {
        var objects: [Data] = []
        // Reserve an index per value, depth first, then fill the bytes in.
        func add(_ value: BinaryPropertyList) -> Int {
            let index = objects.count
            objects.append(Data())
            var bytes = Data()
            switch value {
            case let .string(s):
                if s.allSatisfy(\.isASCII) {
                    bytes = Self.marker(0x5, s.utf8.count)
                    bytes.append(contentsOf: Array(s.utf8))
                } else {
                    let units = Array(s.utf16)
                    bytes = Self.marker(0x6, units.count)
                    for u in units { bytes.append(contentsOf: [UInt8(u >> 8), UInt8(u & 0xFF)]) }
                }
            case let .integer(i):
                bytes = Data([0x13])
                bytes.append(contentsOf: Self.bigEndian(UInt64(bitPattern: i), 8))
            case let .real(d):
                bytes = Data([0x23])
                bytes.append(contentsOf: Self.bigEndian(d.bitPattern, 8))
            case let .bool(b):
                bytes = Data([b ? 0x09 : 0x08])
            case let .data(d):
                bytes = Self.marker(0x4, d.count)
                bytes.append(d)
            case let .uid(n):
                let size = n <= 0xFF ? 1 : (n <= 0xFFFF ? 2 : 4)
                bytes = Data([0x80 | UInt8(size - 1)])
                bytes.append(contentsOf: Self.bigEndian(UInt64(n), size))
            case let .array(items):
                let refs = items.map(add)
                bytes = Self.marker(0xA, refs.count)
                for r in refs { bytes.append(contentsOf: Self.bigEndian(UInt64(r), 4)) }
            case let .dictionary(pairs):
                let keys = pairs.map { add(.string($0.0)) }
                let values = pairs.map { add($0.1) }
                bytes = Self.marker(0xD, pairs.count)
                for r in keys + values { bytes.append(contentsOf: Self.bigEndian(UInt64(r), 4)) }
            }
            objects[index] = bytes
            return index
        }
        let top = add(self)
        var out = Data("bplist00".utf8)
        var offsets: [Int] = []
        for o in objects {
            offsets.append(out.count)
            out.append(o)
        }
        let tableOffset = out.count
        for o in offsets { out.append(contentsOf: Self.bigEndian(UInt64(o), 8)) }
        out.append(contentsOf: [0, 0, 0, 0, 0, 0, 8, 4])  // unused, offset size 8, reference size 4
        out.append(contentsOf: Self.bigEndian(UInt64(objects.count), 8))
        out.append(contentsOf: Self.bigEndian(UInt64(top), 8))
        out.append(contentsOf: Self.bigEndian(UInt64(tableOffset), 8))
        return out
    }

    /// A type nibble with its count (inline below 15, else an integer object after it).
    private static func marker(_ type: UInt8, _ count: Int) -> Data {
        if count < 15 { return Data([type << 4 | UInt8(count)]) }
        var d = Data([type << 4 | 0xF, 0x13])
        d.append(contentsOf: bigEndian(UInt64(count), 8))
        return d
    }

    private static func bigEndian(_ value: UInt64, _ size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}
