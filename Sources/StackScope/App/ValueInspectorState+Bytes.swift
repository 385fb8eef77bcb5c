import CoreStack
import Foundation

// The inspector on a value read a range at a time (SQLite's blob I/O, an external data file):
// only a bounded prefix is decoded, the hex dump reads the rows on screen, a search reads chunks.
extension ValueInspectorState {
    /// How many bytes a hex search reads at a time.
    static let searchChunk = 1 << 20

    /// The inspector on a stored value: decoded whole when it is at most
    /// `ValueInspector/defaultDecodedSize`, else by its first bytes only; an external data
    /// file's path is shown after the summary.
    ///
    /// ```swift
    /// let value = try store.storedValue(of: id, attribute: "image")!
    /// let inspector = try ValueInspectorState(title: "Photo.image", value: value)
    /// ```
    /// - Throws: what the value's bytes throw when they cannot be read.
    public init(title: String, value: SQLiteStoredValue, source: (objectID: ManagedObjectID, key: String)? = nil) throws {
        var location: String?
        if case let .externalFile(url) = value.location { location = url.path }
        try self.init(title: title, bytes: value.bytes, location: location, source: source)
    }

    /// The inspector on `bytes` (see ``init(title:value:source:)``).
    public init(title: String, bytes: any ValueBytes, location: String? = nil, source: (objectID: ManagedObjectID, key: String)? = nil) throws {
        let decoded: Data
        let inspection: ValueInspection
        let budget: Int
        if bytes.count <= ValueInspector.defaultDecodedSize {
            decoded = try bytes.bytes(in: 0..<bytes.count)
            (inspection, budget) = Self.firstInspection(decoded)
        } else {
            decoded = try bytes.prefix(upTo: 256 << 10)
            inspection = try ValueInspector.inspect(reading: bytes)
            budget = ValueInspectionLimits().maximumNodes
        }
        self.init(title: title, bytes: bytes, decoded: decoded, inspection: inspection, budget: budget, location: location, source: source)
    }

    /// `count` rows of the hex dump from row `start`, read from ``bytes`` (16 bytes a row).
    func hexLines(from start: Int, count: Int) -> [String] {
        let lower = start * 16
        guard lower < bytes.count else { return [] }
        do {
            let chunk = try bytes.bytes(in: lower..<min(bytes.count, lower + count * 16))
            return InspectedValueText.hexDump(chunk, base: lower)
        } catch {
            return ["cannot read the bytes at \(lower): \(error)"]
        }
    }

    /// The hex row where `needle` next starts after the first row shown (before it, `forward`
    /// false), wrapping around; read a chunk at a time.
    func findBytes(_ needle: Data, forward: Bool) -> Int? {
        let total = bytes.count
        guard !needle.isEmpty, needle.count <= total else { return nil }
        let here = min(total, offset * 16)
        // Forward: after the first row shown, then from the start; backward: before it, then from the end.
        let spans: [Range<Int>] = forward
            ? [min(total, here + 16)..<total, 0..<min(total, here + needle.count)]
            : [0..<min(total, here + needle.count - 1), 0..<total]
        for span in spans {
            if let hit = search(needle, in: span, forward: forward) { return hit / 16 }
        }
        return nil
    }

    /// The first (last, `forward` false) position in `span` where `needle` starts, reading chunks
    /// that overlap by the needle's length less one.
    private func search(_ needle: Data, in span: Range<Int>, forward: Bool) -> Int? {
        guard span.count >= needle.count else { return nil }
        let step = max(Self.searchChunk, needle.count * 2)
        var cursor = forward ? span.lowerBound : span.upperBound
        while forward ? cursor < span.upperBound : cursor > span.lowerBound {
            let range = forward
                ? cursor..<min(span.upperBound, cursor + step)
                : max(span.lowerBound, cursor - step)..<cursor
            guard let chunk = try? bytes.bytes(in: range), chunk.count >= needle.count else { return nil }
            if let hit = chunk.range(of: needle, options: forward ? [] : .backwards) {
                return range.lowerBound + (hit.lowerBound - chunk.startIndex)
            }
            // The next chunk starts needle.count - 1 bytes back, so a match across the seam is found.
            cursor = forward ? range.upperBound - (needle.count - 1) : range.lowerBound + (needle.count - 1)
            if forward ? range.upperBound >= span.upperBound : range.lowerBound <= span.lowerBound { break }
        }
        return nil
    }
}
