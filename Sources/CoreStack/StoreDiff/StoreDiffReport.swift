/// The result of a ``StoreDiff``: each compared entity's changes, in the new model's entity order.
///
/// ```swift
/// let report = try StoreDiff(old: oldStore, new: newStore).run()
/// if report.hasChanges { print(report.entities.filter(\.hasChanges).map(\.name)) }
/// ```
public struct StoreDiffReport: Sendable, Hashable {
    /// The old store's UUID.
    public var oldStoreUUID: String
    /// The new store's UUID.
    public var newStoreUUID: String
    /// Whether objects were matched by primary key (same store UUID, or forced).
    public var matchedByPrimaryKey: Bool
    /// The old and new model version names (or first version identifier), when known.
    public var oldModelVersion: String?
    /// The new model's version name, when known.
    public var newModelVersion: String?
    /// One per compared entity.
    public var entities: [EntityDiff]

    /// A report from its parts.
    ///
    /// ```swift
    /// let empty = StoreDiffReport(oldStoreUUID: "A", newStoreUUID: "A", matchedByPrimaryKey: true, entities: [])
    /// ```
    public init(
        oldStoreUUID: String, newStoreUUID: String, matchedByPrimaryKey: Bool, oldModelVersion: String? = nil,
        newModelVersion: String? = nil, entities: [EntityDiff]
    ) {
        self.oldStoreUUID = oldStoreUUID
        self.newStoreUUID = newStoreUUID
        self.matchedByPrimaryKey = matchedByPrimaryKey
        self.oldModelVersion = oldModelVersion
        self.newModelVersion = newModelVersion
        self.entities = entities
    }

    /// Whether any entity has objects inserted, deleted or changed.
    public var hasChanges: Bool { entities.contains(where: \.hasChanges) }
}
