import Foundation

/// Decodes an `NSKeyedArchiver` archive into an ``InspectedValue`` tree without instantiating any
/// class: the `$objects` table is walked from `$top.root`, Foundation's classes are read from
/// the keys their `encode(with:)` writes, any other class shows its class chain and its fields.
///
/// An object met a second time (shared, or a cycle) becomes a ``InspectedValue/reference(index:className:)``;
/// depth and node count are bounded by ``ValueInspectionLimits``; a reference out of range, a
/// missing `$class` or a wrong type throws ``ValueInspectionError`` naming the object and key.
///
/// ```swift
/// var tree = try KeyedArchiveTree(top: plist, limits: ValueInspectionLimits())
/// let root = try tree.root()  // .array(className: "NSArray", items: […])
/// ```
struct KeyedArchiveTree {
    let objects: ArchiveObjectTable
    let rootReference: Any
    let limits: ValueInspectionLimits
    private var nodes = 0
    private var shown: Set<Int> = []

    /// Whether a property list's top level is a keyed archive.
    static func isArchive(_ top: Any) -> Bool {
        (top as? [String: Any])?["$archiver"] as? String == "NSKeyedArchiver"
    }

    /// Reads the table of a keyed archive's top-level dictionary.
    init(top: Any, limits: ValueInspectionLimits, objects table: ArchiveObjectTable? = nil) throws(ValueInspectionError) {
        guard let dict = top as? [String: Any] else { throw Self.error("", "the top level is not a dictionary") }
        guard let objects = dict["$objects"] as? [Any] else { throw Self.error("$objects", "missing or not an array") }
        guard let tops = dict["$top"] as? [String: Any] else { throw Self.error("$top", "missing or not a dictionary") }
        guard let root = tops["root"] ?? tops.sorted(by: { $0.key < $1.key }).first?.value else {
            throw Self.error("$top", "has no root object")
        }
        self.objects = table ?? ArchiveObjectTable(objects)
        self.rootReference = root
        self.limits = limits
    }

    /// The decoded root object.
    mutating func root() throws(ValueInspectionError) -> InspectedValue {
        try value(rootReference, at: "$top.root", depth: 0)
    }

    static func error(_ location: String, _ reason: String) -> ValueInspectionError {
        ValueInspectionError(what: "keyed archive", location: location, reason: reason)
    }

    // MARK: - Values

    /// A field's value: an inline scalar, or a reference followed to its object.
    mutating func value(_ raw: Any, at location: String, depth: Int) throws(ValueInspectionError) -> InspectedValue {
        guard let ref = KeyedArchive.uid(raw) else {
            nodes += 1
            if let scalar = PropertyListTree.scalar(raw) { return scalar }
            if let list = raw as? [Any] {
                // An inline array of references (NS.objects) outside a known class.
                return try .array(className: nil, items: items(list, at: location, depth: depth))
            }
            throw Self.error(location, "unexpected \(KeyedArchive.kind(raw))")
        }
        return try object(ref, at: location, depth: depth)
    }

    private mutating func items(_ list: [Any], at location: String, depth: Int) throws(ValueInspectionError) -> [InspectedValue] {
        guard depth < limits.maximumDepth else { return [.elided("deeper than \(limits.maximumDepth) levels")] }
        var out: [InspectedValue] = []
        for (i, raw) in list.enumerated() {
            guard nodes < limits.maximumNodes else {
                out.append(.truncated(remaining: list.count - i, limit: limits.maximumNodes))
                break
            }
            out.append(try value(raw, at: "\(location)[\(i)]", depth: depth + 1))
        }
        return out
    }

