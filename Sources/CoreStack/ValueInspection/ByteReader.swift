import Foundation

/// Bounds-checked reads of fixed-size integers from bytes: every read past the end gives nil.
///
/// ```swift
/// ByteReader(Data([0, 1])).u16be(0)  // 1
/// ```
struct ByteReader {
    private let bytes: Data

    /// Reads `data` in place (no copy; indexes count from its first byte).
    init(_ data: Data) { bytes = data.startIndex == 0 ? data : Data(data) }

    var count: Int { bytes.count }

    func u8(_ at: Int) -> Int? { at >= 0 && at < bytes.count ? Int(bytes[at]) : nil }

    func matches(_ at: Int, _ pattern: [UInt8]) -> Bool {
        guard at >= 0, at + pattern.count <= bytes.count else { return false }
        return bytes[at..<(at + pattern.count)].elementsEqual(pattern)
    }

    func ascii(_ at: Int, _ n: Int) -> String? {
        guard at >= 0, at + n <= bytes.count else { return nil }
        return String(bytes: bytes[at..<(at + n)], encoding: .isoLatin1)
    }

    private func read(_ at: Int, _ n: Int, bigEndian: Bool) -> Int? {
        guard at >= 0, n <= 4, at + n <= bytes.count else { return nil }
        var v = 0
        for i in 0..<n { v |= Int(bytes[at + i]) << (8 * (bigEndian ? n - 1 - i : i)) }
        return v
    }

    func u16be(_ at: Int) -> Int? { read(at, 2, bigEndian: true) }
    func u16le(_ at: Int) -> Int? { read(at, 2, bigEndian: false) }
    func u24le(_ at: Int) -> Int? { read(at, 3, bigEndian: false) }
    func u32be(_ at: Int) -> Int? { read(at, 4, bigEndian: true) }
    func u32le(_ at: Int) -> Int? { read(at, 4, bigEndian: false) }
}
