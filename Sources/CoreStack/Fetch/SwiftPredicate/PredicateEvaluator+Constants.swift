import Foundation

extension PredicateEvaluator {
    /// A comparison of two constants (a `#Predicate` comparing captured values), decided once
    /// when the predicate is translated, by the same rules as any other comparison.
    static func compareConstants(_ c: Comparison) throws -> Bool {
        func value(_ e: Expression) throws -> EvalValue {
            switch e {
            case let .constant(v): return .scalar(v)
            case let .object(id): return .object(id)
            case let .list(items): return .collection(try items.map(value))
            default: throw CoreStackError.invalidPredicate("a comparison of constants holds a \(e)")
            }
        }
        return try test(try value(c.left), c, try value(c.right))
    }
}
