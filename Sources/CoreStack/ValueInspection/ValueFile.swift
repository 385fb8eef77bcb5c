import Foundation

/// A file's bytes read on demand (``ValueBytes``): what an external binary data value of a store
/// holds (`.<Store>_SUPPORT/_EXTERNAL_DATA/<UUID>`). Each read opens the file, seeks and reads
/// the range, so a 100 MB file is never loaded whole.
///
/// ```swift
/// let file = try ValueFile(url: folder.appendingPathComponent(uuid))
/// file.count                    // 104857600
/// try file.bytes(in: 0..<16)    // the first row of its hex dump
/// ```
public struct ValueFile: ValueBytes, Hashable {
    /// The file read.
    public let url: URL
    /// Its size when it was opened.
    public let count: Int

    /// The file at `url`, with its size.
    ///
    /// - Throws: ``ValueReadError`` naming the file when it is missing, not a regular file,
    ///   or cannot be read.
    public init(url: URL) throws {
        self.url = url
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
            throw ValueReadError(what: "external data", path: url.path, reason: "the file is missing")
        }
        guard !isFolder.boolValue, let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber else {
            throw ValueReadError(what: "external data", path: url.path, reason: "not a regular file that can be read")
        }
        count = size.intValue
    }

    /// The bytes in `range`, clamped to the file's size when it was opened.
    ///
    /// - Throws: ``ValueReadError`` when the file cannot be opened or read any more.
    public func bytes(in range: Range<Int>) throws -> Data {
        let lower = min(max(0, range.lowerBound), count)
        let upper = min(max(lower, range.upperBound), count)
        guard upper > lower else { return Data() }
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            try handle.seek(toOffset: UInt64(lower))
            return try handle.read(upToCount: upper - lower) ?? Data()
        } catch {
            throw ValueReadError(what: "external data", path: url.path, reason: "cannot be read: \(error.localizedDescription)")
        }
    }
}
