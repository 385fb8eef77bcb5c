import Foundation

extension Comparison.Operator {
    /// The operator with its sides swapped (`a < b` is `b > a`); nil for operators with no mirror.
    var mirrored: Comparison.Operator? {
        switch self {
        case .equal, .notEqual: self
        case .lessThan: .greaterThan
        case .lessThanOrEqual: .greaterThanOrEqual
        case .greaterThan: .lessThan
        case .greaterThanOrEqual: .lessThanOrEqual
        default: nil
        }
    }
}

extension Comparison {
    /// The same comparison with its key path (or SELF, an aggregate, a bound variable) on the left,
    /// as the SQL compiler and the validator both expect: `5 < pages` becomes `pages > 5`, and
    /// `"x" IN tags.name` becomes `ANY tags.name == "x"`.
    func withKeyPathOnLeft(entity: EntityDescription, isPathLike: (Expression) -> Bool) throws -> Comparison {
        if isPathLike(left) { return self }
        guard isPathLike(right) else {
            throw CoreStackError.invalidPredicate("\(entity.name): a comparison needs a key path or SELF on one side")
        }
        if op == .in { return Comparison(right, .equal, left, options: options, modifier: .any) }
        guard let mirror = op.mirrored else {
            throw CoreStackError.invalidPredicate("\(op.rawValue) needs a key path on its left side")
        }
        return Comparison(right, mirror, left, options: options, modifier: modifier)
    }
}
