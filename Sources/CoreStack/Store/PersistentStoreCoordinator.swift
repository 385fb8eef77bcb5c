import Foundation

/// Connects contexts to a store and keeps the row cache they share.
///
/// The row cache holds, per object ID, the committed values and row version last read from or
/// written to the store; faults fire from it before going to the store. It keeps at most
/// ``rowCacheLimit`` rows, the least recently used going first. One store per coordinator.
///
/// ```swift
/// let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
/// try coordinator.addPersistentStore(SQLiteStore(url: url, model: model))
/// let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
/// ```
///
/// `@unchecked Sendable`: its mutable state (store, row cache, permanent-ID map, root contexts)
/// is read and written only under `lock`, and saves are ordered by `saveLock` (see
/// <doc:Architecture>, "Locks").
public final class PersistentStoreCoordinator: @unchecked Sendable {
    /// The model of every store and context of this coordinator.
    public let managedObjectModel: ManagedObjectModel

    private let lock = NSRecursiveLock()
    private var store: (any PersistentStore)?
    private let rowCache = PrimaryKeyTable<CachedRow>()
    /// Stamps row-cache entries as they are put or read: live stamps are distinct, older is
    /// less recently used.
    private var useClock: UInt64 = 0
    /// See ``storeGeneration``.
    private var generation: UInt64 = 0
    private var cacheLimit: Int? = PersistentStoreCoordinator.defaultRowCacheLimit
    private var permanentIDs = PermanentIDRuns()
    private var rootContexts: [WeakContext] = []
    /// See ``setAfterStoreReadHook(_:)``; under `lock`.
    private var afterStoreReadHook: (@Sendable () -> Void)?
    /// Serialises saves, so each one is one transaction in order.
    private let saveLock = NSLock()
    /// Remote-change observers and the monitor watching the store file for other connections' commits.
    let remoteChanges = RemoteChangeCenter()

    /// Creates a coordinator for a model.
    ///
    /// ```swift
    /// let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    /// try coordinator.addPersistentStore(SQLiteStore(url: url, model: model))
    /// ```
    public init(managedObjectModel: ManagedObjectModel) {
        self.managedObjectModel = managedObjectModel
    }

    /// Adds the store. Its model must be this coordinator's.
    public func addPersistentStore(_ store: any PersistentStore) throws {
        guard store.model === managedObjectModel || store.model.entityVersionHashes == managedObjectModel.entityVersionHashes else {
            throw CoreStackError.modelMismatch(
                path: store.url?.path ?? "in-memory store", differences: ["the store was opened with another model"])
        }
        lock.lock()
        defer { lock.unlock() }
        guard self.store == nil else {
            throw CoreStackError.noStore("this coordinator already has a store (one store per coordinator)")
        }
        self.store = store
        do {
            try remoteChanges.start(store: store, coordinator: self)
        } catch {
            self.store = nil
            throw error
        }
    }

    /// Removes `store` from the coordinator, as Core Data's `remove(_:)`: the remote-change
    /// monitor stops watching its file, its rows leave the row cache, and contexts of this
    /// coordinator fetching, firing faults or saving afterwards get ``CoreStackError/noStore(_:)``
    /// (their unsaved changes stay unsaved). The store stays open; ``SQLiteStore/close()``
    /// closes its file.
    ///
    /// ```swift
    /// try coordinator.remove(store)
    /// store.close()
    /// ```
    /// - Throws: ``CoreStackError/noStore(_:)`` when `store` is not this coordinator's store.
    public func remove(_ store: any PersistentStore) throws {
        guard let current = persistentStore, current === store else {
            throw CoreStackError.noStore(
                "the store \(store.url?.path ?? store.identifier) is not this coordinator's store")
        }
        removePersistentStore()
    }

