import Foundation

extension SortDescriptor {
    /// Sorts on the model property a key path names (see ``PropertyKeyPath``).
    ///
    /// ```swift
    /// let byTitle = try SortDescriptor(\Book.title, comparison: .caseInsensitive)
    /// let request = FetchRequest<Book>(sortDescriptors: [byTitle, try SortDescriptor(\Book.pages, ascending: false)])
    /// ```
    ///
    /// Throws ``CoreStackError/unsupportedPredicate(part:reason:)`` for a key path that is not a
    /// model property (a computed property; through a relationship, write the key: `"publisher.name"`).
    public init<Root: ManagedObject, Value>(_ keyPath: KeyPath<Root, Value>, ascending: Bool = true, comparison: Comparison = .default) throws {
        self.init(try PropertyKeyPath.name(of: keyPath), ascending: ascending, comparison: comparison)
    }

    /// CoreStack's sort descriptor for Foundation's `SortDescriptor` of a managed object class:
    /// its key path and its order. Strings compare by code point (``Comparison/default``), whatever
    /// the descriptor's string comparator (Foundation on Linux has only `.lexical`); for
    /// case-insensitive order use `SortDescriptor(\Book.title, comparison: .caseInsensitive)`.
    ///
    /// ```swift
    /// let d = try CoreStack.SortDescriptor(Foundation.SortDescriptor(\Book.title, order: .reverse))
    /// ```
    public init<Compared: ManagedObject>(_ descriptor: Foundation.SortDescriptor<Compared>) throws {
        guard let keyPath = descriptor.keyPath else {
            throw CoreStackError.unsupportedPredicate(part: "SortDescriptor<\(Compared.self)>", reason: "sorts with a comparator, not a key path")
        }
        self.init(try PropertyKeyPath.name(ofAny: keyPath), ascending: descriptor.order == .forward)
    }
}
