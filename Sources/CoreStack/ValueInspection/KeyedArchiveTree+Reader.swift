import Foundation

// A keyed archive read from a binary property list in place: its `$objects` decoded one object
// at a time as the tree reaches them (what makes a 10 MB archive's first screen cheap).
extension KeyedArchiveTree {
    /// The keyed archive `plist` holds, or nil when its top is no keyed archive's dictionary
    /// (a plain property list, read by Foundation as before).
    ///
    /// ```swift
    /// var tree = try KeyedArchiveTree(reader: BinaryPropertyListReader(data), limits: ValueInspectionLimits())
    /// let root = try tree?.root()
    /// ```
    init?(reader plist: BinaryPropertyListReader, limits: ValueInspectionLimits) throws(ValueInspectionError) {
        let (kind, refs) = try plist.references(plist.topObject)
        guard kind == 0xD else { return nil }
        let half = refs.count / 2
        var fields: [String: Int] = [:]
        for i in 0..<half {
            guard let key = try plist.object(refs[i], nesting: 1) as? String else {
                throw BinaryPropertyListReader.error("object \(plist.topObject)", "a dictionary key (object \(refs[i])) that is not a string")
            }
            fields[key] = refs[half + i]
        }
        guard let archiver = fields["$archiver"], (try? plist.object(archiver, nesting: 0)) as? String == "NSKeyedArchiver" else {
            return nil
        }
        var top: [String: Any] = ["$archiver": "NSKeyedArchiver"]
        if let tops = fields["$top"] { top["$top"] = try plist.object(tops, nesting: 2) }
        // $objects: the object numbers only.
        let table: [Int]
        if let objects = fields["$objects"] {
            let (objectsKind, list) = try plist.references(objects)
            guard objectsKind == 0xA else { throw Self.error("$objects", "missing or not an array") }
            table = list
        } else {
            throw Self.error("$objects", "missing or not an array")
        }
        top["$objects"] = [Any]()
        try self.init(top: top, limits: limits, objects: ArchiveObjectTable(plist, references: table))
    }
}
