/// What changed in one entity between the two stores of a ``StoreDiff``: exact counts, and the
/// objects themselves up to ``StoreDiffOptions/changeLimit`` of each kind.
///
/// Only the entity's own rows are compared (`Z_ENT` is the entity's): a sub-entity has an
/// ``EntityDiff`` of its own.
///
/// ```swift
/// let books = report.entities.first { $0.name == "Book" }
/// print(books?.insertedCount ?? 0, books?.deletedCount ?? 0, books?.changedCount ?? 0)
/// ```
public struct EntityDiff: Sendable, Hashable {
    /// The entity's name (in the new model; the old one's when only the old model has it).
    public var name: String
    /// How its objects were matched.
    public var match: StoreDiffMatch
    /// Objects in the old store.
    public var oldCount: Int
    /// Objects in the new store.
    public var newCount: Int
    /// Objects only in the new store.
    public var insertedCount = 0
    /// Objects only in the old store.
    public var deletedCount = 0
    /// Objects in both whose values differ.
    public var changedCount = 0
    /// Objects in both, the same.
    public var unchangedCount = 0
    /// Inserted objects, in key order, up to the limit.
    public var inserted: [ObjectReference] = []
    /// Deleted objects, in key order, up to the limit.
    public var deleted: [ObjectReference] = []
    /// Changed objects, in key order, up to the limit.
    public var changed: [ObjectChange] = []
    /// Links of to-many relationships stored in join tables that only the new store has.
    public var linkedCount = 0
    /// Links of to-many relationships stored in join tables that only the old store has.
    public var unlinkedCount = 0
    /// Those links, by relationship then key order, up to the limit (linked and unlinked together).
    public var links: [RelationshipLinkChange] = []
    /// Ordered to-many relationships of objects in both stores whose shared members changed order.
    public var reorderedCount = 0
    /// Those order changes, by relationship then key order, up to the limit.
    public var reorders: [RelationshipOrderChange] = []
    /// Notes: properties only one model has, renames followed, objects whose match key is null or
    /// not unique (they are left out or paired in primary key order).
    public var notes: [String] = []

    /// An entity's diff with no objects counted yet.
    ///
    /// ```swift
    /// let d = EntityDiff(name: "Book", match: .primaryKey, oldCount: 10, newCount: 11)
    /// ```
    public init(name: String, match: StoreDiffMatch, oldCount: Int, newCount: Int) {
        self.name = name
        self.match = match
        self.oldCount = oldCount
        self.newCount = newCount
    }

    /// Whether anything differs (objects inserted, deleted or changed, links made or removed,
    /// members of ordered relationships moved).
    public var hasChanges: Bool { insertedCount + deletedCount + changedCount + linkedCount + unlinkedCount + reorderedCount > 0 }
}
