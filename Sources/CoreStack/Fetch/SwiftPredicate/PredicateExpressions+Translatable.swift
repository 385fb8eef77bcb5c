import Foundation

// The `PredicateExpressions` node types CoreStack translates, each to a `PredicateTerm`.

// MARK: Leaves

extension PredicateExpressions.Variable: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTerm {
        switch try t.binding(key, node: self) {
        case .root: .path(.evaluatedObject)
        case let .path(e): .path(e)
        case let .member(name): .path(.variable(name))
        }
    }
}

extension PredicateExpressions.Value: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTerm { .value(value) }
}

extension PredicateExpressions.NilLiteral: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTerm { .value(nil) }
}

extension PredicateExpressions.KeyPath: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTerm {
        let base = try t.term(root)
        let isText = Root.Output.self == String.self || Root.Output.self == Substring.self
        switch kind {
        case .collectionCount?, .collectionIsEmpty?:
            let counted: Expression
            switch base {
            case let .path(.keyPath(p)) where !isText: counted = .keyPath(p + ".@count")
            case let .subquery(s): counted = .aggregate("@count", of: s)
            case .value: return try PredicateTranslator.folded(self) ?? .value(nil)
            default:
                throw t.unsupported(self, isText
                    ? "reads the length of a string, which CoreStack's predicates cannot express (compare the string itself, or use LIKE/MATCHES through a string predicate)"
                    : "counts something that is not a to-many relationship")
            }
            if kind == .collectionIsEmpty { return .condition(.comparison(Comparison(counted, .equal, .constant(.integer(0)))), nilUnless: nil) }
            return .path(counted)
        case .collectionFirst?, .bidirectionalCollectionLast?:
            throw t.unsupported(self, "reads the first or last member of a collection, which has no order in CoreStack's predicates")
        case nil:
            break
        }
        switch base {
        case .value:
            // A key path on a captured value: read it now.
            guard let constant = try PredicateTranslator.folded(self) else { throw t.unsupported(self, "reads a constant") }
            return constant
        case let .path(e):
            switch try PropertyKeyPath.resolve(keyPath) {
            case .objectID: return .path(e)
            case let .property(name): return .path(try PredicateTranslator.appending(name, to: e, node: self))
            }
        default:
            throw t.unsupported(self, "reads a key path of something that is not an object")
        }
    }
}

// MARK: Comparisons

extension PredicateExpressions.Equal: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTerm { try t.compare(lhs, .equal, rhs, node: self) }
}

extension PredicateExpressions.NotEqual: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTerm { try t.compare(lhs, .notEqual, rhs, node: self) }
}

extension PredicateExpressions.Comparison: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTerm {
        let o: Comparison.Operator = switch op {
        case .lessThan: .lessThan
        case .lessThanOrEqual: .lessThanOrEqual
        case .greaterThan: .greaterThan
        case .greaterThanOrEqual: .greaterThanOrEqual
        }
        return try t.compare(lhs, o, rhs, node: self)
    }
}

// MARK: Logic

extension PredicateExpressions.Conjunction: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTerm {
        .condition(try t.condition(t.term(lhs)) && t.condition(t.term(rhs)), nilUnless: nil)
    }
}

extension PredicateExpressions.Disjunction: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTerm {
        .condition(try t.condition(t.term(lhs)) || t.condition(t.term(rhs)), nilUnless: nil)
    }
}

extension PredicateExpressions.Negation: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTerm {
        .condition(!(try t.condition(t.term(wrapped))), nilUnless: nil)
    }
}

extension PredicateExpressions.Conditional: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTerm {
        if let constant = try PredicateTranslator.folded(self) { return constant }
        guard If.Output.self == Bool.self else {
            throw t.unsupported(self, "chooses between values that are not Bool conditions (only `test ? a : b` of conditions translates)")
        }
        let test = try t.condition(t.term(test))
        let a = try t.condition(t.term(trueBranch))
        let b = try t.condition(t.term(falseBranch))
        return .condition((test && a) || (!test && b), nilUnless: nil)
    }
}

// MARK: Optionals

extension PredicateExpressions.OptionalFlatMap: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTerm {
        switch try t.term(wrapped) {
        case .value:
            guard let constant = try PredicateTranslator.folded(self) else { throw t.unsupported(self, "maps a constant") }
            return constant
        case let .path(e):
            let inner = try t.with(variable.key, bound: .path(e)) { try $0.term(transform) }
            if case let .condition(p, nilUnless) = inner {
                return .condition(p, nilUnless: nilUnless ?? e)
            }
            return inner
        default:
            throw t.unsupported(self, "maps something that is not a key path")
        }
    }
}

