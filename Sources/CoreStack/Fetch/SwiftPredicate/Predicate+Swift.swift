import Foundation

extension Predicate {
    /// CoreStack's predicate for a Swift `#Predicate` of a ``ManagedObject`` subclass: the same
    /// tree the string language makes, so it runs in SQL and in memory exactly as that does.
    ///
    /// Key paths map to the model's properties (``PropertyKeyPath``); captured values become
    /// constants; `?.` and `flatMap` go through to-one relationships, `?? value` supplies a value
    /// for nil, `contains(where:)`, `allSatisfy` and `filter { … }.count` over to-many
    /// relationships become `SUBQUERY`s, `count` and `isEmpty` of a to-many `@count`,
    /// `contains`/`starts(with:)` of a string `CONTAINS`/`BEGINSWITH`, a range's `contains`
    /// `BETWEEN`. A part with no translation (arithmetic on stored values, a string's `count`,
    /// a collection's `first`, a computed property) throws
    /// ``CoreStackError/unsupportedPredicate(part:reason:)`` naming it, here, before any fetch.
    ///
    /// ```swift
    /// let minimum = 300
    /// let p = try CoreStack.Predicate(#Predicate<Book> { book in
    ///     book.pages > minimum && (book.publisher?.name ?? "") == "Ace"
    /// })
    /// // pages > 300 AND publisher.name == "Ace", with `?? ""` spelled out: a book without a
    /// // publisher is compared as "" (here: no match)
    /// ```
    ///
    /// Translating walks the tree once; keep the result (or the request holding it) to fetch
    /// again without paying for it again.
    public init<T: ManagedObject>(_ predicate: Foundation.Predicate<T>) throws {
        self = try PredicateTranslator.translate(predicate)
    }
}