    /// Removes the store and empties the row cache (``remove(_:)`` without naming the store).
    ///
    /// ```swift
    /// coordinator.removePersistentStore()
    /// ```
    public func removePersistentStore() {
        // Stop the remote-change monitor first, outside the lock: a poll in flight delivers
        // through this lock (row cache, contexts, observers reading the coordinator), and stopping
        // waits for that poll to end. When stop() returns, no poll runs any more.
        remoteChanges.stop()
        lock.lock()
        defer { lock.unlock() }
        store = nil
        // A read in flight when the store left must not put its rows in the (now empty) cache.
        generation &+= 1
        rowCache.removeAll()
        permanentIDs.removeAll()
    }

    /// The store.
    public var persistentStore: (any PersistentStore)? {
        lock.lock()
        defer { lock.unlock() }
        return store
    }

    func requireStore() throws -> any PersistentStore {
        guard let s = persistentStore else { throw CoreStackError.noStore("the coordinator has no store") }
        return s
    }

    /// The ID a URI names (`x-coredata://<store>/<Entity>/p<pk>`), or nil when it is not one of this
    /// store's IDs.
    ///
    /// ```swift
    /// let id = coordinator.managedObjectID(forURIRepresentation: uri)
    /// ```
    public func managedObjectID(forURIRepresentation uri: URL) -> ManagedObjectID? {
        guard let store = persistentStore,
            let parsed = ManagedObjectID.parse(uri: uri, model: managedObjectModel),
            parsed.storeIdentifier == store.identifier, !parsed.entity.isAbstract
        else { return nil }
        return ManagedObjectID(entity: parsed.entity, storeIdentifier: parsed.storeIdentifier, primaryKey: parsed.primaryKey)
    }

    // MARK: Row cache bound

    /// The default ``rowCacheLimit``.
    public static let defaultRowCacheLimit = 100_000

