import Foundation
import OrderedCollections

extension ManagedObjectContext {
    /// Fetches objects.
    ///
    /// ```swift
    /// let books = try context.fetch(FetchRequest<Book>(entityName: "Book", predicate: .key("pages") > 100))
    /// ```
    public func fetch<T: ManagedObject>(_ request: FetchRequest<T>) throws -> [T] {
        checkQueue()
        let entity = try entity(of: request)
        // A root context with no changes that matter reads rows straight from the store, and
        // fills objects that must not stay faults from those rows without a second lookup.
        let ids: [ManagedObjectID]
        processPendingChanges()
        sweepUnreferencedObjectsIfGrown()
        if parent == nil, !request.includesPendingChanges || !hasLocalChanges(affecting: request.storeRequest(entity: entity)) {
            if request.returnsObjectsAsFaults && request.fetchBatchSize > 0 {
                // Batched: the IDs only, as Core Data does; each batch's rows are read when one
                // of its faults fires, so no row of an untouched batch is read or cached.
                ids = try persistentStoreCoordinator.fetchObjectIDs(request.storeRequest(entity: entity))
            } else if request.returnsObjectsAsFaults {
                ids = try persistentStoreCoordinator.fetch(request.storeRequest(entity: entity)).map { $0.objectID }
            } else {
                // Objects are filled from the rows as the store reads them: no separate ID array.
                // The loop is not generic (a generic one looks type metadata up per row); every
                // object it returns was checked to be a `T`, so the array is one of `T`s.
                let objects = try streamedObjects(request.storeRequest(entity: entity), of: T.self) { $0 is T }
                let out = unsafeBitCast(objects, to: [T].self)
                // `objects`, not `out`: passing a `[T]` as `[ManagedObject]` converts it element by element.
                if !request.relationshipKeyPathsForPrefetching.isEmpty { try fireFaults(objects) }
                for path in request.relationshipKeyPathsForPrefetching {
                    try prefetch(path.split(separator: ".").map(String.init)[...], for: objects)
                }
                return out
            }
        } else {
            ids = try resultIDs(request, entity: entity)
        }
        // Objects left as faults share one batch, so firing one loads its neighbours.
        var batch: FaultBatch?
        func faultBatch() -> FaultBatch {
            if let batch { return batch }
            let made = FaultBatch(ids: ids, batchSize: request.fetchBatchSize > 0 ? request.fetchBatchSize : max(ids.count, 1))
            batch = made
            return made
        }
        var out: [T] = []
        out.reserveCapacity(ids.count)
        var allMaterialized = true
        for id in ids {
            let o = try registeredObject(canonicalOrTemporary: id, as: T.self)
            if o.isFault {
                allMaterialized = false
                if o.faultBatch == nil { o.faultBatch = faultBatch() }
            }
            out.append(o)
        }
        if (!request.returnsObjectsAsFaults && !allMaterialized) || !request.relationshipKeyPathsForPrefetching.isEmpty {
            try fireFaults(out)
        }
        for path in request.relationshipKeyPathsForPrefetching {
            try prefetch(path.split(separator: ".").map(String.init)[...], for: out)
        }
        return out
    }

    /// A batched fetch of object IDs that also returns the values of a few attributes read in the
    /// same SQL query, one column per slot (a fetched-results controller's sort and section keys);
    /// no object is registered and no row cached. Nil when a parent or unsaved changes here stand
    /// between the request and the store.
    func batchedFetch<T: ManagedObject>(
        _ request: FetchRequest<T>, entity: EntityDescription, valuesAt slots: [Int]
    ) throws -> (ids: [ManagedObjectID], columns: [[AttributeValue]])? {
        guard let storeRequest = batchedStoreRequest(request, entity: entity) else { return nil }
        return try persistentStoreCoordinator.fetchObjectIDColumns(storeRequest, valuesAt: slots)
    }

    /// The store request of a batched fetch whose answer the store alone gives (nothing unsaved
    /// here or in a parent may change it), or nil. Processes pending changes first.
    func batchedStoreRequest<T: ManagedObject>(_ request: FetchRequest<T>, entity: EntityDescription) -> StoreFetchRequest? {
        checkQueue()
        processPendingChanges()
        let storeRequest = request.storeRequest(entity: entity)
        guard request.fetchBatchSize > 0, request.returnsObjectsAsFaults, request.relationshipKeyPathsForPrefetching.isEmpty,
            parent == nil ? !request.includesPendingChanges || !hasLocalChanges(affecting: storeRequest)
                : !chainHasChanges(affecting: storeRequest)
        else { return nil }
        return storeRequest
    }

