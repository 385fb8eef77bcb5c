import Foundation

/// A keyed archive's `$objects` table: the array Foundation parsed, or the object numbers of a
/// ``BinaryPropertyListReader`` decoded one at a time when ``KeyedArchiveTree`` reaches them (and
/// kept), so a tree that shows 2,000 of 250,000 objects decodes 2,000.
///
/// ```swift
/// let table = ArchiveObjectTable(plist, references: refs)
/// table.count  // 250_001
/// table[1]     // ["$class": ArchiveUID(value: 2), "NS.objects": [ArchiveUID(value: 3), …]]
/// ```
final class ArchiveObjectTable: @unchecked Sendable {
    private let parsed: [Any]?
    private let plist: BinaryPropertyListReader?
    private let references: [Int]
    /// Objects decoded so far (only touched on the thread decoding the tree).
    private var decoded: [Int: Any] = [:]

    /// The table Foundation parsed.
    init(_ objects: [Any]) {
        parsed = objects
        plist = nil
        references = []
    }

    /// The objects `references` numbers in `plist`.
    init(_ plist: BinaryPropertyListReader, references: [Int]) {
        parsed = nil
        self.plist = plist
        self.references = references
    }

    var count: Int { parsed?.count ?? references.count }

    /// How many objects were decoded from the property list so far.
    var decodedCount: Int { decoded.count }

    /// Object `index` (in range), or a ``ValueInspectionError`` when its bytes are damaged.
    subscript(index: Int) -> Any {
        if let parsed { return parsed[index] }
        if let known = decoded[index] { return known }
        let value: Any
        do throws(ValueInspectionError) {
            guard let plist else { throw BinaryPropertyListReader.error("$objects[\(index)]", "no table") }
            value = try plist.object(references[index])
        } catch {
            value = error
        }
        decoded[index] = value
        return value
    }
}
