import Foundation

/// Keeps the results of a fetch request, grouped in sections, up to date as its context changes,
/// and tells a delegate (or an `AsyncStream`) exactly what changed, ready for a table view.
///
/// ```swift
/// var request = FetchRequest<Book>(entityName: "Book")
/// request.sortDescriptors = [SortDescriptor("title", comparison: .caseInsensitive)]
/// let controller = FetchedResultsController(fetchRequest: request, context: context) { book in
///     String(book.title.prefix(1)).uppercased()          // sections by first letter
/// }
/// controller.delegate = bookList
/// try controller.performFetch()
/// controller.sections[0].name                             // "A"
/// let book = controller[IndexPath(row: 0, section: 0)]
/// ```
///
/// **Queue.** Like managed objects, a controller belongs to its context's queue: create it, read
/// it and call ``performFetch()`` there (inside `perform`/`performAndWait`, or on the main thread
/// for a main-queue context); its delegate is called there. It is not `Sendable`; the stream of
/// ``events()`` is, and carries object IDs.
///
/// **Updates.** After ``performFetch()`` the controller follows the context's objectsDidChange
/// (at every `processPendingChanges`, so at the end of each `perform` block, before fetches and
/// saves, and after merges) and did-save notifications. Each changed object costs a binary search
/// for its old position and one for its new one; nothing is refetched or re-sorted. Rules:
/// - an object that starts or stops matching the predicate is an insert or a delete;
/// - a change to its sort keys or section key is a move, reported as an update when the object
///   keeps its index path and its place among the unchanged objects;
/// - any other change (properties outside the predicate and sort keys, relationships) is an update;
/// - sections appear with their first object and go with their last;
/// - `reset()` of the context refetches and reports ``FetchedResultsControllerDelegate/controllerDidPerformFetch(_:)``.
///
/// When the predicate, a sort key or the section key path reads through a relationship
/// (`publisher.name`), any change rechecks every fetched object and the objects related to the
/// changed ones (a linear pass, still without refetching). A section-name closure is re-evaluated
/// only for objects of the fetched entity that changed.
///
/// **Order.** Objects are ordered exactly as a fetch orders them (``AttributeValue/compare(to:)``,
/// strings folded for case-insensitive descriptors). Sections are ordered by their key, compared
/// the way the first sort descriptor compares (direction and folding), and hold their objects in
/// fetch order, so ``fetchedObjects`` lists section after section. Objects whose sort keys are all
/// equal keep their fetch order; one inserted among equals goes after them. `fetchLimit` and
/// `fetchOffset` apply to ``performFetch()`` only.
///
/// **Faults.** With `fetchBatchSize` objects stay faults until read: the controller reads the sort
/// and section keys of faults from the coordinator's row cache (or the parent context) without
/// materialising them, as long as those keys are attributes of the entity. A section-name closure
/// or a key path through a relationship fires the faults it reads.
///
/// **Memory.** With `fetchBatchSize` (and no section-name closure, no key path through a
/// relationship) the controller keeps per row only the object ID and the sort values, one column
/// per sort key (about 50 bytes a row, a string kept once when neighbouring rows share it), read by
/// one SQL query; ``performFetch()`` registers no object. ``object(at:)`` registers the row's batch
/// of `fetchBatchSize` rows as faults, and the controller does not keep them; ``objectID(at:)``,
/// ``fetchedObjectIDs``, ``sectionsOfObjectIDs`` and ``numberOfObjects(inSection:)`` register
/// nothing, while ``fetchedObjects`` and ``sections`` register every row (prefer the ID forms for
/// large results). A changed object's row is found by scanning the IDs once per batch of changes,
/// and merges (``ManagedObjectContext/mergeChanges(from:)-(SavedObjectIDs)``) register and report the rows the
/// controller keeps even when the context does not hold their objects. Without a batch size the
/// controller holds its objects, as Core Data's does. ``prepareFetch()`` runs the SQL query off the
/// context's queue, cancellably (see ``PreparedFetch``).
public final class FetchedResultsController<T: ManagedObject> {
    /// The request whose results the controller keeps.
    public let fetchRequest: FetchRequest<T>
    /// The context the controller follows.
    public let managedObjectContext: ManagedObjectContext
    /// The key path whose value names each object's section (nil for one unnamed section or a
    /// section-name closure).
    public let sectionNameKeyPath: String?
    /// The cache name given at creation. CoreStack keeps no on-disk cache: results are rebuilt
    /// in memory by ``performFetch()``; the name is kept for code written against Core Data.
    public let cacheName: String?
    /// Told of every change, on the context's queue. Set it before ``performFetch()`` for its
    /// section index titles to apply.
    public weak var delegate: (any FetchedResultsControllerDelegate<T>)?

