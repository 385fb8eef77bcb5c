/// What ``StoreDiff`` compares and how it matches objects across two stores.
///
/// ```swift
/// var options = StoreDiffOptions()
/// options.keys = ["Book": "isbn"]      // match books by ISBN when the stores differ
/// options.keys["Edition"] = "title,year"   // editions by title and year together
/// options.entities = ["Book"]          // only books
/// options.changeLimit = 20             // keep 20 objects of each kind per entity (counts stay exact)
/// ```
public struct StoreDiffOptions: Sendable, Equatable {
    /// Entity name → the attribute that identifies its objects in both stores (`--key Entity=attribute`),
    /// or several separated by commas (`"title,year"`: a compound key); used when the stores are
    /// not the same store (different store UUIDs), before uniqueness constraints and UUID attributes.
    public var keys: [String: String]
    /// The entities to compare (names in the new store's model, or the old one's); nil compares all.
    public var entities: [String]?
    /// How many inserted, deleted and changed objects each entity's report keeps of each kind;
    /// nil keeps all. Counts are always exact.
    public var changeLimit: Int?
    /// How many rows are read from each store at a time (memory is bounded by this).
    public var chunkSize: Int
    /// Match by primary key even when the store UUIDs differ (e.g. a copy whose metadata was rewritten).
    public var forcePrimaryKey: Bool

    /// Options with every entity compared, matched automatically, every change kept.
    ///
    /// ```swift
    /// let options = StoreDiffOptions(keys: ["Author": "name"], changeLimit: 10)
    /// ```
    public init(
        keys: [String: String] = [:], entities: [String]? = nil, changeLimit: Int? = nil, chunkSize: Int = 2000,
        forcePrimaryKey: Bool = false
    ) {
        self.keys = keys
        self.entities = entities
        self.changeLimit = changeLimit
        self.chunkSize = max(1, chunkSize)
        self.forcePrimaryKey = forcePrimaryKey
    }
}
