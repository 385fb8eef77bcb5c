import Foundation
import OrderedCollections

/// A store that keeps its rows in memory: for tests, previews and scratch data. Same behaviour
/// as ``SQLiteStore`` (optimistic locking, ordered relationships, predicates) without a file.
///
/// ```swift
/// let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
/// try coordinator.addPersistentStore(InMemoryStore(model: model))
/// ```
///
/// `@unchecked Sendable`: the rows and counters are read and written only under `lock`.
public final class InMemoryStore: PersistentStore, @unchecked Sendable {
    /// The model the store was created with.
    public let model: ManagedObjectModel
    /// The store's UUID string (the host of its object IDs' URIs).
    public let identifier: String
    /// Always nil: the store has no file.
    public var url: URL? { nil }
    /// Always false.
    public var isReadOnly: Bool { false }
    /// Metadata with store type `"InMemory"` and the model's version hashes.
    public var metadata: StoreMetadata {
        StoreMetadata(
            storeUUID: identifier, storeType: "InMemory", versionHashes: model.entityVersionHashes,
            versionIdentifiers: model.versionIdentifiers)
    }

    private let lock = NSLock()
    private var rows: [ManagedObjectID: RowSnapshot] = [:]
    /// Many-to-many destinations and the order of ordered relationships, by object and slot.
    private var toMany: [ManagedObjectID: [Int: OrderedSet<ManagedObjectID>]] = [:]
    private var maxKeys: [ObjectIdentifier: Int64] = [:]