    let sectionNameProvider: ((T) -> String)?
    var sectionStore: [SectionStorage<T>] = []
    /// Whether the controller keeps its objects (no `fetchBatchSize`, a section-name closure, or
    /// key paths through relationships); otherwise it keeps IDs and sort values only.
    var retainsObjects = true
    /// Each fetched object's keys, by ID (the keys it is filed under now); kept only when the
    /// controller retains its objects (others find a row's keys by scanning their IDs).
    var rowKeys: [ManagedObjectID: RowKey] = [:]
    /// The objects of rows filed under a temporary ID, so that their rows follow them to their
    /// permanent IDs when they are saved.
    var temporaryRows: [ManagedObjectID: T] = [:]
    var entity: EntityDescription?
    var plainKeys: PlainKeyPlan?
    var observationTokens: [ObservationToken] = []
    var flattened: [T]?
    /// How many objects' keys the controller has read (for tests of the incremental cost).
    var keyReadCount = 0
    let broadcaster = EventBroadcaster<FetchedResultsEvent>()

    /// A controller whose sections are named by the value at `sectionNameKeyPath` (one unnamed
    /// section when nil).
    ///
    /// ```swift
    /// let byPublisher = FetchedResultsController(
    ///     fetchRequest: request, context: context, sectionNameKeyPath: "publisher.name", cacheName: "books")
    /// ```
    public init(
        fetchRequest: FetchRequest<T>, context: ManagedObjectContext, sectionNameKeyPath: String? = nil, cacheName: String? = nil
    ) {
        self.fetchRequest = fetchRequest
        self.managedObjectContext = context
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = cacheName
        self.sectionNameProvider = nil
    }

    /// A controller whose sections are named by a closure, for computed sections such as a title's
    /// first letter. Sort the request so that objects of one section sort together (here by title).
    ///
    /// ```swift
    /// let controller = FetchedResultsController(fetchRequest: byTitle, context: context) { book in
    ///     book.title.first.map { $0.isLetter ? String($0).uppercased() : "#" } ?? "#"
    /// }
    /// ```
    public init(
        fetchRequest: FetchRequest<T>, context: ManagedObjectContext, cacheName: String? = nil,
        sectionName: @escaping (T) -> String
    ) {
        self.fetchRequest = fetchRequest
        self.managedObjectContext = context
        self.sectionNameKeyPath = nil
        self.cacheName = cacheName
        self.sectionNameProvider = sectionName
    }

    deinit { broadcaster.finish() }

    /// Core Data's cache removal, for source compatibility: CoreStack keeps no cache, so this
    /// does nothing.
    ///
    /// ```swift
    /// FetchedResultsController<Book>.deleteCache(withName: "books")
    /// ```
    public static func deleteCache(withName name: String?) {}

    // MARK: Fetching

    /// Fetches the results, builds the sections, starts following the context, and tells the
    /// delegate (``FetchedResultsControllerDelegate/controllerDidPerformFetch(_:)``). Call it again
    /// to start over (after changing nothing, or to recover from an error). Call on the context's queue.
    ///
    /// ```swift
    /// try context.performAndWait { try controller.performFetch() }
    /// ```
    public func performFetch() throws {
        let context = managedObjectContext
        context.checkQueue()
        let entity = try context.entity(of: fetchRequest)
        self.entity = entity
        plainKeys = PlainKeyPlan(sortDescriptors: fetchRequest.sortDescriptors, sectionKeyPath: sectionNameProvider == nil ? sectionNameKeyPath : nil)
        if keepsIDs, let rows = try batchedFetchWithKeys(entity: entity) {
            retainsObjects = false
            rebuild(rows)
        } else {
            let objects = try context.fetch(fetchRequest)
            let rows = fetchedRows(objects: objects, keys: try readKeys(objects))
            retainsObjects = !keepsIDs
            rebuild(rows)
        }
        startObserving()
        delegate?.controllerDidPerformFetch(self)
        broadcaster.send(.didPerformFetch)
    }

