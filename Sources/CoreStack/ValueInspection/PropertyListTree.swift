import Foundation

/// Turns the objects Foundation's `PropertyListSerialization` and `JSONSerialization` hand back
/// (`[String: Any]`, `[Any]`, strings, numbers, dates, data) into ``InspectedValue`` nodes,
/// depth and size bounded.
///
/// ```swift
/// var tree = PropertyListTree(limits: ValueInspectionLimits())
/// tree.value(["a": 1] as [String: Any], depth: 0)  // .dictionary(className: nil, entries: [a: 1])
/// ```
struct PropertyListTree {
    let limits: ValueInspectionLimits
    /// Nodes made so far (against ``ValueInspectionLimits/maximumNodes``).
    var nodes = 0

    init(limits: ValueInspectionLimits) { self.limits = limits }

    /// The node for `raw`; containers below ``ValueInspectionLimits/maximumDepth`` or past the
    /// node budget become ``InspectedValue/elided(_:)``.
    mutating func value(_ raw: Any, depth: Int) -> InspectedValue {
        nodes += 1
        if let scalar = Self.scalar(raw) { return scalar }
        if let list = raw as? [Any] {
            guard depth < limits.maximumDepth else { return .elided("deeper than \(limits.maximumDepth) levels") }
            var items: [InspectedValue] = []
            for (i, item) in list.enumerated() {
                guard nodes < limits.maximumNodes else {
                    items.append(.truncated(remaining: list.count - i, limit: limits.maximumNodes))
                    break
                }
                items.append(value(item, depth: depth + 1))
            }
            return .array(className: nil, items: items)
        }
        if let dict = raw as? [String: Any] {
            guard depth < limits.maximumDepth else { return .elided("deeper than \(limits.maximumDepth) levels") }
            var entries: [InspectedEntry] = []
            let keys = dict.keys.sorted()
            for (i, key) in keys.enumerated() {
                guard nodes < limits.maximumNodes else {
                    entries.append(InspectedEntry(key: .string("…"), value: .truncated(remaining: keys.count - i, limit: limits.maximumNodes)))
                    break
                }
                guard let v = dict[key] else { continue }
                entries.append(InspectedEntry(key: .string(key), value: value(v, depth: depth + 1)))
            }
            return .dictionary(className: nil, entries: entries)
        }
        if raw is NSNull { return .null }
        if let n = KeyedArchive.uid(raw) { return .string("CF$UID \(n)") }
        return .string(String(describing: raw))
    }

    /// A property list's scalar: a string, a boolean, a number, a date or data (nil otherwise).
    ///
    /// Booleans first and by their type: on Linux an `NSNumber` 1 also converts to `Bool`.
    static func scalar(_ raw: Any) -> InspectedValue? {
        switch raw {
        case let s as String: return .string(s)
        case let d as Date: return .date(d)
        case let d as Data: return .data(d)
        default: break
        }
        // Property lists hand booleans back as `Bool`, JSON as an `__NSCFBoolean`; an `NSNumber`
        // 1 also casts to `Bool`, so the type decides, not the cast.
        if type(of: raw) == Bool.self, let b = raw as? Bool { return .bool(b) }
        if let n = raw as? NSNumber {
            if String(describing: type(of: raw)).contains("Boolean") { return .bool(n.boolValue) }
            switch String(cString: n.objCType) {
            case "d", "f": return .real(n.doubleValue)
            case "Q" where n.uint64Value > UInt64(Int.max): return .real(n.doubleValue)
            default: return .integer(n.intValue)
            }
        }
        if let i = raw as? Int { return .integer(i) }
        if let d = raw as? Double { return .real(d) }
        return nil
    }
}
