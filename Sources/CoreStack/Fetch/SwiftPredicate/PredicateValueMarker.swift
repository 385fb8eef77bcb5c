import Foundation

/// `PredicateExpressions.Value`, whatever its type (a constant: nothing below it is a variable).
protocol PredicateValueMarker {}

extension PredicateExpressions.Value: PredicateValueMarker {}
