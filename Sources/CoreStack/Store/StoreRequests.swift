import Foundation

/// What a store is asked to fetch: the store-level part of a ``FetchRequest``.
public struct StoreFetchRequest: Sendable {
    /// The entity fetched.
    public var entity: EntityDescription
    /// Whether rows of sub-entities are included.
    public var includesSubentities: Bool
    /// The filter; nil fetches every row.
    public var predicate: Predicate?
    /// The order.
    public var sortDescriptors: [SortDescriptor]
    /// At most this many rows (0: no limit).
    public var fetchLimit: Int
    /// Skip this many rows first.
    public var fetchOffset: Int

    /// A request for the rows of `entity`; the defaults fetch every row, unsorted.
    public init(
        entity: EntityDescription, includesSubentities: Bool = true, predicate: Predicate? = nil,
        sortDescriptors: [SortDescriptor] = [], fetchLimit: Int = 0, fetchOffset: Int = 0
    ) {
        self.entity = entity
        self.includesSubentities = includesSubentities
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
    }
}

/// Everything one save writes, in one transaction.
///
/// Every ID is permanent. The store applies inserts, then updates, then to-many changes, then
/// deletes, checks each updated and deleted row's version (`Z_OPT`) and throws
/// ``CoreStackError/mergeConflict(_:)`` listing every mismatch, writing nothing.
public struct StoreSaveRequest: Sendable {
    /// New rows, written with version 1.
    public var inserted: [StoreRowChange]
    /// Changed rows, each written only if its version is still the one read.
    public var updated: [StoreRowChange]
    /// Deleted rows, each deleted only if its version is still the one read.
    public var deleted: [StoreRowDeletion]
    /// The saving context's ``ManagedObjectContext/transactionAuthor``, for persistent history.
    public var transactionAuthor: String?
    /// The saving context's ``ManagedObjectContext/name``, for persistent history.
    public var contextName: String?

    /// A save request; set ``transactionAuthor`` and ``contextName`` for history.
    public init(inserted: [StoreRowChange] = [], updated: [StoreRowChange] = [], deleted: [StoreRowDeletion] = []) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    /// Whether the request writes nothing.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

/// An inserted or updated row: its full new state.
public struct StoreRowChange: Sendable {
    /// The object (a permanent ID).
    public var objectID: ManagedObjectID
    /// All attribute values by slot (transient slots are ignored).
    public var values: [AttributeValue]
    /// All to-one destinations by relationship slot (the foreign keys).
    public var toOne: [ManagedObjectID?]
    /// The version the context read (0 for an insert). The row is written with `expectedVersion + 1`.
    public var expectedVersion: Int64
    /// The to-many relationships of this object that changed.
    public var toMany: [ToManyChange]

    /// A row change: the full new state and the version read.
    public init(
        objectID: ManagedObjectID, values: [AttributeValue], toOne: [ManagedObjectID?], expectedVersion: Int64,
        toMany: [ToManyChange] = []
    ) {
        self.objectID = objectID
        self.values = values
        self.toOne = toOne
        self.expectedVersion = expectedVersion
        self.toMany = toMany
    }
}

/// A change to one to-many relationship of one object.
///
/// Many-to-many relationships are written from these (join-table rows added and removed); ordered
/// relationships rewrite their order keys (`Z_FOK_…`) from ``current``. A to-many whose inverse is a
/// to-one needs nothing else: the destinations' foreign keys arrive as their own row changes —
/// unless ``writesDestinationKeys`` is set (batch inserts, whose destinations are not saved rows).
public struct ToManyChange: Sendable {
    /// The relationship's slot in the source entity's ``EntityDescription/allRelationships``.
    public var slot: Int
    /// The destinations now, in order for ordered relationships.
    public var current: [ManagedObjectID]
    /// Destinations added since the last save.
    public var added: [ManagedObjectID]
    /// Destinations removed since the last save.
    public var removed: [ManagedObjectID]
    /// For a to-many whose inverse is a to-one: the store points the foreign keys of the
    /// destinations in ``current`` at the source itself (and bumps their versions), as a batch
    /// insert needs; false when the destinations arrive as row changes of their own.
    public var writesDestinationKeys: Bool

    /// A change of the relationship at `slot`: the destinations now, and those added and removed.
    public init(
        slot: Int, current: [ManagedObjectID], added: [ManagedObjectID], removed: [ManagedObjectID],
        writesDestinationKeys: Bool = false
    ) {
        self.slot = slot
        self.current = current
        self.added = added
        self.removed = removed
        self.writesDestinationKeys = writesDestinationKeys
    }
}

/// A deleted row.
public struct StoreRowDeletion: Sendable {
    /// The object (a permanent ID).
    public var objectID: ManagedObjectID
    /// The version the context read.
    public var expectedVersion: Int64

    /// A deletion of `objectID`, guarded by the version the context read.
    public init(objectID: ManagedObjectID, expectedVersion: Int64) {
        self.objectID = objectID
        self.expectedVersion = expectedVersion
    }
}

/// What a store knows about itself: identity, format, and the model it was written with.
public struct StoreMetadata: Sendable, Equatable {
    /// The store's UUID (uppercase, with hyphens), the host of its object IDs' URIs.
    public var storeUUID: String
    /// `"SQLite"` or `"InMemory"`.
    public var storeType: String
    /// `NSPersistenceFrameworkVersion` as the writer recorded it.
    public var frameworkVersion: Int?
    /// Entity name → version hash, as the writer recorded them.
    public var versionHashes: [String: Data]
    /// `NSStoreModelVersionIdentifiers`.
    public var versionIdentifiers: [String]

    /// Metadata from its parts.
    public init(
        storeUUID: String, storeType: String, frameworkVersion: Int? = nil, versionHashes: [String: Data] = [:],
        versionIdentifiers: [String] = []
    ) {
        self.storeUUID = storeUUID
        self.storeType = storeType
        self.frameworkVersion = frameworkVersion
        self.versionHashes = versionHashes
        self.versionIdentifiers = versionIdentifiers
    }
}
