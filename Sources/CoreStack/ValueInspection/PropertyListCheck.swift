import Foundation

/// Checks a property list before Foundation parses it, for what could make a parser recurse
/// without bound or read outside the bytes: a binary property list's trailer and offset table,
/// references out of range, reference cycles and nesting deeper than ``maximumNesting``; an XML
/// property list's nesting of `<array>` and `<dict>`. Sets (marker `0xC`) and dictionary keys
/// that are not strings are refused too: no encoder writes them, and swift-corelibs-foundation
/// crashes bridging them to Swift (found by `corestack-fuzz values`).
///
/// ```swift
/// PropertyListCheck.binaryProblem(in: data)  // nil, or "cannot decode: property list, object 3: …"
/// ```
enum PropertyListCheck {
    /// The deepest nesting handed to Foundation's parsers.
    static let maximumNesting = 512

    private static func error(_ location: String, _ reason: String) -> ValueInspectionError {
        ValueInspectionError(what: "property list", location: location, reason: reason)
    }

    /// What is wrong with a `bplist00`'s structure, or nil when Foundation may parse it.
    static func binaryProblem(in data: Data) -> ValueInspectionError? {
        let b = ByteReader(data)
        let n = b.count
        guard n >= 8 + 32 + 1 else { return error("trailer", "\(n) bytes, too short for a binary property list") }
        func big(_ at: Int, _ size: Int) -> Int? {
            guard size >= 1, size <= 8, at >= 0, at + size <= n else { return nil }
            var v: UInt64 = 0
            for i in 0..<size { v = v << 8 | UInt64(b.u8(at + i) ?? 0) }
            return v > UInt64(Int.max) ? nil : Int(v)
        }
        let t = n - 32
        guard let offsetSize = b.u8(t + 6), let refSize = b.u8(t + 7), (1...8).contains(offsetSize), (1...8).contains(refSize),
            let count = big(t + 8, 8), let top = big(t + 16, 8), let table = big(t + 24, 8)
        else { return error("trailer", "damaged (integer sizes or counts out of range)") }
        guard count >= 1, count <= n, top < count else { return error("trailer", "\(count) objects, top object \(top)") }
        guard table >= 8, table <= t, count <= (t - table) / offsetSize else {
            return error("offset table", "\(count) offsets of \(offsetSize) bytes at \(table) do not fit in \(n) bytes")
        }
        // Each object's children (arrays, sets, dictionaries), checked to be in range.
        var children: [[Int]] = Array(repeating: [], count: count)
        var markers: [Int] = Array(repeating: 0, count: count)
        var dictionaries: [Int] = []
        for i in 0..<count {
            guard let offset = big(table + i * offsetSize, offsetSize), offset >= 8, offset < table else {
                return error("object \(i)", "its offset is outside the objects")
            }
            guard let marker = b.u8(offset) else { return error("object \(i)", "truncated") }
            markers[i] = marker
            let kind = marker >> 4
            if kind == 0xB || kind == 0xC { return error("object \(i)", "a set, which property lists do not hold") }
            guard kind == 0xA || kind == 0xD else { continue }
            if kind == 0xD { dictionaries.append(i) }
            var length = marker & 0x0F
            var at = offset + 1
            if length == 0x0F {
                guard let intMarker = b.u8(at), intMarker >> 4 == 1, let v = big(at + 1, 1 << (intMarker & 0x0F)) else {
                    return error("object \(i)", "a damaged count")
                }
                length = v
                at += 1 + (1 << (intMarker & 0x0F))
            }
            let refs = kind == 0xD ? length * 2 : length
            guard length <= n, refs <= (table - at) / refSize else {
                return error("object \(i)", "declares \(length) elements, more than the bytes hold")
            }
            var list: [Int] = []
            list.reserveCapacity(refs)
            for r in 0..<refs {
                guard let ref = big(at + r * refSize, refSize), ref < count else {
                    return error("object \(i)", "element \(r) refers to an object out of range")
                }
                list.append(ref)
            }
            children[i] = list
        }
        for d in dictionaries {
            let keys = children[d].prefix(children[d].count / 2)
            if let bad = keys.first(where: { markers[$0] >> 4 != 0x5 && markers[$0] >> 4 != 0x6 }) {
                return error("object \(d)", "a dictionary key (object \(bad)) that is not a string")
            }
        }
        // Depth from the top object, iteratively, with cycle detection (white, grey, black).
        var depth = [Int](repeating: -1, count: count)  // -1 unseen, -2 on the path, ≥ 0 done
        var stack: [(node: Int, next: Int)] = [(top, 0)]
        depth[top] = -2
        while let (node, next) = stack.last {
            if next < children[node].count {
                stack[stack.count - 1].next += 1
                let child = children[node][next]
                if depth[child] == -2 { return error("object \(child)", "a reference cycle (it contains itself)") }
                if depth[child] == -1 {
                    depth[child] = -2
                    stack.append((child, 0))
                    if stack.count > maximumNesting { return error("object \(child)", "nested deeper than \(maximumNesting) levels") }
                }
            } else {
                depth[node] = 1 + (children[node].map { depth[$0] }.max() ?? 0)
                if depth[node] > maximumNesting { return error("object \(node)", "nested deeper than \(maximumNesting) levels") }
                stack.removeLast()
            }
        }
        return nil
    }

    /// Whether an XML property list nests `<array>` and `<dict>` deeper than ``maximumNesting``.
    static func xmlProblem(in data: Data) -> ValueInspectionError? {
        var depth = 0
        var i = data.startIndex
        let end = data.endIndex
        func at(_ j: Int, _ s: String) -> Bool { data[j...].starts(with: s.utf8) }
        while i < end {
            if data[i] == UInt8(ascii: "<") {
                if at(i, "<array>") || at(i, "<dict>") {
                    depth += 1
                    if depth > maximumNesting {
                        return error("byte \(i - data.startIndex)", "<array> and <dict> nested deeper than \(maximumNesting) levels")
                    }
                } else if at(i, "</array>") || at(i, "</dict>") {
                    depth -= 1
                }
            }
            i += 1
        }
        return nil
    }
}
