import Foundation

/// What a node of a `#Predicate` expression tree translates to, on the way to a ``Predicate``.
enum PredicateTerm {
    /// A condition. `nilUnless`: the key path that must not be nil for the condition to have a
    /// value at all (a `Bool?` from `$0.title.flatMap { $0.contains("x") }`), nil for a plain Bool.
    case condition(Predicate, nilUnless: Expression?)
    /// Something read from the object: a key path, `SELF`, a subquery variable, an aggregate.
    case path(Expression)
    /// A collection of related objects filtered by a condition (`$0.chapters.filter { … }`), as a
    /// `SUBQUERY`: only its count can be used.
    case subquery(Expression)
    /// A constant Swift value (a captured value, a literal, a folded constant expression).
    case value(Any?)
    /// `wrapped ?? fallback`: a key path with a constant for when it is nil.
    case coalesce(Expression, fallback: Any?)
}
