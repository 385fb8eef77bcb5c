/// Which column to describe with ``ColumnStatistics``, over which objects.
///
/// ```swift
/// var request = ColumnStatisticsRequest(entity: book, property: "published")
/// request.predicate = try Predicate(format: "pages > 100")
/// request.mostCommonLimit = 20
/// ```
public struct ColumnStatisticsRequest: Sendable {
    /// The entity whose objects are described.
    public var entity: EntityDescription
    /// An attribute (stored) or a relationship of the entity.
    public var property: String
    /// Only the objects matching it (the table's current filter); nil for all.
    public var predicate: Predicate?
    /// Objects of sub-entities too (as a fetch of the entity includes them).
    public var includesSubentities = true
    /// How many of the most common values to return.
    public var mostCommonLimit = 10
    /// How many bins the histogram has.
    public var binCount = 10

    /// A request for `property` of `entity` over every object.
    ///
    /// ```swift
    /// let request = ColumnStatisticsRequest(entity: book, property: "authors")   // links per book
    /// ```
    public init(entity: EntityDescription, property: String, predicate: Predicate? = nil) {
        self.entity = entity
        self.property = property
        self.predicate = predicate
    }
}
