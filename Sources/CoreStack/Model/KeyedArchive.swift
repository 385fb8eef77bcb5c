import Foundation

/// A read-only view of an `NSKeyedArchiver` archive: the flat `$objects` table of a property list,
/// whose objects point at each other with `CF$UID` references.
///
/// Foundation's `PropertyListSerialization` reads the binary property list; this type follows the
/// references on demand, one object and key at a time, and never resolves the graph recursively,
/// so cycles (an entity points to its model, which points back to the entity) cost nothing and a
/// hostile archive cannot make it loop. Every lookup that fails throws ``ModelArchiveError`` with
/// the object's index and key.
///
/// ```swift
/// let archive = try KeyedArchive(plist: data, source: "Model.mom")
/// let root = try archive.root()
/// try archive.className(of: root) // "NSManagedObjectModel"
/// ```
struct KeyedArchive {
    /// Where the archive came from, for errors.
    let source: String
    private let objects: [Any]
    /// The index in `$objects` of `$top.root`.
    let rootIndex: Int

    /// Reads an archive from the bytes of a property list (binary or XML).
    init(plist data: Data, source: String) throws {
        self.source = source
        let decoded: Any
        do {
            decoded = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw ModelArchiveError(
                source: source, location: "property list", reason: "not a property list (\(data.count) bytes)")
        }
        guard let top = decoded as? [String: Any] else {
            throw ModelArchiveError(source: source, location: "property list", reason: "the top level is not a dictionary")
        }
        guard (top["$archiver"] as? String) == "NSKeyedArchiver" else {
            throw ModelArchiveError(source: source, location: "$archiver", reason: "not an NSKeyedArchiver archive")
        }
        guard let objects = top["$objects"] as? [Any] else {
            throw ModelArchiveError(source: source, location: "$objects", reason: "missing or not an array")
        }
        guard let tops = top["$top"] as? [String: Any], let rootRef = tops["root"], let root = Self.uid(rootRef) else {
            throw ModelArchiveError(source: source, location: "$top.root", reason: "missing or not a reference")
        }
        guard root > 0, root < objects.count else {
            throw ModelArchiveError(
                source: source, location: "$top.root", reason: "refers to object \(root) of \(objects.count)")
        }
        self.objects = objects
        self.rootIndex = root
    }

    /// The root object's index.
    func root() -> Int { rootIndex }

    // MARK: - References

    /// The object number of a `CF$UID` reference, or nil when `value` is not one.
    ///
    /// Foundation hands references back as an opaque class (`_NSKeyedArchiverUID` in
    /// swift-corelibs-foundation, `CFKeyedArchiverUID` on Apple platforms) with no public
    /// accessor; its number is its `value` field, read by reflection, else from its description
    /// (`{value = 12}`). An XML plist written by hand may spell it `{"CF$UID": 12}`.
    static func uid(_ value: Any) -> Int? {
        if let uid = value as? ArchiveUID { return uid.value }
        if let dict = value as? [String: Any], dict.count == 1, let n = dict["CF$UID"] as? Int { return n }
        let typeName = String(describing: type(of: value))
        guard typeName.contains("KeyedArchiverUID") else { return nil }
        for child in Mirror(reflecting: value).children where child.label == "value" {
            if let n = child.value as? UInt32 { return Int(n) }
            if let n = child.value as? Int { return n }
            if let n = child.value as? UInt64, n <= UInt64(Int32.max) { return Int(n) }
        }
        let text = String(describing: value)
        if let range = text.range(of: "value = ") {
            let digits = text[range.upperBound...].prefix { $0.isNumber }
            return Int(digits)
        }
        return nil
    }

    /// The raw object at `index` (a string, a number, a dictionary of fields…).
    func object(_ index: Int, _ location: @autoclosure () -> String) throws -> Any {
        guard index >= 0, index < objects.count else {
            throw ModelArchiveError(
                source: source, location: location(), reason: "refers to object \(index) of \(objects.count)")
        }
        return objects[index]
    }

    /// The fields of the class instance at `index`.
    func fields(_ index: Int) throws -> [String: Any] {
        let raw = try object(index, "$objects[\(index)]")
        guard let dict = raw as? [String: Any] else {
            throw ModelArchiveError(source: source, location: "$objects[\(index)]", reason: "expected an object, found \(Self.kind(raw))")
        }
        return dict
    }

    /// The class name (`$classname` of its `$class`) of the object at `index`.
    func className(of index: Int) throws -> String {
        let f = try fields(index)
        guard let ref = f["$class"].flatMap(Self.uid) else {
            throw ModelArchiveError(source: source, location: "$objects[\(index)].$class", reason: "missing or not a reference")
        }
        let cls = try fields(ref)
        guard let name = cls["$classname"] as? String else {
            throw ModelArchiveError(source: source, location: "$objects[\(ref)].$classname", reason: "missing or not a string")
        }
        return name
    }

