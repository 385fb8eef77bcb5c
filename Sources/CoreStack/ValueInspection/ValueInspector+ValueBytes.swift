import Foundation

extension ValueInspector {
    /// The largest value ``inspect(reading:decodingAtMost:)`` reads whole and decodes by default: 16 MiB.
    public static let defaultDecodedSize = 16 << 20

    /// How many first bytes of a larger value are read to say what it is (an image's header;
    /// HEIF's `ispe` box is looked for in the first 256 KiB).
    static let sniffedPrefix = 256 << 10

    /// What `bytes` hold, reading no more than needed: a value of at most `limit` bytes is read
    /// whole and decoded as ``inspect(_:limits:)`` does; a larger one only by its first 256 KiB,
    /// which give an image's format and size, or the format its first bytes announce (with a
    /// failure saying it was not decoded), or unknown bytes: a 100 MB value is never loaded whole.
    ///
    /// ```swift
    /// let inspection = try ValueInspector.inspect(reading: blob)   // blob: any ValueBytes
    /// inspection.summary  // "archive NSArray · 3 items", or "104857600 bytes · 00 00 …"
    /// ```
    /// - Throws: what `bytes` throw when they cannot be read.
    public static func inspect(reading bytes: any ValueBytes, decodingAtMost limit: Int = defaultDecodedSize) throws -> ValueInspection {
        if bytes.count <= limit {
            var limits = ValueInspectionLimits()
            limits.maximumDecodedInput = min(limits.maximumDecodedInput, max(0, limit))
            return inspect(try bytes.bytes(in: 0..<bytes.count), limits: limits)
        }
        let head = try bytes.prefix(upTo: sniffedPrefix)
        if let image = ImageHeaderReader.image(in: head) {
            return ValueInspection(byteCount: bytes.count, format: .image(image), head: Array(head.prefix(16)))
        }
        let failure = sniff(head).map {
            ValueInspectionError(what: $0, location: "", reason: "\(bytes.count) bytes, more than the \(limit) decoded")
        }
        return ValueInspection(byteCount: bytes.count, format: .binary, failure: failure, head: Array(head.prefix(16)))
    }
}
