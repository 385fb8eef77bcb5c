import Foundation

/// A `bplist00` read in place, one object at a time: the trailer and the offset table are checked
/// when it is opened (every offset inside the objects), an object is decoded only when asked
/// for, with bounds checks on every byte read, so a 10 MB keyed archive opens without decoding
/// its 250,000 strings, and a damaged object is an error when it is reached.
///
/// Objects come back in the shapes Foundation's `PropertyListSerialization` hands back (`String`,
/// `Int`, `Double`, `Bool`, `Date`, `Data`, `[Any]`, `[String: Any]`), a keyed archive's
/// references as ``ArchiveUID``; nested arrays and dictionaries are decoded at most
/// ``maximumNesting`` deep and ``maximumElements`` elements a call (a reference cycle or a
/// shared sub-tree repeated without end stops there).
///
/// ```swift
/// let plist = try BinaryPropertyListReader(data)
/// let top = try plist.object(plist.topObject, nesting: 1)  // the top dictionary, its values as references
/// ```
struct BinaryPropertyListReader: Sendable {
    /// How deep arrays and dictionaries nested in one object are decoded.
    static let maximumNesting = PropertyListCheck.maximumNesting
    /// The most elements one call decodes.
    static let maximumElements = 1 << 22

    /// The bytes, as an array: reading them one at a time is several times cheaper than through `Data`.
    private let bytes: [UInt8]
    private let offsetSize: Int
    private let refSize: Int
    private let table: Int
    /// The number of objects.
    let count: Int
    /// The top object's number.
    let topObject: Int

    static func error(_ location: String, _ reason: String) -> ValueInspectionError {
        ValueInspectionError(what: "property list", location: location, reason: reason)
    }

    /// Opens `data`, checking its trailer and offset table.
    init(_ data: Data) throws(ValueInspectionError) {
        let raw = [UInt8](data)
        let n = raw.count
        guard n >= 8 + 32 + 1 else { throw Self.error("trailer", "\(n) bytes, too short for a binary property list") }
        let t = n - 32
        let offsetBytes = Int(raw[t + 6]), refBytes = Int(raw[t + 7])
        guard (1...8).contains(offsetBytes), (1...8).contains(refBytes) else {
            throw Self.error("trailer", "damaged (integer sizes or counts out of range)")
        }
        func big(_ at: Int) -> Int? {
            var v: UInt64 = 0
            for i in 0..<8 { v = v << 8 | UInt64(raw[at + i]) }
            return v > UInt64(Int.max) ? nil : Int(v)
        }
        guard let objects = big(t + 8), let top = big(t + 16), let tableAt = big(t + 24) else {
            throw Self.error("trailer", "damaged (integer sizes or counts out of range)")
        }
        guard objects >= 1, objects <= n, top < objects else { throw Self.error("trailer", "\(objects) objects, top object \(top)") }
        guard tableAt >= 8, tableAt <= t, objects <= (t - tableAt) / offsetBytes else {
            throw Self.error("offset table", "\(objects) offsets of \(offsetBytes) bytes at \(tableAt) do not fit in \(n) bytes")
        }
        bytes = raw
        offsetSize = offsetBytes
        refSize = refBytes
        count = objects
        topObject = top
        table = tableAt
        for i in 0..<objects {
            guard let offset = uint(tableAt + i * offsetBytes, offsetBytes), offset >= 8, offset < tableAt else {
                throw Self.error("object \(i)", "its offset is outside the objects")
            }
        }
    }

    /// A big-endian unsigned integer of `size` bytes at `at`, nil past the end or above `Int.max`.
    private func uint(_ at: Int, _ size: Int) -> Int? {
        guard size >= 1, size <= 8, at >= 0, at <= bytes.count - size else { return nil }
        var v: UInt64 = 0
        for i in 0..<size { v = v << 8 | UInt64(bytes[at + i]) }
        return v > UInt64(Int.max) ? nil : Int(v)
    }

    /// Where object `index` starts (checked when the list was opened).
    private func offset(_ index: Int) -> Int { uint(table + index * offsetSize, offsetSize) ?? 0 }

    /// An object's marker, the count its low nibble (or the integer after it) gives, and where
    /// its contents start.
    private func header(_ index: Int) throws(ValueInspectionError) -> (kind: Int, info: Int, length: Int, start: Int) {
        let at = offset(index)
        let marker = Int(bytes[at])
        let kind = marker >> 4, info = marker & 0x0F
        let counted = switch kind {
        case 0x4, 0x5, 0x6, 0xA, 0xB, 0xC, 0xD: true
        default: false
        }
        guard info == 0x0F, counted else { return (kind, info, info, at + 1) }
        guard at + 1 < table else { throw Self.error("object \(index)", "truncated") }
        let intMarker = Int(bytes[at + 1])
        guard intMarker >> 4 == 1, intMarker & 0x0F <= 3, let v = uint(at + 2, 1 << (intMarker & 0x0F)) else {
            throw Self.error("object \(index)", "a damaged count")
        }
        return (kind, info, v, at + 2 + (1 << (intMarker & 0x0F)))
    }

