import Foundation

/// The bytes of a value, read a range at a time: a value in memory (`Data`), a column of a row
/// read through SQLite's incremental blob I/O (``SQLiteBlob``), or a file (``ValueFile``, an
/// external binary data file). A large value is never loaded whole: the value inspector reads
/// the rows of its hex dump on screen, a bounded prefix to decode, and `stackscope value --raw`
/// streams it in chunks.
///
/// ```swift
/// let bytes: any ValueBytes = Data("bplist00".utf8)
/// bytes.count                      // 8
/// try bytes.bytes(in: 0..<6)       // "bplist"
/// ```
public protocol ValueBytes: Sendable {
    /// How many bytes the value holds.
    var count: Int { get }
    /// The bytes in `range`, clamped to `0..<count` (an empty `Data` past the end).
    ///
    /// - Throws: what the source throws when it cannot be read (a row deleted meanwhile, a file removed).
    func bytes(in range: Range<Int>) throws -> Data
}

/// Bytes in memory are a source of bytes for the inspector.
extension Data: ValueBytes {
    /// The bytes in `range`, clamped to the data, indexed from 0 whatever `startIndex` is.
    ///
    /// ```swift
    /// try Data([1, 2, 3]).bytes(in: 1..<9)  // [2, 3]
    /// ```
    public func bytes(in range: Range<Int>) -> Data {
        let lower = Swift.min(Swift.max(0, range.lowerBound), count)
        let upper = Swift.min(Swift.max(lower, range.upperBound), count)
        return Data(self[(startIndex + lower)..<(startIndex + upper)])
    }
}

extension ValueBytes {
    /// At most the first `limit` bytes.
    ///
    /// ```swift
    /// let head = try blob.prefix(upTo: 16 << 20)
    /// ```
    public func prefix(upTo limit: Int) throws -> Data {
        try bytes(in: 0..<Swift.min(count, Swift.max(0, limit)))
    }

    /// Calls `body` with consecutive chunks of at most `chunkSize` bytes, from the first byte to
    /// the last: a large value streamed with a bounded amount in memory.
    ///
    /// ```swift
    /// try blob.forEachChunk { chunk in FileHandle.standardOutput.write(chunk) }
    /// ```
    public func forEachChunk(size chunkSize: Int = 1 << 20, _ body: (Data) throws -> Void) throws {
        let step = Swift.max(1, chunkSize)
        var at = 0
        while at < count {
            let chunk = try bytes(in: at..<Swift.min(count, at + step))
            if chunk.isEmpty { break }
            try body(chunk)
            at += chunk.count
        }
    }
}
