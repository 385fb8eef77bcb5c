import Foundation

/// Translates a `#Predicate` (Foundation's `Predicate`, an expression tree of
/// `PredicateExpressions` types) into CoreStack's ``Predicate``, the one tree that the SQL
/// compiler and the in-memory evaluator share.
///
/// Each supported node type conforms to ``TranslatablePredicateExpression``; a node without a
/// conformance that reads nothing of the object (arithmetic on captured values, a range of
/// constants) is evaluated once, here, and becomes a constant. Anything else is
/// ``CoreStackError/unsupportedPredicate(part:reason:)`` naming the node. Key paths map to property
/// names through ``PropertyKeyPath``.
struct PredicateTranslator {
    /// What a `PredicateExpressions.Variable` stands for.
    enum Binding {
        /// The evaluated object (the predicate's input): `SELF`.
        case root
        /// An object reached along a key path, inside `flatMap` (`$0.publisher.flatMap { $0.name }`).
        case path(Expression)
        /// Each member of a to-many relationship, inside `contains(where:)`, `allSatisfy`, `filter`:
        /// a `SUBQUERY` variable.
        case member(String)
    }

    private var bindings: [PredicateExpressions.VariableID: Binding] = [:]
    private var variableCount = 0

    /// The translation of `predicate`.
    static func translate<T: ManagedObject>(_ predicate: Foundation.Predicate<T>) throws -> Predicate {
        var t = PredicateTranslator()
        t.bindings[predicate.variable.key] = .root
        return try t.condition(t.term(predicate.expression))
    }

    // MARK: Terms

    /// The term of any expression node.
    mutating func term(_ node: Any) throws -> PredicateTerm {
        if let translatable = node as? any TranslatablePredicateExpression {
            return try translatable.translate(&self)
        }
        if let constant = try Self.folded(node) { return constant }
        throw unsupported(node, "has no translation to CoreStack's predicates (so neither SQL nor in-memory evaluation can run it)")
    }

    /// A node that reads no variable, evaluated now.
    static func folded(_ node: Any) throws -> PredicateTerm? {
        guard !readsVariable(node), let expression = node as? any PredicateExpression else { return nil }
        return .value(try expression.evaluate(PredicateBindings()) as Any?)
    }

    /// Whether a node or anything below it is a `Variable` (found by reflection; constants are not entered).
    static func readsVariable(_ node: Any) -> Bool {
        if node is any PredicateVariableMarker { return true }
        if node is any PredicateValueMarker { return false }
        return Mirror(reflecting: node).children.contains { readsVariable($0.value) }
    }

    /// The variable's binding.
    func binding(_ id: PredicateExpressions.VariableID, node: Any) throws -> Binding {
        guard let b = bindings[id] else { throw unsupported(node, "is a variable bound outside the predicate") }
        return b
    }

    /// Runs `body` with `id` bound.
    mutating func with<R>(_ id: PredicateExpressions.VariableID, bound b: Binding, _ body: (inout PredicateTranslator) throws -> R) rethrows -> R {
        let saved = bindings[id]
        bindings[id] = b
        defer { bindings[id] = saved }
        return try body(&self)
    }

    /// A fresh SUBQUERY variable name.
    mutating func newMember() -> String {
        variableCount += 1
        return "m\(variableCount)"
    }

    /// The error for a node that cannot be translated.
    func unsupported(_ node: Any, _ reason: String) -> CoreStackError {
        .unsupportedPredicate(part: Self.name(of: node), reason: reason)
    }

    /// `PredicateExpressions.Arithmetic<…>` without the generic arguments' module prefixes.
    static func name(of node: Any) -> String {
        let full = String(reflecting: type(of: node))
        let short = full.replacingOccurrences(of: "Foundation.", with: "")
            .replacingOccurrences(of: "FoundationEssentials.", with: "")
            .replacingOccurrences(of: "Swift.", with: "")
        guard let angle = short.firstIndex(of: "<") else { return short }
        return String(short[..<angle])
    }

    // MARK: Conversions

    /// A term as a condition: a `Bool` key path is `path == YES`, a `Bool` constant a constant.
    func condition(_ term: PredicateTerm) throws -> Predicate {
        switch term {
        case let .condition(p, nilUnless):
            guard let guardPath = nilUnless else { return p }
            return .comparison(Comparison(guardPath, .notEqual, .constant(.null))) && p
        case let .path(e):
            return .comparison(Comparison(e, .equal, .constant(.bool(true))))
        case let .value(v):
            guard let b = Self.unwrapped(v) as? Bool else {
                throw CoreStackError.unsupportedPredicate(part: "\(v.map { "\($0)" } ?? "nil")", reason: "is not a Bool condition")
            }
            return .constant(b)
        case let .coalesce(e, fallback):
            let isNil = Predicate.comparison(Comparison(e, .equal, .constant(.null)))
            let fallbackHolds = try condition(.value(fallback))
            return (!isNil && .comparison(Comparison(e, .equal, .constant(.bool(true))))) || (isNil && fallbackHolds)
        case .subquery:
            throw CoreStackError.unsupportedPredicate(part: "filter", reason: "a filtered collection is not a condition (use its count or isEmpty)")
        }
    }

