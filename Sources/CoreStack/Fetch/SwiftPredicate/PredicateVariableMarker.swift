import Foundation

/// `PredicateExpressions.Variable`, whatever its type (for finding nodes that read the object).
protocol PredicateVariableMarker {}

extension PredicateExpressions.Variable: PredicateVariableMarker {}