    /// The object number `ref`, decoded.
    private mutating func object(_ ref: Int, at location: String, depth: Int) throws(ValueInspectionError) -> InspectedValue {
        nodes += 1
        guard ref != 0 else { return .null }  // $null
        guard ref > 0, ref < objects.count else { throw Self.error(location, "refers to object \(ref) of \(objects.count)") }
        let raw = objects[ref]
        if let damage = raw as? ValueInspectionError { throw damage }
        guard let fields = raw as? [String: Any] else {
            if let scalar = PropertyListTree.scalar(raw) { return scalar }
            if KeyedArchive.uid(raw) != nil { throw Self.error("$objects[\(ref)]", "a reference to a reference") }
            throw Self.error("$objects[\(ref)]", "unexpected \(KeyedArchive.kind(raw))")
        }
        let here = "$objects[\(ref)]"
        let (className, chain) = try classOf(fields, at: here)
        func has(_ names: String...) -> Bool { names.contains { chain.contains($0) } }

        // Values with no references of their own (or only to strings): always shown in place.
        if has("NSString") { return .string(try string(fields, at: here)) }
        if has("NSDate"), let t = scalar(fields, "NS.time") {
            if case let .real(s) = t { return .date(Date(timeIntervalSinceReferenceDate: s)) }
            if case let .integer(s) = t { return .date(Date(timeIntervalSinceReferenceDate: Double(s))) }
        }
        if has("NSData") {
            guard let d = fields["NS.data"] ?? fields["NS.bytes"] else { return .data(Data()) }
            if let bytes = d as? Data { return .data(bytes) }
            if let r = KeyedArchive.uid(d), r > 0, r < objects.count, let bytes = objects[r] as? Data { return .data(bytes) }
            throw Self.error("\(here).NS.data", "expected data, found \(KeyedArchive.kind(d))")
        }
        if has("NSUUID"), let bytes = fields["NS.uuidbytes"] as? Data {
            guard bytes.count == 16 else { throw Self.error("\(here).NS.uuidbytes", "\(bytes.count) bytes, not 16") }
            return .uuid(Self.uuid(bytes))
        }
        if has("NSNull") { return .null }
        if has("NSURL") {
            let relative = try optionalString(fields, "NS.relative", at: here) ?? ""
            let base = try optionalString(fields, "NS.base", at: here)
            if let base, let url = URL(string: relative, relativeTo: URL(string: base)) { return .url(url.absoluteString) }
            return .url(relative)
        }

        // Everything else can refer to other objects: shown once, then by reference.
        guard !shown.contains(ref) else { return .reference(index: ref, className: className) }
        guard depth < limits.maximumDepth else { return .elided("deeper than \(limits.maximumDepth) levels") }
        shown.insert(ref)

        if has("NSArray", "NSSet", "NSOrderedSet") {
            if let list = fields["NS.objects"] as? [Any] {
                return try .array(className: className, items: items(list, at: "\(here).NS.objects", depth: depth))
            }
            guard fields["NS.objects"] == nil else { throw Self.error("\(here).NS.objects", "not an array") }
            // swift-corelibs-foundation writes ordered sets as NS.object.0, NS.object.1, …
            var list: [Any] = []
            while list.count < fields.count, let next = fields["NS.object.\(list.count)"] { list.append(next) }
            return try .array(className: className, items: items(list, at: "\(here).NS.object", depth: depth))
        }
        if has("NSDictionary") {
            let keys = (fields["NS.keys"] as? [Any]) ?? []
            let values = (fields["NS.objects"] as? [Any]) ?? []
            guard keys.count == values.count else {
                throw Self.error(here, "\(keys.count) keys (NS.keys) for \(values.count) values (NS.objects)")
            }
            var entries: [InspectedEntry] = []
            for i in keys.indices {
                guard nodes < limits.maximumNodes else {
                    entries.append(InspectedEntry(key: .string("…"), value: .truncated(remaining: keys.count - i, limit: limits.maximumNodes)))
                    break
                }
                let k = try value(keys[i], at: "\(here).NS.keys[\(i)]", depth: depth + 1)
                let v = try value(values[i], at: "\(here).NS.objects[\(i)]", depth: depth + 1)
                entries.append(InspectedEntry(key: k, value: v))
            }
            return .dictionary(className: className, entries: entries)
        }
        if let known = try foundationValue(fields, at: here, chain: chain, depth: depth) {
            return .object(InspectedObject(index: ref, className: className, classChain: chain, description: known.description, fields: known.fields))
        }
        // Any other class: its fields, by name.
        var out: [InspectedField] = []
        let keys = fields.keys.sorted().filter { $0 != "$class" }
        for (i, key) in keys.enumerated() {
            guard nodes < limits.maximumNodes else {
                out.append(InspectedField(name: "…", value: .truncated(remaining: keys.count - i, limit: limits.maximumNodes)))
                break
            }
            guard let raw = fields[key] else { continue }
            out.append(InspectedField(name: key, value: try value(raw, at: "\(here).\(key)", depth: depth + 1)))
        }
        return .object(InspectedObject(index: ref, className: className, classChain: chain, description: nil, fields: out))
    }

