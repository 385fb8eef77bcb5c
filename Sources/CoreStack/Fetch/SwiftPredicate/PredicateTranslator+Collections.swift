import Foundation

extension PredicateTranslator {
    /// `BEGINSWITH` / `CONTAINS` of a string key path and a constant string.
    mutating func stringTest(_ base: Any, _ op: Comparison.Operator, _ other: Any, node: Any, isText: Bool) throws -> PredicateTerm {
        let b = try term(base)
        let o = try term(other)
        switch (b, o) {
        case (.value, .value):
            return try Self.folded(node) ?? .value(nil)
        case let (.path(path), .value(v)) where isText:
            guard let s = Self.unwrapped(v) as? String else { throw unsupported(node, "tests a string against something that is not a string") }
            return .condition(.comparison(Comparison(path, op, .constant(.string(s)))), nilUnless: nil)
        case let (.coalesce(path, fallback), .value(v)) where isText:
            // `(x ?? "fallback").contains(v)`: the key path's test, or the fallback's, decided now.
            guard let s = Self.unwrapped(v) as? String else { throw unsupported(node, "tests a string against something that is not a string") }
            let isNil = Predicate.comparison(Comparison(path, .equal, .constant(.null)))
            let fallbackHolds = try PredicateEvaluator.compareConstants(Comparison(try Self.expression(ofValue: fallback), op, .constant(.string(s))))
            let test = Predicate.comparison(Comparison(path, op, .constant(.string(s))))
            return .condition((!isNil && test) || (isNil && .constant(fallbackHolds)), nilUnless: nil)
        default:
            throw unsupported(node, isText
                ? "tests a string key path against something that is not a constant string"
                : "tests a collection that is not a string for a run of members")
        }
    }

    /// `SUBQUERY(collection, $m, test)` (or `NOT test`) for `contains(where:)`, `allSatisfy`, `filter`.
    mutating func subquery(_ sequence: Any, _ id: PredicateExpressions.VariableID, _ test: Any, negated: Bool, node: Any) throws -> Expression {
        let collection: String
        switch try term(sequence) {
        case let .path(.keyPath(p)): collection = p
        default: throw unsupported(node, "iterates something that is not a to-many relationship of the object")
        }
        let name = newMember()
        let inner = try with(id, bound: .member(name)) { try $0.condition($0.term(test)) }
        return .subquery(collection: collection, variable: name, predicate: negated ? !inner : inner)
    }
}