    /// The objects for IDs this context's store returned (the registered ones, faults for the
    /// others), the new faults sharing one fault batch so that firing one reads them all.
    func registeredFaults<T: ManagedObject>(for ids: [ManagedObjectID], as _: T.Type) throws -> [T] {
        checkQueue()
        let batch = FaultBatch(ids: ids, batchSize: max(ids.count, 1))
        var out: [T] = []
        out.reserveCapacity(ids.count)
        for id in ids {
            let o = try registeredObject(canonicalOrTemporary: id, as: T.self)
            if o.isFault && o.faultBatch == nil { o.faultBatch = batch }
            out.append(o)
        }
        return out
    }

    /// Whether unsaved changes here or in any parent may change the result of a store request
    /// (when none may, the store's answer is this context's).
    func chainHasChanges(affecting request: StoreFetchRequest) -> Bool {
        if hasLocalChanges(affecting: request) { return true }
        guard let parent else { return false }
        return parent.performAndWait { parent.chainHasChanges(affecting: request) }
    }

    /// The registered object for an ID the store or parent returned, registering a fault when
    /// there is none; throws when the object is not of class `T`.
    private func registeredObject<T: ManagedObject>(canonicalOrTemporary id: ManagedObjectID, as _: T.Type) throws -> T {
        // The IDs come from this context's own store or parent: no model check needed. A
        // permanent ID is canonical, so one probe finds or registers its object.
        let o: ManagedObject
        if id.isTemporaryID {
            o = registeredObject(for: id) ?? makeFault(for: persistentStoreCoordinator.canonicalID(id))
        } else if let found = registered[id] {
            o = found
        } else {
            // No closure capturing the context here: retaining a context (which its coordinator
            // references weakly) takes the runtime's slow path.
            o = makeObject(for: id)
            registered.insertNew(o, forAbsentKey: id)
        }
        // The exact class needs no dynamic cast (the common case: the entity's own class).
        if type(of: o) == T.self { return unsafeDowncast(o, to: T.self) }
        guard let typed = o as? T else {
            throw CoreStackError.typeMismatch(
                entity: o.entity.name, key: "(fetch)", expected: "\(T.self)", got: "an object of class \(type(of: o))")
        }
        return typed
    }

    /// Objects for the rows of a store fetch, in the rows' order: faults among them are filled
    /// from their rows, which also go into the coordinator's row cache.
    ///
    /// The store hands the rows over a chunk at a time as it reads them; they are only collected
    /// (and cached) there. Objects are made and filled once the store has left its connection
    /// queue: a subclass's `init(entity:objectID:)` and its stored-property initialisers are user
    /// code and may fetch or fire faults, which a store still reading could not serve. Each row's
    /// snapshot moves into its object, and the object's `awakeFromFetch` runs at once, in the
    /// rows' order, as Core Data runs it when an object's values load: the object is still in the
    /// processor's cache (a separate pass over 100,000 objects afterwards took ~3 % of workload 2
    /// in cache misses). Every row is cached by then, so an `awakeFromFetch` that touches an
    /// object later in the result fires its fault from the row cache, and that object is then
    /// found filled (and awoken) when its row comes.
    ///
    /// No row is copied on the way (a copy retains and later releases its arrays, one cache miss
    /// each once the fetch outgrows the processor's cache): each chunk's buffer is taken whole,
    /// and the second reference an object needs to its values (`values` beside `committed`) is
    /// taken while the chunk is still in cache.
    private func streamedObjects(
        _ request: StoreFetchRequest, of type: ManagedObject.Type, isOfType: (ManagedObject) -> Bool
    ) throws -> [ManagedObject] {
        var chunks: [(rows: [StoreRow], values: [[AttributeValue]])] = []
        var count = 0
        try persistentStoreCoordinator.fetchRows(request) { chunk, _ in
            var rows: [StoreRow] = []
            rows.reserveCapacity(chunk.count)
            swap(&rows, &chunk)
            count += rows.count
            chunks.append((rows, rows.map { $0.snapshot.values }))
        }
        var out: [ManagedObject] = []
        out.reserveCapacity(count)
        // The relationships of the entity of the last object filled (rows come in runs of one
        // entity): read from the entity once per run, not once per object (see `materialize`).
        var runEntity: EntityDescription?
        var relationships: [RelationshipDescription] = []
        for c in chunks.indices {
            var (rows, values) = (chunks[c].rows, chunks[c].values)
            chunks[c] = ([], [])
            // Reversed by moves (a buffer's swapAt retains nothing; Array's copies), then taken
            // from the end: each row moves out in order, its snapshot into its object.
            rows.withUnsafeMutableBufferPointer { $0.reverse() }
            values.withUnsafeMutableBufferPointer { $0.reverse() }
            while var row = rows.popLast(), var shared = values.popLast() {
                let id = row.objectID
                // A store's IDs are permanent and canonical: one probe finds or registers the object.
                let o = id.isTemporaryID
                    ? (registeredObject(for: id) ?? makeFault(for: persistentStoreCoordinator.canonicalID(id)))
                    : registered.object(forPermanent: id, orInsert: { makeObject(for: id) })
                if Swift.type(of: o) != type, !isOfType(o) {
                    throw CoreStackError.typeMismatch(
                        entity: o.entity.name, key: "(fetch)", expected: "\(type)", got: "an object of class \(Swift.type(of: o))")
                }
                out.append(o)
                if o.isFault {
                    // Swapped out of the row, not copied: a copy would retain the snapshot's
                    // arrays, a cache miss each once the fetch outgrows the processor's cache.
                    if o.entity !== runEntity {
                        runEntity = o.entity
                        relationships = o.entity.allRelationships
                    }
                    o.materialize(from: row.takeSnapshot(), sharedValues: &shared, relationships: relationships)
                    o.awakeFromFetch()
                }
            }
        }
        return out
    }