    /// The most rows the row cache keeps (nil: no bound). Default 100,000.
    ///
    /// When a read or a save would take the cache over the limit, the least recently used rows
    /// (by their last read, fault or save) are dropped, down to seven eighths of the limit, so the
    /// sweep runs once per eighth of the limit put in and costs O(1) per row amortised. Dropping a
    /// row loses nothing: objects keep their own committed snapshot (optimistic locking checks
    /// its version), and a fault whose row was dropped reads it from the store again. Setting a
    /// lower limit trims the cache at once; a limit of 0 caches no row at all.
    ///
    /// ```swift
    /// coordinator.rowCacheLimit = 10_000   // at most 10,000 cached rows
    /// coordinator.rowCacheLimit = 0        // no row cache: every fault reads the store
    /// coordinator.rowCacheLimit = nil      // keep every row read (the cache grows with the reads)
    /// ```
    public var rowCacheLimit: Int? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return cacheLimit
        }
        set {
            lock.lock()
            defer { lock.unlock() }
            cacheLimit = newValue.map { max(0, $0) }
            if let limit = cacheLimit, rowCache.count > limit { evictRows(downTo: limit) }
        }
    }

    /// Puts a row in the cache as the most recently used, evicting if that takes the cache over
    /// its limit. Under the lock.
    @inline(__always)
    private func cacheRow(_ snapshot: consuming RowSnapshot, for id: ManagedObjectID) {
        // A limit of 0 keeps nothing: putting the row in only to empty the cache again made and
        // dropped the cache's table once per row (a fetch of 100,000 rows took 8 times as long).
        guard cacheLimit != 0 else { return }
        useClock &+= 1
        rowCache.setValue(CachedRow(snapshot: snapshot, lastUse: useClock), forKey: id)
        if let limit = cacheLimit, rowCache.count > limit { evictRows(downTo: limit - limit / 8) }
    }

    /// Puts a row read from the store outside the lock in the cache, unless that would take the
    /// cache back in time; returns the cached snapshot kept instead, or nil when `snapshot` went
    /// in. Under the lock.
    ///
    /// A read's rows may be older than what the cache holds by the time the read takes the lock:
    /// a save that committed in between cached its rows' next versions. So a cached row of a later
    /// version (`RowSnapshot/version`, the row's Z_OPT) stays; one compare per row. When
    /// `changed` (the coordinator's ``storeGeneration`` moved since the read began: a save, a
    /// delete or a forget ran in between), a row the cache lacks is not put in either: it may have
    /// been deleted or forgotten after the read, which cannot tell.
    ///
    /// `snapshot` is the cache's own copy, moved in (a caller that keeps the row passes a copy):
    /// taken borrowed, it was copied once more for the entry and the copy released, a retain and
    /// a release of each of its arrays per row read.
    @inline(__always)
    private func cacheReadRow(_ snapshot: consuming RowSnapshot, for id: ManagedObjectID, changed: Bool) -> RowSnapshot? {
        guard cacheLimit != 0 else { return nil }  // Nothing is cached (see cacheRow).
        useClock &+= 1
        let now = useClock
        let version = snapshot.version
        if changed {
            var pending: RowSnapshot? = consume snapshot
            let kept: RowSnapshot?? = rowCache.modifyValue(forKey: id) { entry in
                if entry.snapshot.version > version {
                    entry.lastUse = now
                    return entry.snapshot
                }
                if let newer = pending.take() { entry = CachedRow(snapshot: newer, lastUse: now) }
                return nil
            }
            return kept ?? nil
        }
        var kept: RowSnapshot?
        let set = rowCache.setValue(CachedRow(snapshot: snapshot, lastUse: now), forKey: id) { entry in
            guard entry.snapshot.version > version else { return false }
            entry.lastUse = now
            kept = entry.snapshot
            return true
        }
        if set, let limit = cacheLimit, rowCache.count > limit { evictRows(downTo: limit - limit / 8) }
        return kept
    }

    /// Begins a read of rows outside the lock: the ``storeGeneration`` to hand back with its rows
    /// to ``cacheReadRow(_:for:changed:)``, the use clock when it began (a cached row stamped
    /// later was put or read after this read began), and the test hook to run once the rows are
    /// read.
    private func beginRowRead() -> (generation: UInt64, clock: UInt64, hook: (@Sendable () -> Void)?) {
        lock.lock()
        defer { lock.unlock() }
        return (generation, useClock, afterStoreReadHook)
    }

    /// For tests: runs `hook` in each read of rows outside the lock (``fetch(_:)``, a fault's
    /// ``snapshots(for:)``, ``refreshSnapshots(for:)``; not the streamed ``fetchRows(_:chunks:)``,
    /// which caches while the store reads), after the store has read them and before they are
    /// cached. Nil removes it.
    func setAfterStoreReadHook(_ hook: (@Sendable () -> Void)?) {
        lock.lock()
        afterStoreReadHook = hook
        lock.unlock()
    }

    /// The cached snapshot of `id` (for tests; does not count as a use).
    func cachedSnapshot(_ id: ManagedObjectID) -> RowSnapshot? {
        lock.lock()
        defer { lock.unlock() }
        return rowCache[canonicalIDLocked(id)]?.snapshot
    }

    /// The cached row of `id`, marked as the most recently used. Under the lock.
    @inline(__always)
    private func cachedRow(_ id: ManagedObjectID) -> RowSnapshot? {
        useClock &+= 1
        let now = useClock
        return rowCache.modifyValue(forKey: id) { entry in
            entry.lastUse = now
            return entry.snapshot
        }
    }

    /// Drops the least recently used rows until at most `target` are left. Three passes over the
    /// cache: the range of stamps, a histogram of them in 4,096 buckets, and the removal of every
    /// bucket below the one where the oldest `count - target` rows end (stamps are distinct, so
    /// that removes at least that many, and at most a bucket more). Under the lock.
    private func evictRows(downTo target: Int) {
        let excess = rowCache.count - max(0, target)
        guard excess > 0 else { return }
        if target <= 0 {
            rowCache.removeAll()
            return
        }
        // Each entry's use stamp is read in its slot, never a copy of the entry: a copy retains
        // and releases the snapshot's two arrays, a cache miss each on rows cached long ago.
        var lo = UInt64.max
        var hi: UInt64 = 0
        rowCache.forEachSlot { slot in
            guard let use = slot?.lastUse else { return }
            lo = min(lo, use)
            hi = max(hi, use)
        }
        guard lo <= hi else { return }
        let bucketCount: UInt64 = 4096
        let width = (hi - lo) / bucketCount + 1
        var histogram = [Int](repeating: 0, count: Int(bucketCount))
        rowCache.forEachSlot { slot in
            if let use = slot?.lastUse { histogram[Int((use - lo) / width)] += 1 }
        }
        var covered = 0
        var cut = 0
        while covered < excess, cut < histogram.count {
            covered += histogram[cut]
            cut += 1
        }
        let threshold = lo + UInt64(cut) * width
        rowCache.removeAll(whereSlot: { slot in (slot?.lastUse).map { $0 < threshold } ?? false })
    }

    /// Whether the row cache holds the row of `id` (for tests; does not count as a use).
    func isRowCached(_ id: ManagedObjectID) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return rowCache[canonicalIDLocked(id)] != nil
    }

    private func canonicalIDLocked(_ id: ManagedObjectID) -> ManagedObjectID { permanentIDs[id] ?? id }

    // MARK: Contexts

    func register(context: ManagedObjectContext) {
        lock.lock()
        defer { lock.unlock() }
        rootContexts.removeAll { $0.context == nil }
        rootContexts.append(WeakContext(context))
    }

    var contexts: [ManagedObjectContext] {
        lock.lock()
        defer { lock.unlock() }
        return rootContexts.compactMap(\.context)
    }

    // MARK: IDs

    /// The permanent ID a temporary one became, or the ID itself.
    func canonicalID(_ id: ManagedObjectID) -> ManagedObjectID {
        guard id.isTemporaryID else { return id }
        lock.lock()
        defer { lock.unlock() }
        return permanentIDs[id] ?? id
    }

    /// Assigns permanent IDs to temporary ones (reserving primary keys in the store): the result is
    /// parallel to `ids` (an ID that is already permanent comes back as it is).
    func obtainPermanentIDs(for ids: [ManagedObjectID]) throws -> [ManagedObjectID] {
        let store = try requireStore()
        // Every pass reads the IDs in place by index and makes each permanent ID once: an ID
        // retains its entity, so each copy of one (a zip, `var out = ids` then overwritten) is a
        // retain and a release, ~5 % of saving 100,000 new objects (BENCHMARKS.md, W1).
        // The IDs still to assign, grouped by entity (as indexes into `ids`), in the order met.
        var groups: [(entity: EntityDescription, indexes: [Int])] = []
        var groupOf: [ObjectIdentifier: Int] = [:]
        // IDs made permanent by an earlier call, by index.
        var earlier: [Int: ManagedObjectID] = [:]
        lock.lock()
        for i in ids.indices where ids[i].isTemporary {
            if let p = permanentIDs[ids[i]] {
                earlier[i] = p
                continue
            }
            // Inserts usually come one entity at a time: the last group first.
            if let g = groups.indices.last, groups[g].entity === ids[i]._entity {
                groups[g].indexes.append(i)
            } else if let g = groupOf[ObjectIdentifier(ids[i]._entity)] {
                groups[g].indexes.append(i)
            } else {
                groupOf[ObjectIdentifier(ids[i]._entity)] = groups.count
                groups.append((ids[i]._entity, [i]))
            }
        }
        lock.unlock()
        // Entities in number order, so keys shared by an inheritance tree come out the same every run.
        groups.sort { $0.entity.entityNumber < $1.entity.entityNumber }
        let token = StoreIdentifiers.token(for: store.identifier)
        // The primary key given to each ID (nil where none).
        var keyOf = [Int64?](repeating: nil, count: groups.isEmpty ? 0 : ids.count)
        var assigned: [(entity: EntityDescription, indexes: [Int], keys: [Int64])] = []
        assigned.reserveCapacity(groups.count)
        for g in groups.indices {
            let keys = try store.newPrimaryKeys(for: groups[g].entity, count: groups[g].indexes.count)
            guard keys.count == groups[g].indexes.count else {
                throw CoreStackError.noStore("the store returned \(keys.count) keys for \(groups[g].indexes.count) objects")
            }
            for (j, i) in groups[g].indexes.enumerated() { keyOf[i] = keys[j] }
            assigned.append((groups[g].entity, groups[g].indexes, keys))
        }
        var out: [ManagedObjectID] = []
        out.reserveCapacity(ids.count)
        for i in ids.indices {
            if !keyOf.isEmpty, let key = keyOf[i] {
                out.append(ManagedObjectID(entity: ids[i]._entity, storeToken: token, primaryKey: key))
            } else if let p = earlier[i] {
                out.append(p)
            } else {
                out.append(ids[i])
            }
        }
        lock.lock()
        for a in assigned {
            permanentIDs.record(
                entity: a.entity, storeToken: token, temporaryKeys: a.indexes.lazy.map { ids[$0].rawKey }, primaryKeys: a.keys)
        }
        lock.unlock()
        return out
    }

    // MARK: Reading

    /// Rows from the store, put in the row cache (see ``cacheReadRow(_:for:changed:)``).
    func fetch(_ request: StoreFetchRequest) throws -> [StoreRow] {
        let read = beginRowRead()
        var rows = try requireStore().fetch(request)
        read.hook?()
        cache(&rows, readAt: read.generation)
        return rows
    }

    /// Rows from the store a chunk at a time as they are read (see
    /// ``PersistentStore/fetch(_:chunks:)``): each chunk goes into the row cache, then to `body`,
    /// while it is still in the processor's cache. `body` runs while the store is reading, so it
    /// must not call back into the store (fire no fault) nor run user code (make no object: see
    /// `streamedObjects`); it runs outside the coordinator's lock.
    func fetchRows(_ request: StoreFetchRequest, chunks body: (_ rows: inout [StoreRow], _ expectedCount: Int) throws -> Void) throws {
        let read = beginRowRead()
        try requireStore().fetch(request) { rows, expected in
            cache(&rows, readAt: read.generation)
            try body(&rows, expected)
        }
    }

    /// Puts rows read from the store into the row cache; `generation` is the ``storeGeneration``
    /// taken before the read began. A row the cache already holds in a later version is replaced
    /// by that version in `rows`, so that objects filled from them never show an older row than
    /// the cache (a store whose reads see commits made after they began could return one).
    private func cache(_ rows: inout [StoreRow], readAt generation: UInt64) {
        lock.lock()
        let changed = generation != self.generation
        // By index: a `for r in rows` copy would retain and release each row's parts once more.
        for i in rows.indices {
            if let kept = cacheReadRow(rows[i].snapshot, for: rows[i].objectID, changed: changed) { rows[i].snapshot = kept }
        }
        lock.unlock()
    }

    /// The IDs a store request selects, no row read or cached.
    func fetchObjectIDs(_ request: StoreFetchRequest) throws -> [ManagedObjectID] {
        try requireStore().fetchObjectIDs(request)
    }

    /// The IDs a store request selects with the values of a few attributes, one column per slot;
    /// no row cached.
    func fetchObjectIDColumns(
        _ request: StoreFetchRequest, valuesAt slots: [Int], cancellation: FetchCancellation? = nil
    ) throws -> (ids: [ManagedObjectID], columns: [[AttributeValue]]) {
        try requireStore().fetchObjectIDColumns(request, valuesAt: slots, cancellation: cancellation)
    }

    /// A number that changes whenever this coordinator saves, or forgets rows because the store
    /// changed behind it (batch requests, merged history): a fetch run off a context's queue is
    /// applied only when it has not changed since the fetch began.
    var storeGeneration: UInt64 {
        lock.lock()
        defer { lock.unlock() }
        return generation
    }

    /// The IDs a store request selects with a few attribute values each, no row cached.
    func fetchObjectIDs(_ request: StoreFetchRequest, valuesAt slots: [Int]) throws -> [(objectID: ManagedObjectID, values: [AttributeValue])] {
        try requireStore().fetchObjectIDs(request, valuesAt: slots)
    }

    func count(_ request: StoreFetchRequest) throws -> Int {
        try requireStore().count(request)
    }

    /// ``snapshots(for:)`` of one ID (a fault of one object): the snapshot it would file under
    /// `id`, without the dictionaries and lists a batch needs.
    func snapshot(for id: ManagedObjectID) throws -> RowSnapshot? {
        lock.lock()
        let c = permanentIDs[id] ?? id
        if let s = cachedRow(c) {
            lock.unlock()
            return s
        }
        let readGeneration = generation
        let hook = afterStoreReadHook
        lock.unlock()
        if c.isTemporaryID { return nil }
        let rows = try requireStore().rows(for: [c])
        hook?()
        lock.lock()
        defer { lock.unlock() }
        let changed = readGeneration != generation
        // A later version a save cached meanwhile is the one handed out too. Each row is
        // cached; the one of `c` is the answer (filed under `id` when `c` is its promotion).
        var out: RowSnapshot?
        for r in rows {
            let snapshot = cacheReadRow(r.snapshot, for: r.objectID, changed: changed) ?? r.snapshot
            if r.objectID == c { out = snapshot }
        }
        return out
    }

    /// Snapshots from the row cache, reading the missing ones from the store in one go.
    func snapshots(for ids: [ManagedObjectID]) throws -> [ManagedObjectID: RowSnapshot] {
        var out: [ManagedObjectID: RowSnapshot] = [:]
        // One allocation for a batch's rows, not a dozen rehashing regrowths (W3: 3 % of its instructions).
        out.reserveCapacity(ids.count)
        var missing: [ManagedObjectID] = []
        // Temporary IDs a save has promoted, by the permanent ID their row is read under: the
        // answer is filed under the ID asked for, as a cached row is.
        var askedAs: [ManagedObjectID: ManagedObjectID] = [:]
        lock.lock()
        for id in ids {
            let c = permanentIDs[id] ?? id
            if let s = cachedRow(c) {
                out[id] = s
            } else if !c.isTemporaryID {
                missing.append(c)
                if c != id { askedAs[c] = id }
            }
        }
        let readGeneration = generation
        let hook = afterStoreReadHook
        lock.unlock()
        if missing.isEmpty { return out }
        let rows = try requireStore().rows(for: missing)
        hook?()
        lock.lock()
        let changed = readGeneration != generation
        // A later version a save cached meanwhile is the one handed out too.
        for r in rows {
            let snapshot = cacheReadRow(r.snapshot, for: r.objectID, changed: changed) ?? r.snapshot
            out[r.objectID] = snapshot
            if !askedAs.isEmpty, let asked = askedAs[r.objectID] { out[asked] = snapshot }
        }
        lock.unlock()
        return out
    }

    /// Reads rows again from the store, bypassing (and refreshing) the cache.
    ///
    /// When nothing was saved, deleted or forgotten between the read and caching its rows, they
    /// replace the cached ones, older versions too (the store is the truth: a file replaced in
    /// place can hold older rows), and a row the store no longer has leaves the cache. Only a
    /// cached row of a later version that was put or used after the read began stays (another
    /// process committed it and a newer read here cached it meanwhile). When something was saved,
    /// deleted or forgotten in between, every cached row of a later version stays (a save's,
    /// committed after the read). Either way a kept row is the one returned: a refresh brings
    /// rows forward, never back (see ``cacheReadRow(_:for:changed:)``).
    func refreshSnapshots(for ids: [ManagedObjectID]) throws -> [ManagedObjectID: RowSnapshot] {
        let read = beginRowRead()
        let rows = try requireStore().rows(for: ids.filter { !$0.isTemporaryID })
        read.hook?()
        var out: [ManagedObjectID: RowSnapshot] = [:]
        lock.lock()
        let changed = read.generation != generation
        var found = Set<ManagedObjectID>()
        for r in rows {
            found.insert(r.objectID)
            if !changed, let entry = rowCache[r.objectID], entry.snapshot.version > r.snapshot.version, entry.lastUse <= read.clock {
                // Cached before this read began, and later than the store's row: the store went
                // back (replaced in place), so its row replaces the cached one.
                rowCache[r.objectID] = nil
            }
            out[r.objectID] = cacheReadRow(r.snapshot, for: r.objectID, changed: changed) ?? r.snapshot
        }
        for id in ids where !found.contains(id) { rowCache[id] = nil }
        lock.unlock()
        return out
    }

    func relatedObjectIDs(for ids: [ManagedObjectID], slot: Int) throws -> [ManagedObjectID: [ManagedObjectID]] {
        try requireStore().relatedObjectIDs(for: ids.filter { !$0.isTemporaryID }, relationshipSlot: slot)
    }

    /// How many rows the cache holds (for tests and tools).
    public var rowCacheCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return rowCache.count
    }

    // MARK: Writing

    /// Runs `body` holding the save lock: no other context of this coordinator writes until it
    /// returns. A root save with a built-in merge policy runs its attempts inside, so the rows it
    /// re-reads after a conflict are still the store's when it writes again (as Core Data
    /// resolves under the coordinator's lock); without this, other contexts of the coordinator
    /// could win every attempt and the save fail with a conflict its policy should have resolved.
    /// Only framework code may run in `body`; saves inside pass `savesHeld: true`.
    func holdingSaves<T>(_ body: () throws -> T) rethrows -> T {
        saveLock.lock()
        defer { saveLock.unlock() }
        return try body()
    }

    /// Writes a save, then caches each written row's new snapshot and hands it to `committed`
    /// with the row's index (the inserted rows, then the updated ones), in one pass: the saving
    /// context settles each object while its row is at hand. `committed` runs under the
    /// coordinator's lock and must not call back into the coordinator. Inside
    /// ``holdingSaves(_:)`` pass `savesHeld: true` (the save lock is then already held).
    func save(_ request: consuming StoreSaveRequest, savesHeld: Bool = false, committed: (Int, RowSnapshot) -> Void) throws {
        let store = try requireStore()
        if !savesHeld { saveLock.lock() }
        defer { if !savesHeld { saveLock.unlock() } }
        let versions = try store.save(request)
        lock.lock()
        defer { lock.unlock() }
        generation &+= 1
        let insertedCount = request.inserted.count
        func settle(_ changes: inout [StoreRowChange], from base: Int) {
            // By index, dropping each change's values once cached: a `for change in changes` copy
            // retains every array, and the request's release would walk every row once more.
            // The ID is read in place, not copied into a local: a copy retains and releases its
            // entity.
            // The values and to-one arrays move out of the change into the snapshot and on into
            // the cache; only the object's copy retains them (by now, 100,000 rows after the
            // request was built, their memory is out of the processor's cache: each reference
            // count is a miss).
            for i in changes.indices {
                let next = changes[i].expectedVersion + 1
                let version = versions.isEmpty ? next : versions[changes[i].objectID] ?? next
                var values: [AttributeValue] = []
                swap(&values, &changes[i].values)
                var toOne: [ManagedObjectID?] = []
                swap(&toOne, &changes[i].toOne)
                let snapshot = RowSnapshot(values: consume values, toOne: consume toOne, version: version)
                committed(base + i, snapshot)
                cacheRow(consume snapshot, for: changes[i].objectID)
            }
        }
        settle(&request.inserted, from: 0)
        settle(&request.updated, from: insertedCount)
        for d in request.deleted { rowCache[d.objectID] = nil }
    }

    /// Forgets the cached rows of these objects (changed in the store behind the cache: another
    /// connection, a batch request).
    func forgetRows(_ ids: some Sequence<ManagedObjectID>) {
        lock.lock()
        generation &+= 1
        for id in ids { rowCache[permanentIDs[id] ?? id] = nil }
        lock.unlock()
    }

    /// Forgets every cached row (after the store changed behind the coordinator's back).
    public func invalidateRowCache() {
        lock.lock()
        generation &+= 1
        rowCache.removeAll()
        lock.unlock()
    }
}

/// A row-cache entry: the snapshot and the use-clock stamp of its last put or read.
private struct CachedRow {
    var snapshot: RowSnapshot
    var lastUse: UInt64
}
