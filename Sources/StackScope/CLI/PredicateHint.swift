import CoreStack
import Foundation

/// Finds, in a predicate typed on the command line or in the browser's filter, a UUID or Date
/// attribute compared with a string that spells a UUID or an ISO 8601 date: the predicate format
/// has no literal for either, so such a predicate can never match. Says how to write it instead
/// (`CAST("…", "UUID")`, `CAST(seconds, "NSDate")`), with the value converted.
///
/// ```swift
/// try PredicateHint.check(try Predicate(format: "uniqueID == \"3AF36E86-52CC-45E2-A6CB-9CB6C9C45306\""), entity: book)
/// // throws StackScopeError.predicateNeedsCast(key: "uniqueID", type: "UUID", value: "3AF3…", cast: "CAST(\"3AF3…\", \"UUID\")")
/// ```
enum PredicateHint {
    /// Throws ``StackScopeError/predicateNeedsCast(key:type:value:cast:)`` for the first such
    /// comparison in `predicate` (evaluated on `entity`); does nothing otherwise.
    static func check(_ predicate: CoreStack.Predicate, entity: EntityDescription) throws {
        switch predicate {
        case .constant: return
        case let .and(ps), let .or(ps): for p in ps { try check(p, entity: entity) }
        case let .not(p): try check(p, entity: entity)
        case let .comparison(c):
            guard case let .keyPath(key) = c.left, let attribute = attribute(at: key, from: entity) else { return }
            for s in strings(in: c.right) {
                if let cast = cast(s, to: attribute.type) {
                    throw StackScopeError.predicateNeedsCast(key: key, type: attribute.type.xcodeName, value: s, cast: cast)
                }
            }
        }
    }

    /// The attribute a key path ends on, through relationships (nil for aggregates, variables,
    /// relationships and unknown keys: the predicate's own checks speak for those).
    static func attribute(at key: String, from entity: EntityDescription) -> AttributeDescription? {
        let steps = key.split(separator: ".").map(String.init)
        var current = entity
        for (i, step) in steps.enumerated() {
            if i == steps.count - 1 { return current.attribute(named: step) }
            guard let next = current.destinationEntity(ofRelationship: step) else { return nil }
            current = next
        }
        return nil
    }

    /// The string constants of an expression (a constant or a list of them).
    static func strings(in expression: CoreStack.Expression) -> [String] {
        switch expression {
        case let .constant(.string(s)): [s]
        case let .list(items): items.flatMap { strings(in: $0) }
        default: []
        }
    }

    /// The CAST that says what `s` means for an attribute of `type`, when it spells one.
    static func cast(_ s: String, to type: AttributeType) -> String? {
        switch type {
        case .uuid:
            return UUID(uuidString: s).map { "CAST(\"\($0.uuidString)\", \"UUID\")" }
        case .date:
            guard let date = isoDate(s) else { return nil }
            // To the millisecond, as the text gave it (the parse leaves 06.85 as 06.8499999…).
            let seconds = (date.timeIntervalSinceReferenceDate * 1000).rounded() / 1000
            let text = seconds == seconds.rounded() ? String(Int64(seconds)) : String(seconds)
            return "CAST(\(text), \"NSDate\")"
        default:
            return nil
        }
    }

    /// An ISO 8601 date, with or without time and fractional seconds (a date alone is midnight UTC).
    static func isoDate(_ s: String) -> Date? {
        let options: [ISO8601DateFormatter.Options] = [
            [.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime], [.withFullDate],
        ]
        for o in options {
            let f = ISO8601DateFormatter()
            f.formatOptions = o
            if let d = f.date(from: s) { return d }
        }
        return nil
    }
}