    /// The object number `key` of the object at `index` refers to; nil when the key is absent or
    /// holds `$null` (reference 0).
    func reference(_ index: Int, _ key: String) throws -> Int? {
        guard let value = try fields(index)[key] else { return nil }
        guard let ref = Self.uid(value) else {
            throw ModelArchiveError(source: source, location: "$objects[\(index)].\(key)", reason: "expected a reference, found \(Self.kind(value))")
        }
        guard ref != 0 else { return nil }
        _ = try object(ref, "$objects[\(index)].\(key)")
        return ref
    }

    /// A string value: the object at `index` as a string (`NSString`, or `NSMutableString` with `NS.string`).
    func string(at index: Int, _ location: @autoclosure () -> String) throws -> String {
        let raw = try object(index, location())
        if let s = raw as? String { return s }
        if let dict = raw as? [String: Any], let s = dict["NS.string"] as? String { return s }
        throw ModelArchiveError(source: source, location: location(), reason: "expected a string, found \(Self.kind(raw))")
    }

    /// The string `key` of the object at `index` refers to (nil when absent or `$null`).
    func string(_ index: Int, _ key: String) throws -> String? {
        guard let ref = try reference(index, key) else { return nil }
        return try string(at: ref, "$objects[\(index)].\(key)")
    }

    /// An integer stored inline in the fields of the object at `index` (nil when absent).
    func integer(_ index: Int, _ key: String) throws -> Int? {
        guard let value = try fields(index)[key] else { return nil }
        if let n = value as? Int { return n }
        if let b = value as? Bool { return b ? 1 : 0 }
        if let n = value as? NSNumber { return n.intValue }
        throw ModelArchiveError(source: source, location: "$objects[\(index)].\(key)", reason: "expected an integer, found \(Self.kind(value))")
    }

    /// A boolean stored inline in the fields of the object at `index` (false when absent).
    func bool(_ index: Int, _ key: String) throws -> Bool {
        guard let value = try fields(index)[key] else { return false }
        if let b = value as? Bool { return b }
        if let n = value as? Int { return n != 0 }
        throw ModelArchiveError(source: source, location: "$objects[\(index)].\(key)", reason: "expected a boolean, found \(Self.kind(value))")
    }

    // MARK: - Collections

    /// The elements of the array or set at `index` (`NS.objects`), as object numbers.
    func elements(of index: Int, _ location: @autoclosure () -> String) throws -> [Int] {
        let f = try fields(index)
        guard let list = f["NS.objects"] as? [Any] else {
            throw ModelArchiveError(source: source, location: location(), reason: "expected an array or a set")
        }
        return try list.enumerated().map { i, v in
            guard let ref = Self.uid(v) else {
                throw ModelArchiveError(source: source, location: "\(location())[\(i)]", reason: "expected a reference")
            }
            _ = try object(ref, "\(location())[\(i)]")
            return ref
        }
    }

    /// The entries of the dictionary at `index`, as object numbers, in archive order. Reads
    /// `NSDictionary` (`NS.keys`, `NS.objects`) and Core Data's `NSKnownKeysDictionary1`
    /// (`searchMapping.keys` and `values`).
    func entries(of index: Int, _ location: @autoclosure () -> String) throws -> [(key: Int, value: Int)] {
        let f = try fields(index)
        if f["NS.keys"] != nil {
            guard let keys = f["NS.keys"] as? [Any], let values = f["NS.objects"] as? [Any], keys.count == values.count else {
                throw ModelArchiveError(source: source, location: location(), reason: "NS.keys and NS.objects differ in length")
            }
            return try zip(keys, values).enumerated().map { i, pair in
                guard let k = Self.uid(pair.0), let v = Self.uid(pair.1) else {
                    throw ModelArchiveError(source: source, location: "\(location())[\(i)]", reason: "expected references")
                }
                _ = try object(k, "\(location()).NS.keys[\(i)]")
                _ = try object(v, "\(location()).NS.objects[\(i)]")
                return (k, v)
            }
        }
        if let valuesRef = try reference(index, "values") {
            let values = try elements(of: valuesRef, "\(location()).values")
            guard let mapping = try reference(index, "searchMapping"), let keysRef = try reference(mapping, "keys") else {
                throw ModelArchiveError(source: source, location: "\(location()).searchMapping", reason: "missing")
            }
            let keys = try elements(of: keysRef, "\(location()).searchMapping.keys")
            guard keys.count == values.count else {
                throw ModelArchiveError(source: source, location: location(), reason: "\(keys.count) keys for \(values.count) values")
            }
            return Array(zip(keys, values)).map { (key: $0.0, value: $0.1) }
        }
        throw ModelArchiveError(source: source, location: location(), reason: "expected a dictionary")
    }

    /// A short name of a value's kind, for errors.
    static func kind(_ value: Any) -> String {
        switch value {
        case is String: "a string"
        case is Bool: "a boolean"
        case is Int, is Double, is NSNumber: "a number"
        case is Data: "data"
        case is [Any]: "an array"
        case is [String: Any]: "a dictionary"
        default: uid(value) != nil ? "a reference" : "\(type(of: value))"
        }
    }
}