    /// Whether a fetch keeps IDs and sort keys rather than objects (with `fetchBatchSize`, keys
    /// that need no closure, nothing read through relationships).
    var keepsIDs: Bool { fetchRequest.fetchBatchSize > 0 && sectionNameProvider == nil && !readsThroughRelationships }

    func startObserving() {
        guard observationTokens.isEmpty else { return }
        let context = managedObjectContext
        observationTokens.append(context.addObjectsDidChangeObserver { [weak self] change in self?.contextObjectsDidChange(change) })
        observationTokens.append(context.addDidSaveObserver { [weak self] saved in self?.contextDidSave(saved) })
        observationTokens.append(ObservationToken(id: context.observers.add(rowClaim: { [weak self] ids in self?.claimRows(ids) ?? [] }), context: context))
    }

    // MARK: Results

    /// Every fetched object, section after section (empty before ``performFetch()``).
    ///
    /// With `fetchBatchSize` (and the controller keeping IDs, see **Memory** above) this registers
    /// a fault for every row the context does not hold yet, in batches of `fetchBatchSize` (no
    /// row is read until a fault fires), and builds a new array at each call: prefer
    /// ``object(at:)`` or ``fetchedObjectIDs`` for large results.
    ///
    /// ```swift
    /// let titles = controller.fetchedObjects.map(\.title)
    /// ```
    public var fetchedObjects: [T] {
        if let flattened { return flattened }
        if retainsObjects {
            let all = sectionStore.flatMap(\.objects)
            flattened = all
            return all
        }
        return (try? objects(inGlobalRange: 0..<count)) ?? sectionStore.indices.flatMap { objects(ofSection: $0) }
    }

    /// The IDs of every fetched object, section after section; no object is registered.
    ///
    /// ```swift
    /// let ids = controller.fetchedObjectIDs
    /// ```
    public var fetchedObjectIDs: [ManagedObjectID] {
        sectionStore.count == 1 ? sectionStore[0].ids : sectionStore.flatMap(\.ids)
    }

    /// How many objects the controller holds.
    ///
    /// ```swift
    /// let total = controller.count
    /// ```
    public var count: Int { sectionStore.reduce(0) { $0 + $1.count } }

    /// How many sections the controller holds.
    ///
    /// ```swift
    /// for s in 0..<controller.sectionCount { print(controller.sections[s].name) }
    /// ```
    public var sectionCount: Int { sectionStore.count }

    /// The sections, in order, with their objects.
    ///
    /// With `fetchBatchSize` this registers every row's object as ``fetchedObjects`` does; read
    /// ``sectionsOfObjectIDs`` (or ``numberOfObjects(inSection:)``) instead for large results.
    ///
    /// ```swift
    /// let first = controller.sections.first?.name
    /// ```
    public var sections: [FetchedResultsSectionInfo<T>] { sectionStore.indices.map { info(ofSection: $0) } }

    /// The sections, in order, with their objects' IDs: no object is registered or read, and the
    /// arrays are shared with the controller (no copy).
    ///
    /// ```swift
    /// for section in controller.sectionsOfObjectIDs { print(section.name, section.numberOfObjects) }
    /// ```
    public var sectionsOfObjectIDs: [FetchedResultsSectionInfo<ManagedObjectID>] {
        sectionStore.map { FetchedResultsSectionInfo(name: $0.name, indexTitle: $0.indexTitle, objects: $0.ids) }
    }

    /// How many objects a section holds (0 for a section index outside the results).
    ///
    /// ```swift
    /// let rows = controller.numberOfObjects(inSection: 0)
    /// ```
    public func numberOfObjects(inSection section: Int) -> Int {
        sectionStore.indices.contains(section) ? sectionStore[section].count : 0
    }

    /// The index titles of the sections, in order, each once.
    ///
    /// ```swift
    /// controller.sectionIndexTitles // ["#", "A", "B", …]
    /// ```
    public var sectionIndexTitles: [String] {
        var seen = Set<String>()
        return sectionStore.map(\.indexTitle).filter { seen.insert($0).inserted }
    }

