import Foundation

/// A store of rows: what a ``PersistentStoreCoordinator`` reads from and writes to.
///
/// Implementations must be safe to call from any thread (the coordinator calls them from its
/// contexts' queues). ``SQLiteStore`` and ``InMemoryStore`` are the two CoreStack ships.
///
/// ```swift
/// let store = try SQLiteStore(url: url, model: model)
/// let rows = try store.fetch(StoreFetchRequest(entity: model.entity(named: "Book")!))
/// ```
public protocol PersistentStore: AnyObject, Sendable {
    /// The model the store was opened with.
    var model: ManagedObjectModel { get }
    /// The store's UUID (the host of its object IDs' URIs).
    var identifier: String { get }
    /// The file, for file-backed stores.
    var url: URL? { get }
    /// Whether writes are refused.
    var isReadOnly: Bool { get }
    /// The store's metadata.
    var metadata: StoreMetadata { get }

    /// The rows matching a request, ordered and limited as it says.
    func fetch(_ request: StoreFetchRequest) throws -> [StoreRow]
    /// The rows matching a request, handed to `body` a chunk at a time as they are read, with the
    /// number of rows the whole fetch is expected to return (an estimate, for reserving room).
    ///
    /// `body` may take rows out of the chunk (what it leaves is released). It runs while the
    /// store is reading, so it must not call back into the store. The default implementation
    /// hands over ``fetch(_:)``'s result as one chunk.
    ///
    /// ```swift
    /// try store.fetch(request) { rows, expected in
    ///     while let row = rows.popLast() { use(row) }
    /// }
    /// ```
    func fetch(_ request: StoreFetchRequest, chunks body: (_ rows: inout [StoreRow], _ expectedCount: Int) throws -> Void) throws
    /// The rows matching a request a chunk at a time, with (when `withToMany`) the to-many
    /// destinations of each row's objects by relationship slot, read in the same pass: the
    /// store reads as `body` consumes, so memory stays flat whatever the number of rows.
    ///
    /// `body` is user code (``ManagedObjectContext/streamRows(_:includingToMany:_:)``): it may call
    /// back into the store, so a store must not run it while holding anything other calls wait
    /// for (``SQLiteStore`` streams on a read-only connection of its own). The default
    /// implementation reads ``fetch(_:)``'s rows and asks ``relatedObjectIDs(for:relationshipSlot:)``
    /// a chunk at a time.
    ///
    /// ```swift
    /// try store.fetch(request, withToMany: true) { rows, toMany in
    ///     for row in rows { print(row.objectID, toMany[row.objectID] ?? [:]) }
    /// }
    /// ```
    func fetch(
        _ request: StoreFetchRequest, withToMany: Bool,
        chunks body: (_ rows: inout [StoreRow], _ toMany: [ManagedObjectID: [Int: [ManagedObjectID]]]) throws -> Void
    ) throws
    /// The IDs of the rows matching a request, in its order, without reading the rows' values
    /// (for ``ManagedObjectContext/fetchObjectIDs(_:)`` and batched fetches). The default
    /// implementation maps ``fetch(_:)``.
    ///
    /// ```swift
    /// let ids = try store.fetchObjectIDs(StoreFetchRequest(entity: book))
    /// ```
    func fetchObjectIDs(_ request: StoreFetchRequest) throws -> [ManagedObjectID]
    /// The IDs of the rows matching a request, in its order, each with the values of a few
    /// attributes (`slots` index the request entity's ``EntityDescription/allAttributes``, which
    /// sub-entities share): what a fetched-results controller files objects under, without the
    /// rest of each row. The default implementation maps ``fetch(_:)``.
    ///
    /// ```swift
    /// let keyed = try store.fetchObjectIDs(request, valuesAt: [book.attributeSlots["title"]!])
    /// ```
    func fetchObjectIDs(_ request: StoreFetchRequest, valuesAt slots: [Int]) throws -> [(objectID: ManagedObjectID, values: [AttributeValue])]
    /// The IDs of the rows matching a request, in its order, and the values of a few attributes
    /// as columns (one array per slot, each parallel to the IDs): ``fetchObjectIDs(_:valuesAt:)``
    /// without an array per row, for a fetched-results controller over many rows. It may run on
    /// any thread; when `cancellation` is cancelled it stops and throws `CancellationError` (the
    /// SQLite store stops its query mid-way). The default implementation transposes
    /// ``fetchObjectIDs(_:valuesAt:)``, checking `cancellation` before and after.
    ///
    /// ```swift
    /// let (ids, columns) = try store.fetchObjectIDColumns(request, valuesAt: [book.attributeSlots["title"]!], cancellation: nil)
    /// ```
    func fetchObjectIDColumns(
        _ request: StoreFetchRequest, valuesAt slots: [Int], cancellation: FetchCancellation?
    ) throws -> (ids: [ManagedObjectID], columns: [[AttributeValue]])
    /// The values of a dictionary fetch, one array per result row in `columns`' order: plain
    /// attributes and to-one destinations (as URIs), or, grouped by the attribute slots `groupBy`
    /// (or over all rows when only aggregates are asked for), aggregates. The request's offset and
    /// limit apply to the result rows. The default implementation aggregates ``fetch(_:)``'s rows
    /// in memory.
    ///
    /// ```swift
    /// let sums = try store.fetchDictionaryRows(request, columns: [.attribute(slot: 0, name: "genre"),
    ///                                          .aggregate(.sum, slot: 1, name: "@sum.pages")], groupBy: [0])
    /// ```
    func fetchDictionaryRows(_ request: StoreFetchRequest, columns: [DictionaryColumn], groupBy: [Int]) throws -> [[AttributeValue]]
    /// Sets attributes (by slot of the request's entity) of every row matching a request, in one
    /// transaction, each changed row's version incremented; returns the changed rows' IDs. The
    /// default implementation refuses: batch requests need an SQL store.
    func executeBatchUpdate(_ request: StoreFetchRequest, values: [Int: AttributeValue]) throws -> [ManagedObjectID]
    /// Deletes the rows matching `request` (when given) or else these objects, in one
    /// transaction, applying delete rules as ``BatchDeleteRequest`` describes; returns the
    /// deleted IDs and those of objects whose relationships changed. The default implementation
    /// refuses: batch requests need an SQL store.
    func executeBatchDelete(matching request: StoreFetchRequest?, objectIDs: [ManagedObjectID]) throws -> SavedObjectIDs
    /// How many rows match a request (limit and offset applied).
    func count(_ request: StoreFetchRequest) throws -> Int
    /// The rows of these objects (for firing faults in batches); missing rows are left out.
    func rows(for ids: [ManagedObjectID]) throws -> [StoreRow]
    /// The destinations of a to-many relationship for each of these objects, in order for ordered
    /// relationships. `slot` indexes the relationship in the entity's ``EntityDescription/allRelationships``;
    /// every ID in `ids` is of that entity or a sub-entity.
    func relatedObjectIDs(for ids: [ManagedObjectID], relationshipSlot slot: Int) throws -> [ManagedObjectID: [ManagedObjectID]]
    /// Reserves `count` new primary keys for an entity (from its root entity's `Z_MAX`).
    func newPrimaryKeys(for entity: EntityDescription, count: Int) throws -> [Int64]
    /// Writes one save in one transaction. Every written row's version becomes its
    /// `expectedVersion + 1`; the result lists only rows whose new version is something else
    /// (callers assume `expectedVersion + 1` for the rest), so a store may return an empty map.
    func save(_ request: StoreSaveRequest) throws -> [ManagedObjectID: Int64]
}

