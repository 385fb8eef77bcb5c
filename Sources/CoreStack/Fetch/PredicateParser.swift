import Foundation

/// Parses Core Data's predicate format language into a ``Predicate``.
///
/// Precedence, loosest first: `OR`/`||`, `AND`/`&&`, `NOT`/`!`, comparisons. Keywords are
/// case-insensitive; a reserved word is usable as a key when written `#word` or passed with `%K`.
struct PredicateParser {
    private let lexer: PredicateLexer
    private let tokens: [PredicateToken]
    private var pos = 0
    private var arguments: [Any?]
    private var argumentIndex = 0
    /// How deeply parentheses, NOT, lists, SUBQUERY and CAST are nested at the current token.
    private var depth = 0

    /// The deepest nesting the parser accepts: deeper input fails with a typed error instead of
    /// exhausting the stack (the parser, the printer and the evaluators all recurse).
    static let maximumNesting = 200

    static let reserved: Set<String> = [
        "AND", "OR", "NOT", "IN", "ALL", "ANY", "SOME", "NONE", "LIKE", "MATCHES", "CONTAINS", "BEGINSWITH",
        "ENDSWITH", "BETWEEN", "NULL", "NIL", "SELF", "TRUE", "FALSE", "YES", "NO", "TRUEPREDICATE",
        "FALSEPREDICATE", "SUBQUERY", "CAST", "FIRST", "LAST", "SIZE", "ANYKEY",
    ]

    init(format: String, arguments: [Any?]) throws {
        var lexer = PredicateLexer(format)
        self.tokens = try lexer.tokens()
        self.lexer = lexer
        self.arguments = arguments
    }

    mutating func parse() throws -> Predicate {
        let p = try parseOr()
        guard case .end = current.kind else { throw error("expected AND, OR or the end of the predicate, found \(describe(current))") }
        if argumentIndex < arguments.count {
            throw error("\(arguments.count - argumentIndex) argument(s) left over: the format has \(argumentIndex) specifier(s)", at: 1)
        }
        return p
    }

    // MARK: Tokens

    private var current: PredicateToken { tokens[min(pos, tokens.count - 1)] }
    private var previous: PredicateToken? { pos > 0 ? tokens[pos - 1] : nil }

    private func error(_ message: String, at column: Int? = nil) -> CoreStackError {
        lexer.error(message, at: column ?? current.column)
    }

    private func describe(_ t: PredicateToken) -> String {
        if case .end = t.kind { return "the end of the predicate" }
        return "\"\(PredicateExcerpt.clip(t.text))\""
    }

    private func isKeyword(_ word: String, _ t: PredicateToken? = nil) -> Bool {
        if case let .identifier(s) = (t ?? current).kind { return s.uppercased() == word }
        return false
    }

    private mutating func acceptKeyword(_ words: String...) -> String? {
        for w in words where isKeyword(w) {
            pos += 1
            return w
        }
        return nil
    }

    private mutating func acceptOp(_ ops: String...) -> String? {
        if case let .op(o) = current.kind, ops.contains(o) {
            pos += 1
            return o
        }
        return nil
    }

    private mutating func acceptPunct(_ c: Character) -> Bool {
        if case .punct(c) = current.kind {
            pos += 1
            return true
        }
        return false
    }

    private mutating func expectPunct(_ c: Character, after what: String) throws {
        guard acceptPunct(c) else { throw error("expected \"\(c)\" \(what), found \(describe(current))") }
    }

    /// Enters one level of nesting; callers `defer { depth -= 1 }`.
    private mutating func enter() throws {
        guard depth < Self.maximumNesting else {
            throw error("the predicate is nested more than \(Self.maximumNesting) levels deep")
        }
        depth += 1
    }

    // MARK: Predicates

