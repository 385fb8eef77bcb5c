import Foundation

/// What to fetch: an entity, a filter, an order, limits, and the shape of the results.
///
/// ```swift
/// var request = FetchRequest<Book>(entityName: "Book")
/// request.predicate = .key("pages") > 300
/// request.sortDescriptors = [SortDescriptor("title")]
/// request.fetchLimit = 20
/// let books = try context.fetch(request)
/// ```
public struct FetchRequest<Result: ManagedObject>: Sendable {
    /// What a fetch returns.
    public enum ResultType: Sendable, Hashable {
        /// Managed objects (``FetchResult/objects(_:)``).
        case managedObject
        /// Object IDs only (``FetchResult/objectIDs(_:)``).
        case managedObjectID
        /// The number of matches (``FetchResult/count(_:)``).
        case count
        /// Dictionaries of ``FetchRequest/propertiesToFetch`` (``FetchResult/dictionaries(_:)``).
        case dictionary
    }

    /// The entity fetched; nil means the entity mapped to `Result` (a subclass).
    public var entityName: String?
    /// The filter.
    public var predicate: Predicate?
    /// The order.
    public var sortDescriptors: [SortDescriptor]
    /// At most this many results (0: no limit).
    public var fetchLimit: Int = 0
    /// Skip this many results first.
    public var fetchOffset: Int = 0
    /// Fire faults in batches of this size (0: the whole result in one batch).
    public var fetchBatchSize: Int = 0
    /// Whether unsaved changes of the context (and its parents) count.
    public var includesPendingChanges = true
    /// Whether objects of sub-entities are included.
    public var includesSubentities = true
    /// Whether objects come back as faults (their rows are cached either way).
    public var returnsObjectsAsFaults = true
    /// Relationships to load along with the objects (`"authors"`, `"publisher.books"`).
    public var relationshipKeyPathsForPrefetching: [String] = []
    /// For dictionary results: the attributes and to-one relationships returned (all attributes
    /// when nil), and aggregates of attributes: `"@count"` (rows), `"@count.KEY"` (non-nil
    /// values), `"@sum.KEY"`, `"@avg.KEY"`, `"@min.KEY"`, `"@max.KEY"`, each under its own name.
    public var propertiesToFetch: [String]?
    /// For dictionary results: the attributes rows are grouped by, one result per group (with
    /// aggregates in ``propertiesToFetch``), as SQL's `GROUP BY`.
    ///
    /// ```swift
    /// var r = FetchRequest<Book>(entityName: "Book")
    /// r.propertiesToFetch = ["genre", "@count", "@sum.pages"]
    /// r.propertiesToGroupBy = ["genre"]
    /// let perGenre = try context.fetchDictionaries(r) // [["genre": "SF", "@count": 12, "@sum.pages": 4410], …]
    /// ```
    public var propertiesToGroupBy: [String]?
    /// The shape of the results, for ``ManagedObjectContext/execute(_:)->FetchResult<T>``.
    public var resultType: ResultType = .managedObject

    /// A request for objects of `entityName` (nil: the entity mapped to `T`), filtered and sorted.
    ///
    /// ```swift
    /// let request = FetchRequest<Book>(entityName: "Book", predicate: .key("pages") > 300, sortDescriptors: [SortDescriptor("title")])
    /// ```
    public init(entityName: String? = nil, predicate: Predicate? = nil, sortDescriptors: [SortDescriptor] = []) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
    }

    func storeRequest(entity: EntityDescription) -> StoreFetchRequest {
        StoreFetchRequest(
            entity: entity, includesSubentities: includesSubentities, predicate: predicate,
            sortDescriptors: sortDescriptors, fetchLimit: fetchLimit, fetchOffset: fetchOffset)
    }
}

/// The results of ``ManagedObjectContext/execute(_:)->FetchResult<T>``, by result type.
public enum FetchResult<Result: ManagedObject> {
    /// The objects, for ``FetchRequest/ResultType/managedObject``.
    case objects([Result])
    /// The IDs, for ``FetchRequest/ResultType/managedObjectID``.
    case objectIDs([ManagedObjectID])
    /// The count, for ``FetchRequest/ResultType/count``.
    case count(Int)
    /// One dictionary per row (or group), for ``FetchRequest/ResultType/dictionary``.
    case dictionaries([[String: AttributeValue]])
}