extension PersistentStore {
    /// Default: throws ``CoreStackError/invalidFetchRequest(_:)``; batch updates need an SQL store.
    public func executeBatchUpdate(_ request: StoreFetchRequest, values: [Int: AttributeValue]) throws -> [ManagedObjectID] {
        throw CoreStackError.invalidFetchRequest("batch updates need an SQL store; \(type(of: self)) has none")
    }

    /// Default: throws ``CoreStackError/invalidFetchRequest(_:)``; batch deletes need an SQL store.
    public func executeBatchDelete(matching request: StoreFetchRequest?, objectIDs: [ManagedObjectID]) throws -> SavedObjectIDs {
        throw CoreStackError.invalidFetchRequest("batch deletes need an SQL store; \(type(of: self)) has none")
    }

    /// Default: fetches the rows and computes the columns, grouping and aggregates in memory.
    public func fetchDictionaryRows(_ request: StoreFetchRequest, columns: [DictionaryColumn], groupBy: [Int]) throws -> [[AttributeValue]] {
        try DictionaryColumn.rowsInMemory(self, request, columns: columns, groupBy: groupBy)
    }

    /// Default: transposes ``fetchObjectIDs(_:valuesAt:)``, checking `cancellation` before and after.
    public func fetchObjectIDColumns(
        _ request: StoreFetchRequest, valuesAt slots: [Int], cancellation: FetchCancellation?
    ) throws -> (ids: [ManagedObjectID], columns: [[AttributeValue]]) {
        try cancellation?.check()
        let rows = try fetchObjectIDs(request, valuesAt: slots)
        try cancellation?.check()
        let columns = slots.indices.map { i in rows.map { i < $0.values.count ? $0.values[i] : .null } }
        return (rows.map(\.objectID), columns)
    }

