import Foundation

/// A `PredicateExpressions` node type CoreStack translates (see ``PredicateTranslator``).
protocol TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTerm
}