extension PredicateExpressions.NilCoalesce: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTerm {
        let l = try t.term(lhs)
        let r = try t.term(rhs)
        switch (l, r) {
        case (.value, .value):
            return try PredicateTranslator.folded(self) ?? .value(nil)
        case let (.path(e), .value(fallback)):
            return .coalesce(e, fallback: fallback)
        case let (.condition(p, nilUnless?), .value(fallback)):
            let fallbackHolds = try t.condition(.value(fallback))
            let hasValue = Predicate.comparison(Comparison(nilUnless, .notEqual, .constant(.null)))
            return .condition((hasValue && p) || (!hasValue && fallbackHolds), nilUnless: nil)
        case (.condition(_, nil), _):
            return l
        default:
            throw t.unsupported(self, "falls back to something that is not a constant (`?? value` translates)")
        }
    }
}

extension PredicateExpressions.ForcedUnwrap: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTerm {
        // `x!` reads x; a nil (which would trap in Swift) compares as nil does in SQL: no match.
        switch try t.term(inner) {
        case .value: try PredicateTranslator.folded(self) ?? .value(nil)
        case let .condition(p, _): .condition(p, nilUnless: nil)
        case let other: other
        }
    }
}

// MARK: Strings and collections

extension PredicateExpressions.CollectionContainsCollection: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTerm {
        try t.stringTest(base, .contains, other, node: self, isText: Base.Output.self == String.self)
    }
}

extension PredicateExpressions.SequenceStartsWith: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTerm {
        try t.stringTest(base, .beginsWith, prefix, node: self, isText: Base.Output.self == String.self)
    }
}

extension PredicateExpressions.SequenceContains: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTerm {
        let s = try t.term(sequence)
        let e = try t.term(element)
        switch (s, e) {
        case (.value, .value):
            return try PredicateTranslator.folded(self) ?? .value(nil)
        case let (.value(list), .path(path)):
            return .condition(.comparison(Comparison(path, .in, try PredicateTranslator.expression(ofValue: list))), nilUnless: nil)
        case let (.path(collection), .value(member)):
            return .condition(.comparison(Comparison(collection, .contains, try PredicateTranslator.expression(ofValue: member))), nilUnless: nil)
        case let (.path(collection), .path(member)):
            return .condition(.comparison(Comparison(collection, .contains, member)), nilUnless: nil)
        default:
            throw t.unsupported(self, "tests membership in something that is neither a to-many relationship nor a constant collection")
        }
    }
}

extension PredicateExpressions.SequenceContainsWhere: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTerm {
        let s = try t.subquery(sequence, variable.key, test, negated: false, node: self)
        return .condition(.comparison(Comparison(.aggregate("@count", of: s), .greaterThan, .constant(.integer(0)))), nilUnless: nil)
    }
}

extension PredicateExpressions.SequenceAllSatisfy: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTerm {
        let s = try t.subquery(sequence, variable.key, test, negated: true, node: self)
        return .condition(.comparison(Comparison(.aggregate("@count", of: s), .equal, .constant(.integer(0)))), nilUnless: nil)
    }
}

extension PredicateExpressions.Filter: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTerm {
        .subquery(try t.subquery(sequence, variable.key, filter, negated: false, node: self))
    }
}

extension PredicateExpressions.RangeExpressionContains: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTerm {
        let r = try t.term(range)
        let e = try t.term(element)
        switch (r, e) {
        case (.value, .value):
            return try PredicateTranslator.folded(self) ?? .value(nil)
        case let (.value(range), .path(path)):
            guard let range = PredicateTranslator.unwrapped(range) else { return .condition(.alwaysFalse, nilUnless: nil) }
            let m = Mirror(reflecting: range)
            guard let lower = m.descendant("lowerBound"), let upper = m.descendant("upperBound") else {
                throw t.unsupported(self, "tests a range that is neither `a...b` nor `a..<b`")
            }
            let lo = try PredicateTranslator.expression(ofValue: lower)
            let hi = try PredicateTranslator.expression(ofValue: upper)
            if String(describing: type(of: range)).hasPrefix("ClosedRange") {
                return .condition(.comparison(Comparison(path, .between, .list([lo, hi]))), nilUnless: nil)
            }
            return .condition(.comparison(Comparison(path, .greaterThanOrEqual, lo)) && .comparison(Comparison(path, .lessThan, hi)), nilUnless: nil)
        default:
            throw t.unsupported(self, "tests a range whose bounds are not constants")
        }
    }
}