    /// Default: fetches the rows and keeps their IDs and the values at `slots`.
    public func fetchObjectIDs(_ request: StoreFetchRequest, valuesAt slots: [Int]) throws -> [(objectID: ManagedObjectID, values: [AttributeValue])] {
        try fetch(request).map { row in
            (row.objectID, slots.map { $0 < row.snapshot.values.count ? row.snapshot.values[$0] : .null })
        }
    }

    /// Default: fetches the rows and keeps their IDs.
    public func fetchObjectIDs(_ request: StoreFetchRequest) throws -> [ManagedObjectID] {
        try fetch(request).map(\.objectID)
    }

    /// Default: hands ``fetch(_:)``'s whole result to `body` as one chunk.
    public func fetch(_ request: StoreFetchRequest, chunks body: (_ rows: inout [StoreRow], _ expectedCount: Int) throws -> Void) throws {
        var rows = try fetch(request)
        try body(&rows, rows.count)
    }

    /// Default: reads ``fetch(_:)``'s rows and hands them over 256 at a time, with their to-many destinations from ``relatedObjectIDs(for:relationshipSlot:)`` when `withToMany`.
    public func fetch(
        _ request: StoreFetchRequest, withToMany: Bool,
        chunks body: (_ rows: inout [StoreRow], _ toMany: [ManagedObjectID: [Int: [ManagedObjectID]]]) throws -> Void
    ) throws {
        let all = try fetch(request)
        var start = 0
        while start < all.count {
            var chunk = Array(all[start..<min(all.count, start + 256)])
            start += 256
            var toMany: [ManagedObjectID: [Int: [ManagedObjectID]]] = [:]
            if withToMany {
                var groups: [ObjectIdentifier: (entity: EntityDescription, ids: [ManagedObjectID])] = [:]
                for row in chunk {
                    groups[ObjectIdentifier(row.objectID.entity), default: (row.objectID.entity, [])].ids.append(row.objectID)
                }
                for group in groups.values {
                    for (slot, r) in group.entity.allRelationships.enumerated() where r.isToMany && !r.isTransient {
                        for (id, dest) in try relatedObjectIDs(for: group.ids, relationshipSlot: slot) {
                            toMany[id, default: [:]][slot] = dest
                        }
                    }
                }
            }
            try body(&chunk, toMany)
        }
    }
}