    /// The class name and chain (`$classes`) of an object's `$class`.
    private func classOf(_ fields: [String: Any], at location: String) throws(ValueInspectionError) -> (String, [String]) {
        guard let raw = fields["$class"], let ref = KeyedArchive.uid(raw) else {
            throw Self.error("\(location).$class", "missing or not a reference")
        }
        guard ref > 0, ref < objects.count, let cls = objects[ref] as? [String: Any] else {
            throw Self.error("\(location).$class", "refers to object \(ref), not a class")
        }
        guard let name = cls["$classname"] as? String else {
            throw Self.error("$objects[\(ref)].$classname", "missing or not a string")
        }
        let chain = (cls["$classes"] as? [Any])?.compactMap { $0 as? String } ?? []
        return (name, chain.isEmpty ? [name] : chain)
    }

    // MARK: - Helpers for Foundation classes

    /// An `NSString` or `NSMutableString` object's text (`NS.string`, or UTF-8 `NS.bytes`).
    private func string(_ fields: [String: Any], at location: String) throws(ValueInspectionError) -> String {
        if let s = fields["NS.string"] as? String { return s }
        if let d = fields["NS.bytes"] as? Data, let s = String(data: d, encoding: .utf8) { return s }
        throw Self.error(location, "a string object with neither NS.string nor UTF-8 NS.bytes")
    }

    /// The string a key refers to (nil when absent or `$null`).
    func optionalString(_ fields: [String: Any], _ key: String, at location: String) throws(ValueInspectionError) -> String? {
        guard let raw = fields[key] else { return nil }
        if let s = raw as? String { return s }
        guard let ref = KeyedArchive.uid(raw) else { throw Self.error("\(location).\(key)", "expected a string, found \(KeyedArchive.kind(raw))") }
        guard ref != 0 else { return nil }
        guard ref > 0, ref < objects.count else { throw Self.error("\(location).\(key)", "refers to object \(ref) of \(objects.count)") }
        if let s = objects[ref] as? String { return s }
        if let f = objects[ref] as? [String: Any] { return try string(f, at: "$objects[\(ref)]") }
        throw Self.error("\(location).\(key)", "expected a string, found \(KeyedArchive.kind(objects[ref]))")
    }

    /// The scalar a key holds inline or refers to (an `NSNumber` encoded as an object), nil
    /// when absent or not a scalar.
    func scalar(_ fields: [String: Any], _ key: String) -> InspectedValue? {
        guard let raw = fields[key] else { return nil }
        guard let ref = KeyedArchive.uid(raw) else { return PropertyListTree.scalar(raw) }
        guard ref > 0, ref < objects.count else { return nil }
        return PropertyListTree.scalar(objects[ref])
    }

    /// The data a key holds inline or refers to (nil when absent).
    func optionalData(_ fields: [String: Any], _ key: String) -> Data? {
        guard let raw = fields[key] else { return nil }
        if let d = raw as? Data { return d }
        guard let ref = KeyedArchive.uid(raw), ref > 0, ref < objects.count else { return nil }
        if let d = objects[ref] as? Data { return d }
        if let f = objects[ref] as? [String: Any], let d = f["NS.data"] as? Data { return d }
        return nil
    }

    /// The value a key refers to, decoded (for the parts of Foundation values: attribute runs).
    mutating func decoded(_ fields: [String: Any], _ key: String, at location: String, depth: Int) throws(ValueInspectionError) -> InspectedValue? {
        guard let raw = fields[key] else { return nil }
        return try value(raw, at: "\(location).\(key)", depth: depth + 1)
    }

    static func uuid(_ bytes: Data) -> UUID {
        let b = Array(bytes)
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }
}
