import Foundation

extension Predicate {
    /// Parses a predicate written in Core Data's format language.
    ///
    /// ```swift
    /// let p = try Predicate(format: "title BEGINSWITH[cd] %@ AND pages > %d", "dune", 300)
    /// let q = try Predicate(format: "ANY authors.name == %@ OR SUBQUERY(chapters, $c, $c.title CONTAINS 'war').@count > 0", "Tolstoy")
    /// ```
    ///
    /// `%@` takes a value (String, numbers, Bool, Date, Data, UUID, URL, Decimal, a ManagedObject or
    /// its ID, an array or set of those, or nil), `%K` a key name, `%d`/`%i`/`%ld` an integer, `%f` a
    /// number, `%s` a string. A format that does not parse throws ``CoreStackError/predicateSyntax(message:column:format:)``
    /// saying what was expected and where.
    public init(format: String, _ arguments: Any?...) throws {
        try self.init(format: format, argumentArray: arguments)
    }

    /// Parses a predicate with its arguments in an array.
    public init(format: String, argumentArray: [Any?]) throws {
        var parser = try PredicateParser(format: format, arguments: argumentArray)
        self = try parser.parse()
    }

    /// The predicate in Core Data's format language; parsing it gives back an equal predicate
    /// (constant objects print as their URI and do not parse back).
    ///
    /// ```swift
    /// try Predicate(format: "title ==[c] 'dune'").predicateFormat // title ==[c] "dune"
    /// ```
    public var predicateFormat: String {
        switch self {
        case let .constant(b): return b ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case let .and(ps): return ps.map { $0.formatOperand }.joined(separator: " AND ")
        case let .or(ps): return ps.map { $0.formatOperand }.joined(separator: " OR ")
        case let .not(p): return "NOT " + p.formatOperand
        case let .comparison(c): return c.predicateFormat
        }
    }

    private var formatOperand: String {
        switch self {
        case .and, .or, .not, .comparison: "(\(predicateFormat))"
        case .constant: predicateFormat
        }
    }

    /// Replaces `$NAME` variables with values (as `%@` would take them).
    ///
    /// ```swift
    /// let template = try Predicate(format: "pages > $MIN")
    /// let p = try template.withSubstitutionVariables(["MIN": 300])
    /// ```
    public func withSubstitutionVariables(_ variables: [String: Any?]) throws -> Predicate {
        try substituting(variables, bound: [])
    }

    func substituting(_ vars: [String: Any?], bound: Set<String>) throws -> Predicate {
        switch self {
        case .constant: return self
        case let .and(ps): return .and(try ps.map { try $0.substituting(vars, bound: bound) })
        case let .or(ps): return .or(try ps.map { try $0.substituting(vars, bound: bound) })
        case let .not(p): return .not(try p.substituting(vars, bound: bound))
        case var .comparison(c):
            c.left = try c.left.substituting(vars, bound: bound)
            c.right = try c.right.substituting(vars, bound: bound)
            return .comparison(c)
        }
    }
}

extension Expression {
    func substituting(_ vars: [String: Any?], bound: Set<String>) throws -> Expression {
        switch self {
        case let .variable(name) where !bound.contains(name):
            guard let entry = vars[name] else {
                throw CoreStackError.invalidPredicate("no value for the variable $\(name)")
            }
            guard let e = PredicateParser.expression(for: entry) else {
                throw CoreStackError.invalidPredicate("the value for $\(name) has a type predicates cannot use: \(PredicateParser.typeName(entry))")
            }
            return e
        case let .list(items): return .list(try items.map { try $0.substituting(vars, bound: bound) })
        case let .subquery(collection, variable, predicate):
            let inner = try predicate.substituting(vars, bound: bound.union([variable]))
            return .subquery(collection: collection, variable: variable, predicate: inner)
        case let .aggregate(f, e): return .aggregate(f, of: try e.substituting(vars, bound: bound))
        default: return self
        }
    }

    /// The expression in the format language.
    public var predicateFormat: String {
        switch self {
        case let .keyPath(path):
            return path.split(separator: ".", omittingEmptySubsequences: false).map { part -> String in
                let s = String(part)
                if s.hasPrefix("@") || s.hasPrefix("$") { return s }
                let identifierLike = s.first.map { $0.isLetter || $0 == "_" } ?? false
                    && s.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
                return identifierLike && !PredicateParser.reserved.contains(s.uppercased()) ? s : "#" + s
            }.joined(separator: ".")
        case let .constant(v): return v.predicateLiteral
        case let .object(id): return "CAST(\(AttributeValue.string(id.description).predicateLiteral), \"ManagedObjectID\")"
        case let .list(items): return "{" + items.map(\.predicateFormat).joined(separator: ", ") + "}"
        case .evaluatedObject: return "SELF"
        case let .variable(name): return "$" + name
        case let .subquery(collection, variable, predicate):
            return "SUBQUERY(\(Expression.keyPath(collection).predicateFormat), $\(variable), \(predicate.predicateFormat))"
        case let .aggregate(f, e): return e.predicateFormat + "." + f
        }
    }
}

extension Comparison {
    /// The comparison in the format language.
    public var predicateFormat: String {
        var opts = ""
        if options.contains(.caseInsensitive) { opts += "c" }
        if options.contains(.diacriticInsensitive) { opts += "d" }
        let mod = modifier == .direct ? "" : modifier.rawValue + " "
        return "\(mod)\(left.predicateFormat) \(op.rawValue)\(opts.isEmpty ? "" : "[\(opts)]") \(right.predicateFormat)"
    }
}

extension AttributeValue {
    /// The value as a literal of the predicate format language.
    var predicateLiteral: String {
        func quoted(_ s: String) -> String {
            var out = "\""
            for ch in s.unicodeScalars {
                switch ch {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\t": out += "\\t"
                case "\r": out += "\\r"
                case "\0": out += "\\0"
                default: out.unicodeScalars.append(ch)
                }
            }
            return out + "\""
        }
        func number(_ d: Double) -> String {
            let s = "\(d)"
            return s.contains(".") || s.contains("e") || s.contains("n") || s.contains("i") ? s : s + ".0"
        }
        switch self {
        case .null: return "nil"
        case let .integer(i): return String(i)
        case let .double(d): return d.isFinite ? number(d) : "CAST(\(quoted("\(d)")), \"NSNumber\")"
        case let .string(s): return quoted(s)
        case let .bool(b): return b ? "TRUE" : "FALSE"
        case let .date(d): return "CAST(\(number(d.timeIntervalSinceReferenceDate)), \"NSDate\")"
        case let .data(d): return "CAST(\(quoted(d.base64EncodedString())), \"NSData\")"
        case let .uuid(u): return "CAST(\(quoted(u.uuidString)), \"UUID\")"
        case let .decimal(d): return "CAST(\(quoted("\(d)")), \"NSDecimalNumber\")"
        case let .url(u): return "CAST(\(quoted(u.absoluteString)), \"NSURL\")"
        }
    }
}