    private mutating func parseOr() throws -> Predicate {
        var parts = [try parseAnd()]
        while acceptKeyword("OR") != nil || acceptOp("||") != nil {
            parts.append(try parseAnd())
        }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    private mutating func parseAnd() throws -> Predicate {
        var parts = [try parseNot()]
        while acceptKeyword("AND") != nil || acceptOp("&&") != nil {
            parts.append(try parseNot())
        }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    private mutating func parseNot() throws -> Predicate {
        if acceptKeyword("NOT") != nil || acceptOp("!") != nil {
            try enter()
            defer { depth -= 1 }
            return .not(try parseNot())
        }
        return try parsePrimary()
    }

    private mutating func parsePrimary() throws -> Predicate {
        if case .end = current.kind { throw error("expected a predicate, found the end of the predicate") }
        if acceptKeyword("TRUEPREDICATE") != nil { return .constant(true) }
        if acceptKeyword("FALSEPREDICATE") != nil { return .constant(false) }
        if case .punct("(") = current.kind {
            let open = current
            try enter()
            defer { depth -= 1 }
            pos += 1
            let p = try parseOr()
            guard acceptPunct(")") else {
                throw error("expected \")\" to close the parenthesis opened at column \(open.column), found \(describe(current))")
            }
            return p
        }
        return try parseComparison()
    }

    private mutating func parseComparison() throws -> Predicate {
        var modifier = Comparison.Modifier.direct
        var none = false
        if acceptKeyword("ANY", "SOME") != nil {
            modifier = .any
        } else if acceptKeyword("ALL") != nil {
            modifier = .all
        } else if acceptKeyword("NONE") != nil {
            modifier = .any
            none = true
        }
        let left = try parseExpression(expecting: "a key path or a value")
        let opToken = current
        guard let (op, negate) = try parseOperator() else {
            throw error("expected a comparison operator (==, !=, <, >, IN, CONTAINS, BEGINSWITH, LIKE, …) after \(describe(previous ?? opToken)), found \(describe(opToken))")
        }
        let options = try parseOptions()
        let rightToken = current
        let right = try parseExpression(expecting: "a value after \"\(opToken.text)\"")
        if op == .matches, case let .constant(.string(pattern)) = right, !Self.isValidRegex(pattern) {
            throw error(
                "MATCHES needs a valid regular expression (ICU syntax); \"\(PredicateExcerpt.clip(pattern))\" is not one",
                at: rightToken.column)
        }
        if op == .between {
            if case let .list(items) = right, items.count != 2 {
                throw error("BETWEEN needs two values, {low, high}; found \(items.count)", at: opToken.column)
            }
        }
        var p = Predicate.comparison(Comparison(left, op, right, options: options, modifier: modifier))
        if negate { p = .not(p) }
        return none ? .not(p) : p
    }

    /// Whether `pattern` compiles as the regular expression `MATCHES` runs (it is then cached).
    static func isValidRegex(_ pattern: String) -> Bool {
        RegexCache.shared.regex(pattern, options: []) != nil
    }

    private mutating func parseOperator() throws -> (Comparison.Operator, Bool)? {
        if let o = acceptOp("==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>") {
            switch o {
            case "==", "=": return (.equal, false)
            case "!=", "<>": return (.notEqual, false)
            case "<": return (.lessThan, false)
            case "<=", "=<": return (.lessThanOrEqual, false)
            case ">": return (.greaterThan, false)
            default: return (.greaterThanOrEqual, false)
            }
        }
        if let w = acceptKeyword("IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES", "BETWEEN") {
            switch w {
            case "IN": return (.in, false)
            case "CONTAINS": return (.contains, false)
            case "BEGINSWITH": return (.beginsWith, false)
            case "ENDSWITH": return (.endsWith, false)
            case "LIKE": return (.like, false)
            case "MATCHES": return (.matches, false)
            default: return (.between, false)
            }
        }
        return nil
    }

    private mutating func parseOptions() throws -> Comparison.Options {
        guard case .punct("[") = current.kind else { return [] }
        let open = current
        pos += 1
        guard case let .identifier(letters) = current.kind else {
            throw error("expected option letters (c, d, n) inside \"[ ]\"")
        }
        var options: Comparison.Options = []
        for ch in letters.lowercased() {
            switch ch {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "n", "l": break
            default: throw error("unknown comparison option \"\(ch)\" (expected c, d or n)")
            }
        }
        pos += 1
        guard acceptPunct("]") else { throw error("expected \"]\" to close the options opened at column \(open.column)") }
        return options
    }

    // MARK: Expressions

    private mutating func parseExpression(expecting what: String) throws -> Expression {
        var nameToken = current
        var e = try parsePrimaryExpression(expecting: what)
        while case .punct(".") = current.kind {
            pos += 1
            let t = current
            nameToken = t
            switch t.kind {
            case let .at(agg):
                pos += 1
                guard ["count", "sum", "avg", "min", "max"].contains(agg) else {
                    throw error("unknown aggregate @\(PredicateExcerpt.clip(agg)) (expected @count, @sum, @avg, @min or @max)", at: t.column)
                }
                e = try appendKey("@" + agg, to: e, column: t.column)
            case let .identifier(name):
                pos += 1
                e = try appendKey(name, to: e, column: t.column)
            case let .escapedIdentifier(name):
                pos += 1
                e = try appendKey(name, to: e, column: t.column)
            case let .format(spec, _) where spec == "K":
                pos += 1
                e = try appendKey(try keyArgument(t), to: e, column: t.column)
            default:
                throw error("expected a key after \".\", found \(describe(t))")
            }
        }
        if case .punct("(") = current.kind, case .keyPath = e {
            // `lowercase(title)`, `FUNCTION(…)`, `a.b(…)`: a call, and the language has none but
            // SUBQUERY and CAST.
            throw error(
                "unknown function \(describe(nameToken)) (the functions predicates support are SUBQUERY and CAST)",
                at: nameToken.column)
        }
        return e
    }

    private func appendKey(_ key: String, to e: Expression, column: Int) throws -> Expression {
        switch e {
        case let .keyPath(path):
            // Key-value coding's operator-first form, `books.@avg.pages`, is `books.pages.@avg`.
            if !key.hasPrefix("@"), let dot = path.lastIndex(of: "."),
                ["@sum", "@avg", "@min", "@max"].contains(path[path.index(after: dot)...].lowercased())
            {
                return .keyPath(path[..<dot] + "." + key + path[dot...])
            }
            return .keyPath(path + "." + key)
        case let .variable(name): return .keyPath("$" + name + "." + key)
        case .evaluatedObject: return .keyPath(key)
        case .subquery, .aggregate:
            guard key.hasPrefix("@") else { throw error("only an aggregate (@count…) can follow a SUBQUERY", at: column) }
            return .aggregate(key, of: e)
        default:
            throw error("a key path cannot continue after a value", at: column)
        }
    }

    private mutating func parsePrimaryExpression(expecting what: String) throws -> Expression {
        let t = current
        switch t.kind {
        case .end:
            throw error("expected \(what), found the end of the predicate")
        case let .string(s):
            pos += 1
            return .constant(.string(s))
        case let .integer(i):
            pos += 1
            return .constant(.integer(i))
        case let .double(d):
            pos += 1
            return .constant(.double(d))
        case let .variable(name):
            pos += 1
            return .variable(name)
        case let .escapedIdentifier(name):
            pos += 1
            return .keyPath(name)
        case let .at(agg):
            throw error("an aggregate (@\(PredicateExcerpt.clip(agg))) needs a key path before it", at: t.column)
        case let .format(spec, _):
            pos += 1
            return try formatArgument(spec, t)
        case .punct("{"):
            try enter()
            defer { depth -= 1 }
            pos += 1
            var items: [Expression] = []
            if !acceptPunct("}") {
                repeat {
                    items.append(try parseExpression(expecting: "a value in the list"))
                } while acceptPunct(",")
                try expectPunct("}", after: "to close the list")
            }
            return .list(items)
        case let .identifier(word):
            switch word.uppercased() {
            case "NIL", "NULL":
                pos += 1
                return .constant(.null)
            case "YES", "TRUE":
                pos += 1
                return .constant(.bool(true))
            case "NO", "FALSE":
                pos += 1
                return .constant(.bool(false))
            case "SELF":
                pos += 1
                return .evaluatedObject
            case "SUBQUERY":
                try enter()
                defer { depth -= 1 }
                pos += 1
                return try parseSubquery()
            case "CAST":
                try enter()
                defer { depth -= 1 }
                pos += 1
                return try parseCast()
            default:
                if case .punct("(") = tokens[min(pos + 1, tokens.count - 1)].kind {
                    throw error(
                        "unknown function \(describe(t)) (the functions predicates support are SUBQUERY and CAST)",
                        at: t.column)
                }
                if Self.reserved.contains(word.uppercased()) {
                    let w = PredicateExcerpt.clip(word)
                    throw error("expected \(what), found the keyword \"\(w)\" (write #\(w) to use it as a key)")
                }
                pos += 1
                return .keyPath(word)
            }
        default:
            throw error("expected \(what), found \(describe(t))")
        }
    }

    private mutating func parseSubquery() throws -> Expression {
        try expectPunct("(", after: "after SUBQUERY")
        let collection = try parseExpression(expecting: "the collection key path of the SUBQUERY")
        guard case let .keyPath(path) = collection else {
            throw error("the first argument of SUBQUERY must be a key path")
        }
        try expectPunct(",", after: "after the SUBQUERY collection")
        guard case let .variable(name) = current.kind else {
            throw error("expected a variable ($x) as the second argument of SUBQUERY, found \(describe(current))")
        }
        pos += 1
        try expectPunct(",", after: "after the SUBQUERY variable")
        let predicate = try parseOr()
        try expectPunct(")", after: "to close the SUBQUERY")
        return .subquery(collection: path, variable: name, predicate: predicate)
    }

    private mutating func parseCast() throws -> Expression {
        try expectPunct("(", after: "after CAST")
        let valueToken = current
        let value = try parseExpression(expecting: "the value to CAST")
        try expectPunct(",", after: "in CAST")
        guard case let .string(type) = current.kind else { throw error("expected the CAST type as a string, e.g. \"NSDate\"") }
        pos += 1
        try expectPunct(")", after: "to close the CAST")
        guard case let .constant(v) = value else { throw error("CAST needs a constant value", at: valueToken.column) }
        let bad = error("cannot CAST \(v.kindDescription) to \(PredicateExcerpt.clip(type))", at: valueToken.column)
        switch type {
        case "NSDate", "Date":
            guard let d = v.doubleValue, v.dateValue == nil else { throw bad }
            return .constant(.date(Date(timeIntervalSinceReferenceDate: d)))
        case "UUID", "NSUUID":
            guard let s = v.stringValue, let u = UUID(uuidString: s) else { throw bad }
            return .constant(.uuid(u))
        case "NSData", "Data":
            guard let s = v.stringValue, let d = Data(base64Encoded: s) else { throw bad }
            return .constant(.data(d))
        case "NSURL", "URL":
            guard let s = v.stringValue, let u = URL(string: s) else { throw bad }
            return .constant(.url(u))
        case "NSDecimalNumber", "Decimal":
            guard let s = v.stringValue ?? (v.integerValue.map { String($0) }), let d = Decimal(string: s, locale: Locale(identifier: "en_US_POSIX")) else { throw bad }
            return .constant(.decimal(d))
        case "NSNumber":
            guard v.doubleValue != nil, v.dateValue == nil else { throw bad }
            return .constant(v)
        case "NSString", "String":
            return .constant(.string(v.description))
        default:
            throw error("unknown CAST type \"\(PredicateExcerpt.clip(type))\" (expected NSDate, UUID, NSData, NSURL, NSDecimalNumber, NSNumber or NSString)", at: valueToken.column)
        }
    }

    // MARK: Format arguments

    private mutating func nextArgument(_ t: PredicateToken) throws -> Any? {
        guard argumentIndex < arguments.count else {
            throw error("missing argument for \(t.text) (only \(arguments.count) given)", at: t.column)
        }
        defer { argumentIndex += 1 }
        return arguments[argumentIndex]
    }

    private mutating func keyArgument(_ t: PredicateToken) throws -> String {
        let arg = try nextArgument(t)
        guard let key = arg as? String, !key.isEmpty else {
            throw error("the argument for %K must be a key name (a String), got \(Self.typeName(arg))", at: t.column)
        }
        return key
    }

    private mutating func formatArgument(_ spec: Character, _ t: PredicateToken) throws -> Expression {
        switch spec {
        case "K":
            return .keyPath(try keyArgument(t))
        case "@":
            let arg = try nextArgument(t)
            guard let e = Self.expression(for: arg) else {
                throw error("the argument for %@ has a type predicates cannot use: \(Self.typeName(arg))", at: t.column)
            }
            return e
        case "d", "i", "u", "x", "X", "o", "c":
            let arg = try nextArgument(t)
            guard let v = AttributeValue(any: arg), case .integer = v else {
                throw error("the argument for \(t.text) must be an integer, got \(Self.typeName(arg))", at: t.column)
            }
            return .constant(v)
        case "f", "e", "g":
            let arg = try nextArgument(t)
            guard let v = AttributeValue(any: arg), let d = v.doubleValue, v.dateValue == nil, v.stringValue == nil else {
                throw error("the argument for \(t.text) must be a number, got \(Self.typeName(arg))", at: t.column)
            }
            return .constant(.double(d))
        case "s":
            let arg = try nextArgument(t)
            guard let s = arg as? String else {
                throw error("the argument for %s must be a String, got \(Self.typeName(arg))", at: t.column)
            }
            return .constant(.string(s))
        default:
            throw error("unknown format specifier \(t.text)", at: t.column)
        }
    }

    static func typeName(_ value: Any?) -> String {
        guard let value else { return "nil" }
        return "\(type(of: value))"
    }

    /// The expression for a `%@` argument (or a substitution value).
    static func expression(for value: Any?) -> Expression? {
        guard let value else { return .constant(.null) }
        if case Optional<Any>.none = value as Any? { return .constant(.null) }
        switch value {
        case let e as Expression: return e
        case let o as ManagedObject: return .object(o.objectID)
        case let id as ManagedObjectID: return .object(id)
        case is NSNull: return .constant(.null)
        case let s as String: return .constant(.string(s))
        case let items as [Any?]:
            var out: [Expression] = []
            for i in items { guard let e = expression(for: i) else { return nil }; out.append(e) }
            return .list(out)
        case let set as Set<AnyHashable>:
            var out: [Expression] = []
            for i in set { guard let e = expression(for: i.base) else { return nil }; out.append(e) }
            return .list(out)
        default:
            return AttributeValue(any: value).map { .constant($0) }
        }
    }
}
