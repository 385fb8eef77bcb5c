import Foundation

/// Writes an archived `NSPredicate` or `NSExpression` of a model archive (a validation rule, a
/// derived attribute's expression, a fetched property's or a partial index's predicate, an
/// expression element of a fetch index) back in Core Data's predicate format, as text to show.
///
/// The classes and keys are those of Apple's archives (seen in the CoreDataPlus fixtures):
/// `NSComparisonPredicate` (`NSLeftExpression`, `NSRightExpression`, `NSPredicateOperator` with
/// `NSOperatorType`, `NSModifier`, `NSOptions`), `NSCompoundPredicate` (`NSCompoundPredicateType`,
/// `NSSubpredicates`), `NSKeyPathExpression` (`NSOperand`, `NSArguments`),
/// `NSKeyPathSpecifierExpression` (`NSKeyPath`), `NSSelfExpression`, `NSVariableExpression`
/// (`NSVariable`), `NSConstantValueExpression` (`NSConstantValue`), `NSFunctionExpression`
/// (`NSSelectorName`, `NSArguments`). Anything else is written as `<ClassName>`. Never throws:
/// the text is only shown, so a part it cannot read is `<?>`; depth and length are bounded.
///
/// ```swift
/// let text = ArchivedPredicateFormatter(archive: archive).format(index)  // "authorAlias == $FETCH_SOURCE.alias"
/// ```
struct ArchivedPredicateFormatter {
    let archive: KeyedArchive

    /// The deepest nesting followed; deeper parts are `…`.
    static let maximumDepth = 24

    /// The object at `index` in predicate format.
    func format(_ index: Int) -> String {
        var budget = 2_000
        return format(index, depth: 0, budget: &budget)
    }

    private func format(_ index: Int, depth: Int, budget: inout Int) -> String {
        guard depth < Self.maximumDepth, budget > 0 else { return "…" }
        budget -= 1
        guard let raw = try? archive.object(index, "") else { return "<?>" }
        if let s = raw as? String { return quoted(s) }
        // Booleans come back as Swift's Bool, numbers as NSNumber (which would cast to Bool too).
        if type(of: raw) == Bool.self, let b = raw as? Bool { return b ? "YES" : "NO" }
        if let n = raw as? NSNumber { return "\(n)" }
        guard let fields = raw as? [String: Any], let cls = try? archive.className(of: index) else { return "<?>" }
        func sub(_ key: String) -> String {
            guard let ref = try? archive.reference(index, key), ref != 0 else { return "nil" }
            return format(ref, depth: depth + 1, budget: &budget)
        }
        func list(_ key: String) -> [String] {
            guard let ref = try? archive.reference(index, key), ref != 0,
                let items = try? archive.elements(of: ref, "")
            else { return [] }
            return items.map { format($0, depth: depth + 1, budget: &budget) }
        }
        switch cls {
        case "NSComparisonPredicate":
            let op = (try? archive.reference(index, "NSPredicateOperator")).flatMap { $0 }
            let (name, modifier, options) = op.map(operatorParts) ?? ("?", 0, 0)
            let prefix = modifier == 1 ? "ALL " : modifier == 2 ? "ANY " : ""
            var flags = ""
            if options & 1 != 0 { flags += "c" }
            if options & 2 != 0 { flags += "d" }
            return "\(prefix)\(sub("NSLeftExpression")) \(name)\(flags.isEmpty ? "" : "[\(flags)]") \(sub("NSRightExpression"))"
        case "NSCompoundPredicate":
            let parts = list("NSSubpredicates")
            switch (fields["NSCompoundPredicateType"] as? Int) ?? -1 {
            case 0: return "NOT (\(parts.joined(separator: ", ")))"
            case 1: return parts.map { "(\($0))" }.joined(separator: " AND ")
            case 2: return parts.map { "(\($0))" }.joined(separator: " OR ")
            default: return "<NSCompoundPredicate>"
            }
        case "NSTruePredicate": return "TRUEPREDICATE"
        case "NSFalsePredicate": return "FALSEPREDICATE"
        case "NSSelfExpression": return "SELF"
        case "NSKeyPathSpecifierExpression":
            return (try? archive.string(index, "NSKeyPath")).flatMap { $0 } ?? "<?>"
        case "NSVariableExpression":
            return "$" + ((try? archive.string(index, "NSVariable")).flatMap { $0 } ?? "?")
        case "NSKeyPathExpression":
            let operand = sub("NSOperand")
            let path = list("NSArguments").joined(separator: ".")
            return operand == "SELF" || operand == "nil" ? path : "\(operand).\(path)"
        case "NSConstantValueExpression":
            if let ref = try? archive.reference(index, "NSConstantValue"), ref != 0 {
                return format(ref, depth: depth + 1, budget: &budget)
            }
            return (try? archive.string(index, "NSConstantValueClassName")).flatMap { $0 }.map { "<\($0)>" } ?? "nil"
        case "NSFunctionExpression":
            let selector = (try? archive.string(index, "NSSelectorName")).flatMap { $0 } ?? "?"
            return "\(selector)(\(list("NSArguments").joined(separator: ", ")))"
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet":
            return "{" + list("NS.objects").joined(separator: ", ") + "}"
        case "NSMutableString", "NSString":
            return quoted((fields["NS.string"] as? String) ?? "")
        case "NSDate", "__NSDate":
            let t = (fields["NS.time"] as? Double) ?? 0
            return "CAST(\(t), \"NSDate\")"
        default:
            return "<\(cls)>"
        }
    }

    /// An `NSPredicateOperator`'s symbol, modifier (1 ALL, 2 ANY) and options (1 case-, 2
    /// diacritic-insensitive).
    private func operatorParts(_ index: Int) -> (String, Int, Int) {
        let type = ((try? archive.integer(index, "NSOperatorType")) ?? nil) ?? -1
        let modifier = ((try? archive.integer(index, "NSModifier")) ?? nil) ?? 0
        let options = ((try? archive.integer(index, "NSOptions")) ?? nil) ?? 0
        let symbol = switch type {
        case 0: "<"
        case 1: "<="
        case 2: ">"
        case 3: ">="
        case 4: "=="
        case 5: "!="
        case 6: "MATCHES"
        case 7: "LIKE"
        case 8: "BEGINSWITH"
        case 9: "ENDSWITH"
        case 10: "IN"
        case 99: "CONTAINS"
        case 100: "BETWEEN"
        default: "<operator \(type)>"
        }
        return (symbol, modifier, options)
    }

    private func quoted(_ s: String) -> String {
        "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