    /// A constant as an expression: a value, an object, a list.
    static func expression(ofValue value: Any?) throws -> Expression {
        let v = unwrapped(value)
        switch v {
        case nil: return .constant(.null)
        case let object as ManagedObject: return .object(object.objectID)
        case let id as ManagedObjectID: return .object(id)
        case let attribute as AttributeValue: return .constant(attribute)
        case let string as String: return .constant(.string(string))
        default: break
        }
        if let a = AttributeValue(any: v) { return .constant(a) }
        if let sequence = v as? any Sequence {
            return .list(try sequence.map { try expression(ofValue: $0) })
        }
        throw CoreStackError.unsupportedPredicate(
            part: "\(type(of: v as Any))", reason: "is not a value a predicate can compare (an attribute's type, an object, an object ID, or a collection of those)")
    }

    /// `Optional.some(x)` as `x`, `Optional.none` as nil, anything else as it is.
    static func unwrapped(_ value: Any?) -> Any? {
        guard let value else { return nil }
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.flatMap { unwrapped($0.value) }
    }

    /// `base.key`: a key path appended to a path (`SELF`, a key path, a SUBQUERY variable).
    static func appending(_ key: String, to base: Expression, node: Any) throws -> Expression {
        switch base {
        case .evaluatedObject: return .keyPath(key)
        case let .keyPath(p): return .keyPath(p + "." + key)
        case let .variable(v): return .keyPath("$" + v + "." + key)
        default:
            throw CoreStackError.unsupportedPredicate(part: name(of: node), reason: "reads \"\(key)\" from something that is not an object")
        }
    }

    // MARK: Comparisons

    /// `lhs op rhs`, for `==`, `!=`, `<`, `<=`, `>`, `>=`.
    mutating func compare(_ lhs: Any, _ op: Comparison.Operator, _ rhs: Any, node: Any) throws -> PredicateTerm {
        let l = try term(lhs)
        let r = try term(rhs)
        return .condition(try compare(l, op, r, node: node), nilUnless: nil)
    }

    func compare(_ l: PredicateTerm, _ op: Comparison.Operator, _ r: PredicateTerm, node: Any) throws -> Predicate {
        switch (l, r) {
        case let (.coalesce(e, fallback), other):
            let isNil = Predicate.comparison(Comparison(e, .equal, .constant(.null)))
            return (!isNil && (try compare(.path(e), op, other, node: node)))
                || (isNil && (try compare(.value(fallback), op, other, node: node)))
        case (_, .coalesce):
            guard let mirror = op.mirrored else { throw unsupported(node, "cannot be mirrored") }
            return try compare(r, mirror, l, node: node)
        case let (.condition(p, nilUnless), other), let (other, .condition(p, nilUnless)):
            return try compareCondition(p, nilUnless: nilUnless, op, other, node: node)
        case let (.value(a), .value(b)):
            let c = Comparison(try Self.expression(ofValue: a), op, try Self.expression(ofValue: b))
            return .constant(try PredicateEvaluator.compareConstants(c))
        case let (.path(a), .path(b)):
            return .comparison(Comparison(a, op, b))
        case let (.path(a), .value(b)):
            return .comparison(Comparison(a, op, try Self.expression(ofValue: b)))
        case let (.value(a), .path(b)):
            return .comparison(Comparison(try Self.expression(ofValue: a), op, b))
        case (.subquery, _), (_, .subquery):
            throw unsupported(node, "compares a filtered collection (compare its count)")
        }
    }

    /// A Bool condition compared with `==` or `!=` to a Bool constant or another condition.
    private func compareCondition(_ p: Predicate, nilUnless: Expression?, _ op: Comparison.Operator, _ other: PredicateTerm, node: Any) throws -> Predicate {
        guard op == .equal || op == .notEqual else { throw unsupported(node, "orders Bool values") }
        let hasValue = nilUnless.map { Predicate.comparison(Comparison($0, .notEqual, .constant(.null))) }
        switch other {
        case let .value(v):
            let u = Self.unwrapped(v)
            if u == nil {
                // `x == nil` / `x != nil` for a Bool? condition.
                guard let hasValue else { return .constant(op == .notEqual) }
                return op == .equal ? !hasValue : hasValue
            }
            guard let b = u as? Bool else { throw unsupported(node, "compares a condition with a value that is not a Bool") }
            let wanted = (op == .equal) == b
            let core = wanted ? p : !p
            guard let hasValue else { return core }
            // nil == true / nil == false are false; nil != true / nil != false are true.
            return op == .equal ? hasValue && core : !hasValue || (hasValue && core)
        default:
            let q = try condition(other)
            let same = (p && q) || (!p && !q)
            let core = op == .equal ? same : !same
            guard let hasValue else { return core }
            return hasValue && core
        }
    }
}
