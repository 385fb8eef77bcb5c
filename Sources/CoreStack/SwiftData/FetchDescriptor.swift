import Foundation

/// What to fetch, filtered and in what order (SwiftData's `FetchDescriptor`): a Foundation
/// `#Predicate` and `SortDescriptor`s by key path, translated into CoreStack's ``FetchRequest``
/// (the same SQL as the string predicate language).
///
/// ```swift
/// var descriptor = FetchDescriptor<Book>(
///     predicate: #Predicate { $0.pages > 300 },
///     sortBy: [Foundation.SortDescriptor(\Book.title)])
/// descriptor.fetchLimit = 10
/// let books = try context.fetch(descriptor)
/// ```
///
/// In a file that imports CoreStack, `Predicate` and `SortDescriptor` are CoreStack's too: write
/// `#Predicate` (the macro names Foundation's) and `Foundation.SortDescriptor`.
public struct FetchDescriptor<T: PersistentModel> {
    /// The filter (nil: every model of the class).
    public var predicate: Foundation.Predicate<T>? { didSet { translated = TranslatedRequest<T>() } }
    /// The order, first descriptor first (strings by code point, see ``SortDescriptor``).
    public var sortBy: [Foundation.SortDescriptor<T>] { didSet { translated = TranslatedRequest<T>() } }
    /// At most this many models (nil: all).
    public var fetchLimit: Int? { didSet { translated = TranslatedRequest<T>() } }
    /// Skip this many first (nil: none).
    public var fetchOffset: Int? { didSet { translated = TranslatedRequest<T>() } }
    /// Whether unsaved inserts, changes and deletes of the context count (default true).
    public var includePendingChanges = true { didSet { translated = TranslatedRequest<T>() } }
    /// Relationships whose destinations are loaded with the results.
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>] = [] { didSet { translated = TranslatedRequest<T>() } }
    /// The properties SwiftData loads first. CoreStack loads a model's attributes together, so
    /// this is only checked (each must name a property of the model).
    public var propertiesToFetch: [PartialKeyPath<T>] = [] { didSet { translated = TranslatedRequest<T>() } }

    /// The request translated from this descriptor, shared by its copies until one is changed
    /// (a change gives the changed copy a new, empty box).
    private var translated = TranslatedRequest<T>()

    /// A descriptor.
    ///
    /// ```swift
    /// let all = FetchDescriptor<Book>()
    /// let sorted = FetchDescriptor<Book>(sortBy: [Foundation.SortDescriptor(\Book.title, order: .reverse)])
    /// ```
    public init(predicate: Foundation.Predicate<T>? = nil, sortBy: [Foundation.SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }

    /// The CoreStack request it stands for.
    ///
    /// ```swift
    /// let request = try descriptor.fetchRequest()
    /// let controller = FetchedResultsController(fetchRequest: request, context: context.managedObjectContext)
    /// ```
    ///
    /// The translation is made once per descriptor (kept until a property changes), so fetching
    /// again with the same descriptor does not walk the predicate again.
    /// - Throws: ``CoreStackError/unsupportedPredicate(part:reason:)`` for a predicate part, sort or
    ///   key path with no translation (a computed property, a comparator sort), naming it.
    public func fetchRequest() throws -> FetchRequest<T> {
        if let request = translated.request { return request }
        let request = try translate()
        translated.request = request
        return request
    }

    /// Whether the translated request is kept (tests).
    var isTranslated: Bool { translated.request != nil }

    private func translate() throws -> FetchRequest<T> {
        var request = FetchRequest<T>()
        try request.setPredicate(predicate)
        request.sortDescriptors = try sortBy.map { try SortDescriptor($0) }
        request.fetchLimit = max(fetchLimit ?? 0, 0)
        request.fetchOffset = max(fetchOffset ?? 0, 0)
        request.includesPendingChanges = includePendingChanges
        try request.setRelationshipKeyPathsForPrefetching(relationshipKeyPathsForPrefetching)
        _ = try PropertyKeyPath.names(of: propertiesToFetch)
        return request
    }
}

