import Foundation

extension FetchRequest {
    /// A request filtered by a Swift `#Predicate`, translated once here (see
    /// `CoreStack.Predicate(_:)` of a `Foundation.Predicate`): a part with no translation throws now, naming it.
    ///
    /// ```swift
    /// let request = try FetchRequest<Book>(
    ///     predicate: #Predicate { $0.pages > 300 && $0.title.contains("Dune") },
    ///     sortDescriptors: [try SortDescriptor(\Book.title)])
    /// let books = try context.fetch(request)
    /// let count = try context.count(for: request)
    /// ```
    public init(entityName: String? = nil, predicate: Foundation.Predicate<Result>, sortDescriptors: [SortDescriptor] = []) throws {
        self.init(entityName: entityName, predicate: try Predicate(predicate), sortDescriptors: sortDescriptors)
    }

    /// Sets ``predicate`` from a Swift `#Predicate` (nil: no filter).
    ///
    /// ```swift
    /// try request.setPredicate(#Predicate { $0.inPrint })
    /// ```
    public mutating func setPredicate(_ predicate: Foundation.Predicate<Result>?) throws {
        self.predicate = try predicate.map { try Predicate($0) }
    }

    /// Sets ``propertiesToFetch`` (dictionary results) from key paths.
    ///
    /// ```swift
    /// var request = FetchRequest<Book>()
    /// try request.setPropertiesToFetch([\.title, \.pages])   // propertiesToFetch == ["title", "pages"]
    /// ```
    public mutating func setPropertiesToFetch(_ keyPaths: [PartialKeyPath<Result>]) throws {
        propertiesToFetch = try PropertyKeyPath.names(of: keyPaths)
    }

    /// Sets ``relationshipKeyPathsForPrefetching`` from key paths of relationships (one level;
    /// deeper paths as strings: `"publisher.books"`).
    ///
    /// ```swift
    /// try request.setRelationshipKeyPathsForPrefetching([\.authors, \.publisher])
    /// ```
    public mutating func setRelationshipKeyPathsForPrefetching(_ keyPaths: [PartialKeyPath<Result>]) throws {
        relationshipKeyPathsForPrefetching = try PropertyKeyPath.names(of: keyPaths)
    }
}