    /// The object numbers an array (or, `dictionary`, a dictionary's keys then values) refers to.
    func references(_ index: Int) throws(ValueInspectionError) -> (kind: Int, refs: [Int]) {
        guard index >= 0, index < count else { throw Self.error("object \(index)", "out of range") }
        let (kind, _, length, start) = try header(index)
        guard kind == 0xA || kind == 0xD else { return (kind, []) }
        let refs = kind == 0xD ? length * 2 : length
        guard length <= bytes.count, refs <= (table - start) / refSize else {
            throw Self.error("object \(index)", "declares \(length) elements, more than the bytes hold")
        }
        var list: [Int] = []
        list.reserveCapacity(refs)
        for r in 0..<refs {
            guard let ref = uint(start + r * refSize, refSize), ref < count else {
                throw Self.error("object \(index)", "element \(r) refers to an object out of range")
            }
            list.append(ref)
        }
        return (kind, list)
    }

    /// Object `index` decoded, its arrays and dictionaries `nesting` levels deep (deeper ones
    /// as references: ``ArchiveUID`` values of their object numbers are never made; they throw).
    func object(_ index: Int, nesting: Int = maximumNesting) throws(ValueInspectionError) -> Any {
        var budget = Self.maximumElements
        return try object(index, nesting: nesting, budget: &budget)
    }

    private func object(_ index: Int, nesting: Int, budget: inout Int) throws(ValueInspectionError) -> Any {
        guard index >= 0, index < count else { throw Self.error("object \(index)", "out of range") }
        let (kind, info, length, start) = try header(index)
        func body(_ size: Int) throws(ValueInspectionError) -> Range<Int> {
            guard size >= 0, start <= table - size else { throw Self.error("object \(index)", "runs past the objects (\(size) bytes)") }
            return start..<(start + size)
        }
        switch kind {
        case 0x0:
            switch info {
            case 0x8: return false
            case 0x9: return true
            default: return NSNull()
            }
        case 0x1:
            guard info <= 4 else { throw Self.error("object \(index)", "an integer of \(1 << info) bytes") }
            let range = try body(1 << info)
            // 16-byte integers: the low 8 bytes.
            let low = info == 4 ? range.lowerBound + 8..<range.upperBound : range
            var v: UInt64 = 0
            for i in low { v = v << 8 | UInt64(bytes[i]) }
            return info >= 3 ? Int(Int64(bitPattern: v)) : Int(v)
        case 0x2:
            guard info == 2 || info == 3 else { throw Self.error("object \(index)", "a real of \(1 << info) bytes") }
            let range = try body(1 << info)
            var v: UInt64 = 0
            for i in range { v = v << 8 | UInt64(bytes[i]) }
            return info == 2 ? Double(Float(bitPattern: UInt32(v))) : Double(bitPattern: v)
        case 0x3:
            let range = try body(8)
            var v: UInt64 = 0
            for i in range { v = v << 8 | UInt64(bytes[i]) }
            return Date(timeIntervalSinceReferenceDate: Double(bitPattern: v))
        case 0x4: return Data(bytes[try body(length)])
        case 0x5: return String(decoding: bytes[try body(length)], as: UTF8.self)
        case 0x6:
            guard length <= bytes.count / 2 else { throw Self.error("object \(index)", "runs past the objects") }
            let range = try body(length * 2)
            var units: [UInt16] = []
            units.reserveCapacity(length)
            for i in stride(from: range.lowerBound, to: range.upperBound, by: 2) { units.append(UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1])) }
            return String(decoding: units, as: UTF16.self)
        case 0x8:
            let range = try body(info + 1)
            guard info < 4, let v = uint(range.lowerBound, info + 1) else { throw Self.error("object \(index)", "a reference of \(info + 1) bytes") }
            return ArchiveUID(value: v)
        case 0xA, 0xD:
            guard nesting > 0 else { throw Self.error("object \(index)", "nested deeper than \(Self.maximumNesting) levels") }
            let refs = try references(index).refs
            budget -= refs.count
            guard budget >= 0 else { throw Self.error("object \(index)", "more than \(Self.maximumElements) elements in one object") }
            if kind == 0xA {
                var out: [Any] = []
                out.reserveCapacity(refs.count)
                for r in refs { out.append(try object(r, nesting: nesting - 1, budget: &budget)) }
                return out
            }
            let half = refs.count / 2
            var out: [String: Any] = [:]
            out.reserveCapacity(half)
            for i in 0..<half {
                guard let key = try object(refs[i], nesting: nesting - 1, budget: &budget) as? String else {
                    throw Self.error("object \(index)", "a dictionary key (object \(refs[i])) that is not a string")
                }
                out[key] = try object(refs[half + i], nesting: nesting - 1, budget: &budget)
            }
            return out
        case 0xB, 0xC: throw Self.error("object \(index)", "a set, which property lists do not hold")
        default: throw Self.error("object \(index)", "an unknown marker \(String(format: "0x%02X", kind << 4 | info))")
        }
    }
}
