import Foundation

/// A one-line description of a value Core Data archived into a binary or transformable attribute:
/// an `NSKeyedArchiver` archive (what the default and secure-unarchive transformers write), read
/// without instantiating any class. Says the root object's class and, for simple roots, what it
/// holds: a string, a number, a date, the size of a collection, or the string and number fields
/// of an app's own class.
///
/// Reading stops at the root's own fields (no graph is walked), so a large or hostile archive
/// costs one property-list parse; anything that is not an archive gives nil.
///
/// ```swift
/// ArchivedValueSummary.summary(of: coverData)  // "CoreDataPlus_Tests.Cover {text: \"Cover Graphic Novel\"}"
/// ArchivedValueSummary.summary(of: jpegData)   // nil
/// ```
public enum ArchivedValueSummary: Sendable {
    /// The summary of `data`, at most `maxLength` characters (cut with `…`), or nil when `data`
    /// is not a keyed archive.
    public static func summary(of data: Data, maxLength: Int = 80) -> String? {
        // Cheap test first: a binary or XML property list. Images and other blobs stop here.
        guard data.starts(with: Array("bplist00".utf8)) || data.starts(with: Array("<?xml".utf8)) else { return nil }
        guard let archive = try? KeyedArchive(plist: data, source: "value"),
            let text = try? describeRoot(archive)
        else { return nil }
        guard text.count > maxLength, maxLength > 1 else { return text }
        return String(text.prefix(maxLength - 1)) + "…"
    }

    private static func describeRoot(_ archive: KeyedArchive) throws -> String {
        let index = archive.root()
        let raw = try archive.object(index, "$top.root")
        if let inline = inlineValue(raw) { return inline }
        let className = try archive.className(of: index)
        let fields = try archive.fields(index)
        switch className {
        case "NSString", "NSMutableString":
            return "\(className) \(quoted(try archive.string(at: index, "$top.root")))"
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet":
            let n = (fields["NS.objects"] as? [Any])?.count ?? 0
            return "\(className) (\(n) element\(n == 1 ? "" : "s"))"
        case "NSDictionary", "NSMutableDictionary":
            let n = (fields["NS.keys"] as? [Any])?.count ?? 0
            return "\(className) (\(n) entr\(n == 1 ? "y" : "ies"))"
        case "NSDate":
            guard let t = number(fields["NS.time"]) else { return className }
            let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(secondsFromGMT: 0) ?? .gmt)
            return "\(className) \(Date(timeIntervalSinceReferenceDate: t).formatted(style))"
        case "NSURL":
            return try archive.string(index, "NS.relative").map { "\(className) \($0)" } ?? className
        case "NSData", "NSMutableData":
            return className
        default:
            var parts: [String] = []
            for key in fields.keys.sorted() where !key.hasPrefix("$") {
                guard let value = fields[key] else { continue }
                if let inline = inlineValue(value) {
                    parts.append("\(key): \(inline)")
                } else if let ref = KeyedArchive.uid(value) {
                    guard ref != 0 else {
                        parts.append("\(key): nil")
                        continue
                    }
                    let target = try archive.object(ref, "$top.root.\(key)")
                    if let s = target as? String {
                        parts.append("\(key): \(quoted(s))")
                    } else if let cls = try? archive.className(of: ref) {
                        parts.append("\(key): \(cls)")
                    }
                }
                if parts.count == 6 { break }
            }
            return parts.isEmpty ? className : "\(className) {\(parts.joined(separator: ", "))}"
        }
    }

    /// A value stored inline in an archive (numbers and booleans; strings are objects of their own).
    private static func inlineValue(_ value: Any) -> String? {
        switch value {
        case let i as Int: return String(i)
        case let d as Double: return String(d)
        case let b as Bool: return b ? "true" : "false"
        case let s as String: return quoted(s)
        default: return nil
        }
    }

    private static func number(_ value: Any?) -> Double? {
        switch value {
        case let d as Double: d
        case let i as Int: Double(i)
        default: nil
        }
    }

    private static func quoted(_ s: String) -> String {
        let clipped = s.count > 60 ? String(s.prefix(59)) + "…" : s
        return clipped.debugDescription
    }
}
