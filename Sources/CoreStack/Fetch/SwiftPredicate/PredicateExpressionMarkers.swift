import Foundation

/// `PredicateExpressions.Variable`, whatever its type (for finding nodes that read the object).
protocol PredicateVariableMarker {}
/// `PredicateExpressions.Value`, whatever its type (a constant: nothing below it is a variable).
protocol PredicateValueMarker {}

extension PredicateExpressions.Variable: PredicateVariableMarker {}
extension PredicateExpressions.Value: PredicateValueMarker {}