    /// The index of the first section with this index title (nil when none has it).
    ///
    /// ```swift
    /// let s = controller.section(forSectionIndexTitle: "D") // scroll there
    /// ```
    public func section(forSectionIndexTitle title: String) -> Int? {
        sectionStore.firstIndex { $0.indexTitle == title }
    }

    /// The object at an index path, or nil when the path is outside the results (or, with
    /// `fetchBatchSize`, when its object cannot be registered).
    ///
    /// With `fetchBatchSize` a row the context does not hold is registered as a fault together with
    /// the other rows of its batch (`fetchBatchSize` rows); firing it reads the batch's rows in one
    /// query. The controller does not keep the object: the context (or the caller) does.
    ///
    /// ```swift
    /// let book = controller[IndexPath(row: 2, section: 0)]
    /// ```
    public subscript(indexPath: IndexPath) -> T? {
        try? object(at: indexPath)
    }

    /// The object at an index path; throws when the path is outside the results.
    ///
    /// ```swift
    /// let book = try controller.object(at: [0, 0])
    /// ```
    public func object(at indexPath: IndexPath) throws -> T {
        guard let (s, r) = indexPath.sectionAndRow, sectionStore.indices.contains(s), sectionStore[s].ids.indices.contains(r) else {
            throw CoreStackError.invalidFetchRequest(
                "no object at \(indexPath) in \(sectionStore.count) sections of a fetched-results controller")
        }
        return try object(section: s, row: r)
    }

    /// The ID of the object at an index path, or nil when the path is outside the results; no
    /// object is registered or read.
    ///
    /// ```swift
    /// let id = controller.objectID(at: [0, 5])
    /// ```
    public func objectID(at indexPath: IndexPath) -> ManagedObjectID? {
        guard let (s, r) = indexPath.sectionAndRow, sectionStore.indices.contains(s), sectionStore[s].ids.indices.contains(r)
        else { return nil }
        return sectionStore[s].ids[r]
    }

    /// The index path of an object, or nil when it is not in the results. A binary search on the
    /// object's keys (with `fetchBatchSize`, a scan of the IDs when its keys changed since the
    /// controller last filed it).
    ///
    /// ```swift
    /// if let path = controller.indexPath(for: book) { table.scroll(to: path) }
    /// ```
    public func indexPath(for object: T) -> IndexPath? {
        indexPath(forObjectID: object.objectID, object: object)
    }

    /// The index path of the object with this ID, or nil when it is not in the results.
    ///
    /// ```swift
    /// if let path = controller.indexPath(forObjectID: id) { table.select(path) }
    /// ```
    public func indexPath(forObjectID id: ManagedObjectID) -> IndexPath? {
        indexPath(forObjectID: id, object: managedObjectContext.registeredObject(for: id) as? T)
    }

    private func indexPath(forObjectID id: ManagedObjectID, object: T?) -> IndexPath? {
        // Objects given permanent IDs since the last change notification (obtainPermanentIDs).
        adoptPermanentIDs()
        if let key = rowKeys[id], let (s, r) = locate(id, key: key) { return IndexPath(indexes: [s, r]) }
        if retainsObjects { return nil }
        // Keys as the object has them now (from its row when it is a fault), then a scan.
        if let object, let key = try? readKeys([object]).first, let (s, r) = locate(id, key: key) {
            return IndexPath(indexes: [s, r])
        }
        guard let key = filedKeys(for: [id])[id], let (s, r) = locate(id, key: key) else { return nil }
        return IndexPath(indexes: [s, r])
    }

    /// A stream of the controller's events (the delegate's calls, with object IDs), from now on,
    /// until the controller goes away. Each call gives a new stream; its buffer is unbounded.
    ///
    /// ```swift
    /// let events = controller.events()
    /// Task { for await e in events { if e == .didChangeContent { await redraw() } } }
    /// ```
    public func events() -> AsyncStream<FetchedResultsEvent> {
        broadcaster.stream()
    }
}

/// Not `Sendable`: a fetched-results controller belongs to its context's queue, like managed objects.
/// Hand its `events()` stream (which is `Sendable`) to other tasks instead.
@available(*, unavailable)
extension FetchedResultsController: Sendable {}