    /// Fetches object IDs only: in SQL (`SELECT Z_PK, Z_ENT`), no row read or cached and no
    /// object made, unless unsaved changes along the way may change the result.
    ///
    /// ```swift
    /// let ids = try context.fetchObjectIDs(FetchRequest<Book>(entityName: "Book", predicate: .key("pages") > 300))
    /// ```
    public func fetchObjectIDs<T: ManagedObject>(_ request: FetchRequest<T>) throws -> [ManagedObjectID] {
        checkQueue()
        let entity = try entity(of: request)
        processPendingChanges()
        return try resultIDs(request.storeRequest(entity: entity), includesPendingChanges: request.includesPendingChanges, rowsNeeded: false)
    }

    /// Counts the objects a request would return.
    ///
    /// ```swift
    /// let n = try context.count(for: FetchRequest<Book>(entityName: "Book"))
    /// ```
    ///
    /// The count runs in SQL (`SELECT COUNT`) unless unsaved changes along the way may change it:
    /// a child context with no such changes asks its parent, and so on down to the root, so that
    /// counting in a context of a nested stack reads no rows.
    public func count<T: ManagedObject>(for request: FetchRequest<T>) throws -> Int {
        checkQueue()
        let entity = try entity(of: request)
        processPendingChanges()
        return try resultCount(request.storeRequest(entity: entity), includesPendingChanges: request.includesPendingChanges)
    }

    /// The number of results of a store request, in SQL where no unsaved change up the chain of
    /// parents may change it.
    func resultCount(_ request: StoreFetchRequest, includesPendingChanges: Bool) throws -> Int {
        if includesPendingChanges && hasLocalChanges(affecting: request) {
            return try resultIDs(request, includesPendingChanges: true, rowsNeeded: false).count
        }
        if let parent {
            return try parent.performAndWait { try parent.resultCount(request, includesPendingChanges: includesPendingChanges) }
        }
        return try persistentStoreCoordinator.count(request)
    }