    /// An empty store for `model`; `identifier` is a new UUID unless given.
    ///
    /// ```swift
    /// let store = InMemoryStore(model: model)
    /// try coordinator.addPersistentStore(store)
    /// ```
    public init(model: ManagedObjectModel, identifier: String = UUID().uuidString) {
        self.model = model
        self.identifier = identifier
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// The rows matching the request, filtered, sorted and limited in memory.
    public func fetch(_ request: StoreFetchRequest) throws -> [StoreRow] {
        try locked {
            let matching = try matchingIDs(request)
            return matching.compactMap { id in rows[id].map { StoreRow(objectID: id, snapshot: $0) } }
        }
    }

    /// How many rows match the request.
    public func count(_ request: StoreFetchRequest) throws -> Int {
        try locked { try matchingIDs(request).count }
    }

    /// The rows of these IDs (missing ones are left out).
    public func rows(for ids: [ManagedObjectID]) throws -> [StoreRow] {
        locked { ids.compactMap { id in rows[id].map { StoreRow(objectID: id, snapshot: $0) } } }
    }

    /// The to-many destinations of each object for one relationship slot, in order for ordered relationships.
    public func relatedObjectIDs(for ids: [ManagedObjectID], relationshipSlot slot: Int) throws -> [ManagedObjectID: [ManagedObjectID]] {
        locked {
            var out: [ManagedObjectID: [ManagedObjectID]] = [:]
            for id in ids { out[id] = related(id, slot: slot) }
            return out
        }
    }

    /// Reserves `count` new primary keys, shared by the entity's inheritance tree.
    public func newPrimaryKeys(for entity: EntityDescription, count: Int) throws -> [Int64] {
        locked {
            let key = ObjectIdentifier(entity.rootEntity)
            let start = (maxKeys[key] ?? 0) + 1
            maxKeys[key] = start + Int64(count) - 1
            return (0..<Int64(count)).map { start + $0 }
        }
    }

    /// Applies one save under the store's lock, checking each updated and deleted row's version; throws ``CoreStackError/mergeConflict(_:)`` and changes nothing on a mismatch.
    public func save(_ request: StoreSaveRequest) throws -> [ManagedObjectID: Int64] {
        try locked {
            var conflicts: [MergeConflict] = []
            for u in request.updated where rows[u.objectID]?.version != u.expectedVersion {
                conflicts.append(MergeConflict(objectID: u.objectID, expectedVersion: u.expectedVersion, storeVersion: rows[u.objectID]?.version ?? 0))
            }
            for d in request.deleted where rows[d.objectID].map({ $0.version != d.expectedVersion }) ?? false {
                conflicts.append(MergeConflict(objectID: d.objectID, expectedVersion: d.expectedVersion, storeVersion: rows[d.objectID]?.version ?? 0))
            }
            if !conflicts.isEmpty { throw CoreStackError.mergeConflict(conflicts) }
            // An insert under an ID the store holds (a reserved ID inserted twice) is refused, as
            // SQLite's primary key refuses it, before anything is written.
            var insertedIDs = Set<ManagedObjectID>(minimumCapacity: request.inserted.count)
            for change in request.inserted where rows[change.objectID] != nil || !insertedIDs.insert(change.objectID).inserted {
                throw CoreStackError.rowExists(change.objectID)
            }
            var versions: [ManagedObjectID: Int64] = [:]
            for change in request.inserted + request.updated {
                let v = change.expectedVersion + 1
                let values = zip(change.values, change.objectID.entity.allAttributes).map { $1.isTransient ? $1.defaultValue : $0 }
                rows[change.objectID] = RowSnapshot(values: values, toOne: change.toOne, version: v)
                versions[change.objectID] = v
                let key = ObjectIdentifier(change.objectID.entity.rootEntity)
                if let pk = change.objectID.primaryKey, pk > maxKeys[key] ?? 0 { maxKeys[key] = pk }
            }
            for change in request.inserted + request.updated {
                for m in change.toMany {
                    let r = change.objectID.entity.allRelationships[m.slot]
                    let inverse = change.objectID.entity.inverseRelationship(of: r.name)
                    if r.isOrdered || inverse?.isToMany ?? true {
                        toMany[change.objectID, default: [:]][m.slot] = OrderedSet(m.current)
                    }
                    // A batch insert's one-to-many: the destinations' foreign keys point here now.
                    if m.writesDestinationKeys, let inv = change.objectID.entity.inverseSlots[m.slot], !(inverse?.isToMany ?? true) {
                        for id in m.current {
                            guard var row = rows[id], inv < row.toOne.count else { continue }
                            // Leaving another owner's ordered set (an unordered one is derived from the keys).
                            if let old = row.toOne[inv], old != change.objectID { toMany[old]?[m.slot]?.remove(id) }
                            row.toOne[inv] = change.objectID
                            row.version += 1
                            rows[id] = row
                        }
                    }
                    // Keep the other side of a many-to-many in step.
                    if let inv = change.objectID.entity.inverseSlots[m.slot], inverse?.isToMany ?? false {
                        for id in m.added { toMany[id, default: [:]][inv, default: []].append(change.objectID) }
                        for id in m.removed { toMany[id]?[inv]?.remove(change.objectID) }
                    }
                }
            }
            for d in request.deleted {
                rows[d.objectID] = nil
                toMany[d.objectID] = nil
                for (id, slots) in toMany {
                    for (slot, set) in slots where set.contains(d.objectID) { toMany[id]?[slot]?.remove(d.objectID) }
                }
            }
            return versions
        }
    }

    // MARK: Internals (called with the lock held)

    private func related(_ id: ManagedObjectID, slot: Int) -> [ManagedObjectID] {
        let entity = id.entity
        let r = entity.allRelationships[slot]
        guard r.isToMany else {
            return rows[id].flatMap { slot < $0.toOne.count ? $0.toOne[slot] : nil }.map { [$0] } ?? []
        }
        if let inv = entity.inverseSlots[slot], !entity.destinations[slot].allRelationships[inv].isToMany {
            // Derived from the destinations' foreign keys, like the SQL store.
            let dest = entity.destinations[slot]
            var found = rows.compactMap { rid, row -> ManagedObjectID? in
                guard rid.entity.isKind(of: dest), inv < row.toOne.count, row.toOne[inv] == id else { return nil }
                return rid
            }
            if r.isOrdered, let order = toMany[id]?[slot] {
                let pos = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
                found.sort { (pos[$0] ?? Int.max, $0) < (pos[$1] ?? Int.max, $1) }
            } else {
                found.sort()
            }
            return found
        }
        return Array(toMany[id]?[slot] ?? []).filter { rows[$0] != nil }
    }

    private func matchingIDs(_ request: StoreFetchRequest) throws -> [ManagedObjectID] {
        let entity = request.entity
        var ids = rows.keys.filter { request.includesSubentities ? $0.entity.isKind(of: entity) : $0.entity === entity }
        if let p = request.predicate {
            try PredicateValidator.validate(p, entity: entity)
            ids = try ids.filter { try PredicateEvaluator.evaluate(p, on: RowSubject(store: self, id: $0)) }
        }
        ids.sort()
        if !request.sortDescriptors.isEmpty {
            let descriptors = request.sortDescriptors
            let keys = try ids.map { try SortDescriptor.sortValues(of: RowSubject(store: self, id: $0), by: descriptors) }
            ids = SortDescriptor.stableOrder(keys, by: descriptors).map { ids[$0] }
        }
        var window = ids[...]
        if request.fetchOffset > 0 { window = window.dropFirst(request.fetchOffset) }
        if request.fetchLimit > 0 { window = window.prefix(request.fetchLimit) }
        return Array(window)
    }

    /// Reads key paths from stored rows (called with the lock held).
    struct RowSubject: EvaluationSubject {
        let store: InMemoryStore
        let id: ManagedObjectID

        var selfID: ManagedObjectID? { id }

        func subject(for other: ManagedObjectID) throws -> RowSubject { RowSubject(store: store, id: other) }

        func value(forKeyPath path: [String]) throws -> EvalValue {
            try walk([id], isCollection: false, path[...])
        }

        private func walk(_ ids: [ManagedObjectID], isCollection: Bool, _ path: ArraySlice<String>) throws -> EvalValue {
            guard let key = path.first else {
                return isCollection ? .collection(ids.map { .object($0) }) : .object(ids.first)
            }
            if key.hasPrefix("@") {
                let current: EvalValue = isCollection ? .collection(ids.map { .object($0) }) : .object(ids.first)
                return try ObjectSubject.aggregate(key, current, path.dropFirst())
            }
            if isCollection {
                // Walk each member up to an aggregate, flatten, then aggregate the whole.
                let cut = path.firstIndex { $0.hasPrefix("@") } ?? path.endIndex
                var out: [EvalValue] = []
                for i in ids { out.append(contentsOf: try walk([i], isCollection: false, path[..<cut]).elements) }
                guard cut < path.endIndex else { return .collection(out) }
                return try ObjectSubject.aggregate(path[cut], .collection(out), path[(cut + 1)...])
            }
            guard let current = ids.first else { return .scalar(.null) }
            let entity = current.entity
            if let slot = entity.attributeSlots[key] {
                let v = store.rows[current]?.values[slot] ?? .null
                if let agg = path.dropFirst().first, agg.hasPrefix("@") {
                    return try ObjectSubject.aggregate(agg, .scalar(v), path.dropFirst(2))
                }
                return .scalar(v)
            }
            guard let slot = entity.relationshipSlots[key] else {
                throw CoreStackError.unknownKey(entity: entity.name, key: key)
            }
            let dest = store.related(current, slot: slot)
            let r = entity.allRelationships[slot]
            if !r.isToMany {
                if path.count == 1 { return .object(dest.first) }
                guard !dest.isEmpty else { return .scalar(.null) }
                return try walk(dest, isCollection: false, path.dropFirst())
            }
            return try walk(dest, isCollection: true, path.dropFirst())
        }
    }
}