    /// Fetches dictionaries of the chosen attributes (``FetchRequest/propertiesToFetch``), or of
    /// aggregates, grouped by ``FetchRequest/propertiesToGroupBy``.
    ///
    /// ```swift
    /// var r = FetchRequest<Book>(entityName: "Book")
    /// r.propertiesToFetch = ["title", "pages"]
    /// let rows = try context.fetchDictionaries(r) // [["title": "Dune", "pages": 412], …]
    /// r.propertiesToFetch = ["@max.pages", "@count"]
    /// let stats = try context.fetchDictionaries(r) // [["@max.pages": 1200, "@count": 300]]
    /// ```
    ///
    /// A root context with no unsaved changes that matter asks the store, which runs it in SQL
    /// (no row cached, no object made); otherwise the objects as this context sees them are
    /// fetched and aggregated in memory.
    public func fetchDictionaries<T: ManagedObject>(_ request: FetchRequest<T>) throws -> [[String: AttributeValue]] {
        checkQueue()
        let entity = try entity(of: request)
        let plan = try DictionaryColumn.plan(
            properties: request.propertiesToFetch, groupBy: request.propertiesToGroupBy,
            sortKeys: request.sortDescriptors.map(\.key), entity: entity)
        let columns = plan.columns
        func dictionaries(_ rows: [[AttributeValue]]) -> [[String: AttributeValue]] {
            rows.map { values in
                var d: [String: AttributeValue] = [:]
                for (c, v) in zip(columns, values) {
                    // Nil values are left out, as Core Data leaves them out.
                    if case .toOne = c, v.isNull { continue }
                    d[c.name] = v
                }
                return d
            }
        }
        processPendingChanges()
        let storeRequest = request.storeRequest(entity: entity)
        if parent == nil, !request.includesPendingChanges || !hasLocalChanges(affecting: storeRequest) {
            if let p = request.predicate { try PredicateValidator.validate(p, entity: entity) }
            let rows = try persistentStoreCoordinator.requireStore().fetchDictionaryRows(storeRequest, columns: columns, groupBy: plan.groupBy)
            return dictionaries(rows)
        }
        let grouped = !plan.groupBy.isEmpty || columns.contains(where: \.isAggregate)
        var r = request
        r.returnsObjectsAsFaults = false
        r.fetchBatchSize = 0
        if grouped {
            r.fetchLimit = 0
            r.fetchOffset = 0
        }
        let objects = try fetch(r)
        if grouped {
            let rows = DictionaryColumn.aggregate(
                objects.map { $0.currentSnapshot() }, columns: columns, groupBy: plan.groupBy, entity: entity,
                sortDescriptors: request.sortDescriptors)
            return dictionaries(DictionaryColumn.window(rows, offset: request.fetchOffset, limit: request.fetchLimit))
        }
        return try dictionaries(objects.map { o in
            try columns.map { c in
                switch c {
                case let .attribute(slot, _): return o.values[slot]
                case let .toOne(slot, _): return try o.destinationIDs(slot: slot).first.map { .url($0.uriRepresentation()) } ?? .null
                case .aggregate: return .null
                }
            }
        })
    }

    /// Runs a request with its ``FetchRequest/resultType``.
    public func execute<T: ManagedObject>(_ request: FetchRequest<T>) throws -> FetchResult<T> {
        switch request.resultType {
        case .managedObject: .objects(try fetch(request))
        case .managedObjectID: .objectIDs(try fetchObjectIDs(request))
        case .count: .count(try count(for: request))
        case .dictionary: .dictionaries(try fetchDictionaries(request))
        }
    }

    // MARK: Internals

    func entity<T>(of request: FetchRequest<T>) throws -> EntityDescription {
        if let name = request.entityName { return try model.requireEntity(name) }
        return try entity(for: T.self)
    }

    /// Whether unsaved changes here may change a fetch of `entity`.
    func hasChanges(affecting entity: EntityDescription, keyPaths: [String] = []) -> Bool {
        guard hasChanges else { return false }
        // A key path through a relationship may read any changed object.
        if keyPaths.contains(where: { $0.contains(".") }) { return true }
        let root = entity.rootEntity
        return insertedObjects.values.contains { $0.entity.rootEntity === root }
            || updatedObjects.values.contains { $0.entity.rootEntity === root }
            || deletedObjects.values.contains { $0.entity.rootEntity === root }
    }

    /// The IDs a request returns as this context sees the data.
    func resultIDs<T>(_ request: FetchRequest<T>, entity: EntityDescription) throws -> [ManagedObjectID] {
        processPendingChanges()
        let storeRequest = request.storeRequest(entity: entity)
        // A batched fetch of faults reads each batch's rows when it is touched.
        let batched = request.returnsObjectsAsFaults && request.fetchBatchSize > 0
        return try resultIDs(storeRequest, includesPendingChanges: request.includesPendingChanges, rowsNeeded: !batched)
    }

    /// Whether this context's own unsaved changes may change the result of a store request.
    func hasLocalChanges(affecting request: StoreFetchRequest) -> Bool {
        guard hasChanges else { return false }
        let keyPaths = Array(request.predicate?.keyPaths ?? []) + request.sortDescriptors.map(\.key)
        return hasChanges(affecting: request.entity, keyPaths: keyPaths)
    }

    /// `rowsNeeded`: the caller fires the results' faults next, so a root context reads (and
    /// caches) the rows with the IDs; otherwise it reads the IDs alone.
    func resultIDs(_ request: StoreFetchRequest, includesPendingChanges: Bool, rowsNeeded: Bool = true) throws -> [ManagedObjectID] {
        let local = includesPendingChanges && hasLocalChanges(affecting: request)
        var base = request
        if local {
            base.fetchLimit = 0
            base.fetchOffset = 0
        }
        var ids: [ManagedObjectID]
        if let parent {
            let forwarded = base
            ids = try parent.performAndWait {
                try parent.resultIDs(forwarded, includesPendingChanges: includesPendingChanges, rowsNeeded: rowsNeeded)
            }
            ids = ids.map { persistentStoreCoordinator.canonicalID($0) }
        } else if rowsNeeded || local {
            ids = try persistentStoreCoordinator.fetch(base).map(\.objectID)
        } else {
            ids = try persistentStoreCoordinator.fetchObjectIDs(base)
        }
        guard local else { return ids }
        return Self.window(try applyLocalChanges(to: ids, request), request)
    }

    private static func window(_ ids: [ManagedObjectID], _ request: StoreFetchRequest) -> [ManagedObjectID] {
        var out = ids[...]
        if request.fetchOffset > 0 { out = out.dropFirst(request.fetchOffset) }
        if request.fetchLimit > 0 { out = out.prefix(request.fetchLimit) }
        return Array(out)
    }

    /// Merges this context's unsaved changes into a result from the parent or store.
    private func applyLocalChanges(to ids: [ManagedObjectID], _ request: StoreFetchRequest) throws -> [ManagedObjectID] {
        let entity = request.entity
        func isCandidate(_ o: ManagedObject) -> Bool {
            request.includesSubentities ? o.entity.isKind(of: entity) : o.entity === entity
        }
        if let p = request.predicate { try PredicateValidator.validate(p, entity: entity) }
        func matches(_ o: ManagedObject) throws -> Bool {
            guard let p = request.predicate else { return true }
            return try PredicateEvaluator.evaluate(p, on: o)
        }
        var result = OrderedSet<ManagedObjectID>()
        for id in ids {
            if let o = registeredObject(for: id) {
                if o.isDeleted { continue }
                if o.isUpdated, try !matches(o) { continue }
            }
            result.append(id)
        }
        for o in updatedObjects.values where isCandidate(o) && !result.contains(o.objectID) {
            if try matches(o) { result.append(o.objectID) }
        }
        for o in insertedObjects.values where isCandidate(o) {
            if try matches(o) { result.append(o.objectID) }
        }
        guard !request.sortDescriptors.isEmpty else { return Array(result) }
        return try sortIDs(Array(result), by: request.sortDescriptors)
    }

    /// Sorts IDs by the objects' values in this context.
    func sortIDs(_ ids: [ManagedObjectID], by descriptors: [SortDescriptor]) throws -> [ManagedObjectID] {
        let objects = try ids.map { try object(with: $0) }
        try fireFaults(objects)
        let keys = try objects.map { try Self.sortValues(of: $0, by: descriptors) }
        return SortDescriptor.stableOrder(keys, by: descriptors).map { ids[$0] }
    }

    /// The values an object sorts by under `descriptors`, strings folded as each descriptor asks
    /// (shared by in-memory sorting and the fetched-results controller).
    static func sortValues(of o: ManagedObject, by descriptors: [SortDescriptor]) throws -> [AttributeValue] {
        try SortDescriptor.sortValues(of: ObjectSubject(object: o), by: descriptors)
    }

    /// Fires many faults in one trip to the parent or store.
    func fireFaults(_ objects: [ManagedObject]) throws {
        // Each fault's row read once, even when `objects` names an object more than once.
        var seen = Set<ObjectIdentifier>(minimumCapacity: objects.count)
        let ids = objects.compactMap { $0.isFault && seen.insert(ObjectIdentifier($0)).inserted ? $0.objectID : nil }
        guard !ids.isEmpty else { return }
        if parent == nil {
            // The coordinator's rows as they come: no second dictionary of states with empty
            // to-many tables (what ``snapshots(for:)`` makes for a root context).
            let rows = try persistentStoreCoordinator.snapshots(for: ids)
            // The entity's relationships read once per run of objects of one entity, not per
            // object (a run-time access check each: a `var` of a public class).
            var runEntity: EntityDescription?
            var relationships: [RelationshipDescription] = []
            for o in objects where o.isFault {
                guard let row = rows[o.objectID] else { continue }
                if o.entity !== runEntity {
                    runEntity = o.entity
                    relationships = o.entity.allRelationships
                }
                var values = row.values
                o.materialize(from: row, sharedValues: &values, relationships: relationships)
                o.awakeFromFetch()
            }
            return
        }
        let states = try snapshots(for: ids)
        for o in objects where o.isFault {
            guard let s = states[o.objectID] else { continue }
            o.materialize(from: s.row, toMany: s.toMany)
            o.awakeFromFetch()
        }
    }

    /// Loads a relationship key path for many objects at once.
    func prefetch(_ path: ArraySlice<String>, for objects: [ManagedObject]) throws {
        guard let key = path.first, !objects.isEmpty else { return }
        var byEntitySlot: [Int: [ManagedObject]] = [:]
        for o in objects {
            guard let slot = o.entity.relationshipSlots[key] else {
                throw CoreStackError.unknownKey(entity: o.entity.name, key: key)
            }
            byEntitySlot[slot, default: []].append(o)
        }
        // Each destination once, however many of `objects` point at it (3 authors of 2,000 books
        // drawn from 500: 500 faults to fire and follow, not 6,000).
        var next: [ManagedObject] = []
        var seen = Set<ObjectIdentifier>()
        for (slot, group) in byEntitySlot {
            let r = group[0].entity.allRelationships[slot]
            if r.isToMany {
                let unloaded = group.filter { if case .fault = $0.relations[slot] { true } else { false } }
                if parent == nil, !unloaded.isEmpty {
                    let map = try persistentStoreCoordinator.relatedObjectIDs(
                        for: unloaded.map(\.objectID).filter { !$0.isTemporaryID }, slot: slot)
                    // The store's IDs are permanent, hence canonical: used as they come, not copied.
                    for o in unloaded { o.setLoadedToMany(map[o.objectID] ?? [], slot: slot) }
                }
            }
            for o in group {
                for id in try o.destinationIDs(slot: slot) {
                    let destination = try objectOnQueue(with: id)  // `fetch` checked the queue
                    if seen.insert(ObjectIdentifier(destination)).inserted { next.append(destination) }
                }
            }
        }
        try fireFaults(next)
        try prefetch(path.dropFirst(), for: next)
    }
}

extension SortDescriptor {
    /// A value as this descriptor compares it: strings folded for the case-insensitive comparisons.
    func sortValue(_ value: AttributeValue) -> AttributeValue {
        switch (comparison, value) {
        case let (.caseInsensitive, .string(str)): .string(StringMatching.fold(str, options: .caseInsensitive))
        case let (.caseAndDiacriticInsensitive, .string(str)):
            .string(StringMatching.fold(str, options: [.caseInsensitive, .diacriticInsensitive]))
        default: value
        }
    }

    /// Orders two rows of sort values (from ``sortValue(_:)``) by `descriptors`, directions applied:
    /// values compare with ``AttributeValue/compare(to:)`` (nil first, code-point strings; unrelated
    /// kinds tie). `.orderedSame` when every key ties.
    static func compare(_ a: [AttributeValue], _ b: [AttributeValue], by descriptors: [SortDescriptor]) -> ComparisonResult {
        for (i, d) in descriptors.enumerated() where i < a.count && i < b.count {
            let r = a[i].compare(to: b[i]) ?? .orderedSame
            if r == .orderedSame { continue }
            return d.ascending ? r : (r == .orderedAscending ? .orderedDescending : .orderedAscending)
        }
        return .orderedSame
    }

    /// The values a subject (an object, or a store's row) sorts by, folded as each descriptor asks.
    static func sortValues(of subject: some EvaluationSubject, by descriptors: [SortDescriptor]) throws -> [AttributeValue] {
        try descriptors.map { d in
            guard case let .scalar(s) = try subject.value(forKeyPath: d.key.split(separator: ".").map(String.init)) else {
                return .null
            }
            return d.sortValue(s)
        }
    }

    /// The indices of rows of sort values in order, ties kept in their original order.
    static func stableOrder(_ keys: [[AttributeValue]], by descriptors: [SortDescriptor]) -> [Int] {
        keys.indices.sorted { a, b in
            switch compare(keys[a], keys[b], by: descriptors) {
            case .orderedAscending: true
            case .orderedDescending: false
            case .orderedSame: a < b
            }
        }
    }
}
