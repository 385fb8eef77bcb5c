import Foundation
import OrderedCollections

/// A scratchpad of managed objects bound to one queue: fetch, change, then save to a parent context
/// or, for a root context, to the coordinator's store.
///
/// ```swift
/// let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
/// try await context.perform {
///     let book = try context.insertObject(forEntityName: "Book")
///     try book.setValue("Dune", forKey: "title")
///     try context.save()
/// }
/// let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: context)
/// ```
///
/// Objects belong to the context's queue: use them inside ``perform(_:)-(()->Void)`` or
/// ``performAndWait(_:)``, and pass ``ManagedObjectID``s between contexts. The context's entry
/// points (fetch, count, save, insert, delete, `object(with:)`, `existingObject(with:)`, refresh,
/// rollback, reset, batch requests) always trap when called off its queue, naming the context, its
/// queue and the calling thread; observers may be added and removed from any thread and are called
/// on the context's queue. Set the environment variable `CORESTACK_CONCURRENCY_DEBUG=1` to also
/// check every fault and property change of its objects, like Core Data's concurrency debug flag.
///
/// On Linux the main queue runs only while the main thread services it (`dispatchMain()`, a run
/// loop, or the main actor): never wait on a main-queue context from the main thread's own work.
///
/// `@unchecked Sendable`: a context is shared so that any thread can call ``perform(_:)-(()->Void)``
/// and ``performAndWait(_:)``; its mutable state is confined to its queue (the entry points trap
/// elsewhere), except the observer lists and `children`, which are locked.
public final class ManagedObjectContext: @unchecked Sendable, CustomStringConvertible {
    /// Which queue a context is bound to.
    public enum ConcurrencyType: Sendable {
        /// A serial queue of the context's own.
        case privateQueue
        /// The main queue.
        case mainQueue
    }

    /// The queue kind.
    public let concurrencyType: ConcurrencyType
    /// A name for logs and notifications.
    public var name: String?
    /// The parent context, for child contexts.
    public let parent: ManagedObjectContext?
    /// The coordinator of the root context (children reach it through their parents).
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    /// How save conflicts with the store are resolved. Default: ``MergePolicy/error``.
    public var mergePolicy: MergePolicy = .error
    /// Whether the context merges changes saved by its siblings into its parent (or, for a root
    /// context, saved by other contexts of its coordinator).
    public var automaticallyMergesChangesFromParent = false
    /// Whether the context keeps every object it registers until the object is deleted and
    /// saved or the context is reset. Default `false`: a clean object (no unsaved change) that
    /// nothing but the context references is released at the context's next sweep (see
    /// ``registeredObjects``); objects with changes are always kept until saved or rolled back.
    ///
    /// ```swift
    /// context.retainsRegisteredObjects = true   // keep every object fetched, referenced or not
    /// ```
    public var retainsRegisteredObjects = false
    /// The author a root save records in persistent history (``PersistentHistoryTransaction/author``).
    public var transactionAuthor: String?
    /// What the merge policy did in the last ``save()`` of this root context (empty when the save
    /// met no conflict, or for a child context). See ``ContextDidSave/mergeResolutions``.
    ///
    /// ```swift
    /// try context.save()
    /// context.lastSaveMergeResolutions.first?.winners["title"] // .attribute("Mine")
    /// ```
    public internal(set) var lastSaveMergeResolutions: [MergeResolution] = []
    /// The parent's pending changes the last ``save()`` of this child context replaced. See
    /// ``ContextDidSave/replacedParentChanges``.
    ///
    /// ```swift
    /// try child.save()
    /// child.lastSaveReplacedParentChanges.map(\.propertyName) // ["title"]
    /// ```
    public internal(set) var lastSaveReplacedParentChanges: [ParentChangeReplacement] = []
    /// The context's undo stack; nil (the default, as on iOS) records nothing. Setting one
    /// starts recording; see ``ContextUndoManager``.
    ///
    /// ```swift
    /// context.undoManager = ContextUndoManager()
    /// book.title = "Typo"
    /// context.processPendingChanges()
    /// context.undo() // the title is back
    /// ```
    public var undoManager: ContextUndoManager? {
        didSet {
            if oldValue !== undoManager { oldValue?.context = nil }
            undoManager?.context = self
            link.recordsUndo = undoManager != nil
        }
    }

    let queue: DispatchQueue
    private let queueToken = QueueToken()
    static let queueKey = DispatchSpecificKey<QueueToken>()
    /// Marks the main queue, so ``isOnQueue`` knows it whichever thread drains it.
    static let mainQueueToken: QueueToken = {
        let token = QueueToken()
        DispatchQueue.main.setSpecific(key: queueKey, value: token)
        return token
    }()
    /// Whether `CORESTACK_CONCURRENCY_DEBUG=1`: read once, with `getenv` (copying the whole
    /// environment through `ProcessInfo` cost ~360,000 instructions).
    static let concurrencyDebug: Bool = {
        guard let value = getenv("CORESTACK_CONCURRENCY_DEBUG") else { return false }
        return String(cString: value) == "1"
    }()

    // The context's state, confined to its queue.
    let registered = ObjectRegistry()
    /// The registry size (permanent IDs) at which the next sweep of unreferenced clean objects
    /// runs (see `sweepUnreferencedObjectsIfGrown()`).
    var nextRegistrySweep = ManagedObjectContext.registrySweepMinimum
    var insertedObjects = ObjectSet(.inserted)
    var updatedObjects = ObjectSet(.updated)
    var deletedObjects = ObjectSet(.deleted)
    /// Changes not yet announced by objectsDidChange.
    var pendingChanges = PendingChanges()
    /// A main-queue context has scheduled its end-of-turn ``processPendingChanges()`` (confined to
    /// the main queue; see `noteUnannouncedChange()`).
    var endOfTurnProcessingScheduled = false
    /// Registration from any thread; delivery on the context's queue (see ``ContextObservers``).
    let observers = ContextObservers()
    let childrenLock = NSLock()
    var children: [WeakContext] = []
    /// What this context's objects hold to reach it (see ``ManagedObject/managedObjectContext``).
    let link = ContextLink()

    /// A root context on a coordinator.
    ///
    /// ```swift
    /// let context = ManagedObjectContext(concurrencyType: .mainQueue, coordinator: coordinator)
    /// ```
    public init(concurrencyType: ConcurrencyType, coordinator: PersistentStoreCoordinator, name: String? = nil) {
        self.concurrencyType = concurrencyType
        self.parent = nil
        self.persistentStoreCoordinator = coordinator
        self.name = name
        self.queue = Self.makeQueue(concurrencyType, name: name, token: queueToken)
        link.context = self
        coordinator.register(context: self)
    }

    /// A child context whose saves go into `parent`.
    ///
    /// ```swift
    /// let scratch = ManagedObjectContext(concurrencyType: .privateQueue, parent: mainContext)
    /// ```
    public init(concurrencyType: ConcurrencyType, parent: ManagedObjectContext, name: String? = nil) {
        self.concurrencyType = concurrencyType
        self.parent = parent
        self.persistentStoreCoordinator = parent.persistentStoreCoordinator
        self.name = name
        self.queue = Self.makeQueue(concurrencyType, name: name, token: queueToken)
        link.context = self
        parent.childrenLock.lock()
        parent.children.removeAll { $0.context == nil }
        parent.children.append(WeakContext(self))
        parent.childrenLock.unlock()
    }

    deinit {
        // Objects that outlive the context see no context from now on.
        link.context = nil
    }

    private static func makeQueue(_ type: ConcurrencyType, name: String?, token: QueueToken) -> DispatchQueue {
        switch type {
        case .mainQueue:
            _ = mainQueueToken
            return .main
        case .privateQueue:
            let q = DispatchQueue(label: "CoreStack.context.\(name ?? "private")")
            q.setSpecific(key: queueKey, value: token)
            return q
        }
    }

    /// The context's name and queue kind.
    public var description: String {
        "<ManagedObjectContext \(name ?? "unnamed") \(concurrencyType == .mainQueue ? "main" : "private")>"
    }

    /// The coordinator's model.
    public var model: ManagedObjectModel { persistentStoreCoordinator.managedObjectModel }

    // MARK: Queue

    /// Whether the caller is running on this context's queue (directly, or inside a block of this
    /// context further up the same thread, as when a parent's block runs a child's `performAndWait`).
    public var isOnQueue: Bool {
        switch concurrencyType {
        // When the main thread has called dispatchMain() (as Swift Testing does on Linux), the main
        // queue is drained by another thread: recognise the queue itself too.
        // Cheapest first: inside perform / performAndWait the thread-local list holds the token.
        case .mainQueue:
            HeldQueues.current.contains(Self.mainQueueToken)
                || DispatchQueue.getSpecific(key: Self.queueKey) === Self.mainQueueToken || Thread.isMainThread
        case .privateQueue:
            HeldQueues.current.contains(queueToken) || DispatchQueue.getSpecific(key: Self.queueKey) === queueToken
        }
    }

    /// Runs a block on the context's queue and waits for it (runs it at once when already there).
    ///
    /// ```swift
    /// let count = try context.performAndWait { try context.count(for: FetchRequest<Book>(entityName: "Book")) }
    /// ```
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        if isOnQueue { return try holdingQueue(block) }
        return try queue.sync {
            let result = try holdingQueue(block)
            processPendingChanges()
            return result
        }
    }

    /// Schedules a block on the context's queue and returns at once.
    public func perform(_ block: @escaping @Sendable () -> Void) {
        queue.async { [self] in
            holdingQueue(block)
            processPendingChanges()
        }
    }

    /// Runs a block noting, for this thread, that it holds the context's queue: a nested `sync` on
    /// a child's queue runs on the same thread, where the current queue's specific value is the
    /// child's (and, for the main queue, `Thread.isMainThread` is false when another thread drains
    /// it), so a `sync` back onto this context's queue from there would deadlock.
    func holdingQueue<T>(_ block: () throws -> T) rethrows -> T {
        let token = concurrencyType == .mainQueue ? Self.mainQueueToken : queueToken
        let held = HeldQueues.current
        if held.contains(token) { return try block() }
        held.tokens.append(ObjectIdentifier(token))
        defer { held.tokens.removeLast() }
        return try block()
    }

    /// Runs a block on the context's queue and returns its result.
    ///
    /// ```swift
    /// let titles = try await context.perform {
    ///     try context.fetch(FetchRequest<Book>(entityName: "Book")).map { $0.title ?? "" }
    /// }
    /// ```
    public func perform<T: Sendable>(_ block: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            queue.async { [self] in
                do {
                    let value = try holdingQueue(block)
                    processPendingChanges()
                    continuation.resume(returning: value)
                } catch {
                    processPendingChanges()
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// Traps when the caller is off the context's queue: the entry points of a context (fetch,
    /// count, save, insert, delete, `object(with:)`, `existingObject(with:)`, refresh, rollback,
    /// reset, batch requests) check it always, as the cost is one queue-specific look-up per call
    /// (see BENCHMARKS.md, "Queue confinement"). Use `perform` / `performAndWait`, or, for a
    /// main-queue context, the main thread.
    ///
    /// ```swift
    /// try context.performAndWait { try context.save() }   // not context.save() from elsewhere
    /// ```
    @inline(__always)
    func checkQueue(_ function: StaticString = #function) {
        if !isOnQueue { queueViolation(function) }
    }

    /// The per-object check (fault firing, property changes): only with
    /// `CORESTACK_CONCURRENCY_DEBUG=1`, as it runs on every property access.
    @inline(__always)
    func debugCheckQueue(_ function: StaticString = #function) {
        if Self.concurrencyDebug && !isOnQueue { queueViolation(function) }
    }

    @inline(never)
    func queueViolation(_ function: StaticString) -> Never {
        let name = Thread.current.name.map { $0.isEmpty ? "" : " \"\($0)\"" } ?? ""
        let thread = Thread.isMainThread ? "the main thread" : "thread \(pthread_self())\(name)"
        preconditionFailure(
            "CoreStack concurrency violation: \(function) called on \(self) from \(thread), off the context's "
                + "queue \"\(queue.label)\"; use perform or performAndWait")
    }

    // MARK: Registered objects

    /// Every object the context holds.
    ///
    /// A clean object (no unsaved change) that nothing but the context references is released
    /// at the context's next sweep, which a fetch, ``fetchBatched(_:)`` or a
    /// ``BatchedFetchResult`` loading a batch runs once the objects held have doubled since the
    /// last one; Core Data releases it at once, when its last reference goes. Objects with
    /// changes stay until saved or rolled back; ``retainsRegisteredObjects`` keeps them all.
    ///
    /// ```swift
    /// let n = context.registeredObjects.count
    /// ```
    public var registeredObjects: [ManagedObject] { Array(registered.values) }
    /// Objects inserted and not saved.
    public var inserted: [ManagedObject] { Array(insertedObjects.values) }
    /// Objects changed and not saved.
    public var updated: [ManagedObject] { Array(updatedObjects.values) }
    /// Objects deleted and not saved.
    public var deleted: [ManagedObject] { Array(deletedObjects.values) }
    /// Whether anything is inserted, updated or deleted.
    public var hasChanges: Bool { !insertedObjects.isEmpty || !updatedObjects.isEmpty || !deletedObjects.isEmpty }

    /// The object registered under an ID, if the context holds it (no fault is created).
    public func registeredObject(for id: ManagedObjectID) -> ManagedObject? {
        if let o = registered[id] { return o }
        let c = persistentStoreCoordinator.canonicalID(id)
        return c == id ? nil : registered[c]
    }

    /// The object for an ID: the registered one, or a new fault (which fails to fire if the object
    /// does not exist).
    ///
    /// ```swift
    /// let book = try context.object(with: id)
    /// ```
    public func object(with id: ManagedObjectID) throws -> ManagedObject {
        checkQueue()
        return try objectOnQueue(with: id)
    }

    /// ``object(with:)`` for a caller that has checked the queue itself (once for many IDs).
    func objectOnQueue(with id: ManagedObjectID) throws -> ManagedObject {
        if let o = registeredObject(for: id) { return o }
        // By identity: the entity at the ID's number in this model is the ID's own entity (an ID
        // of an equal model instance, or of an entity this model lacks, is another object).
        guard model.entity(number: id._entity.entityNumber) === id._entity else {
            throw CoreStackError.wrongContext("\(id) belongs to another model")
        }
        return makeFault(for: persistentStoreCoordinator.canonicalID(id))
    }

    /// Registers a new fault for a canonical ID that is not registered yet.
    func makeFault(for id: ManagedObjectID) -> ManagedObject {
        let o = makeObject(for: id)
        registered[id] = o
        return o
    }

    /// A new fault of this context for an ID (not registered: the caller does that).
    func makeObject(for id: ManagedObjectID) -> ManagedObject {
        let o = id.entity.managedObjectClass.init(entity: id.entity, objectID: id)
        o.managedObjectContext = self
        return o
    }

    /// The object for an ID, materialised; throws when it does not exist in the store (or parent).
    ///
    /// ```swift
    /// let book = try context.existingObject(with: id)
    /// ```
    public func existingObject(with id: ManagedObjectID) throws -> ManagedObject {
        let o = try object(with: id)
        if o.isDeleted { throw CoreStackError.objectNotFound("\(id) was deleted") }
        try o.fireFault()
        return o
    }

    /// The entity mapped to a ``ManagedObject`` subclass (the first in the model's entity order
    /// when several share it; see ``ManagedObjectModel/entity(forClass:)``), or
    /// ``CoreStackError/unknownEntity(_:)`` when none uses it.
    ///
    /// ```swift
    /// let entity = try context.entity(for: Book.self)
    /// ```
    public func entity(for type: ManagedObject.Type) throws -> EntityDescription {
        guard let e = model.entity(forClass: type) else {
            throw CoreStackError.unknownEntity("no entity uses the class \(type)")
        }
        return e
    }

    // MARK: Inserting and deleting

    /// Inserts a new object of an entity.
    ///
    /// ```swift
    /// let author = try context.insertObject(forEntityName: "Author")
    /// ```
    @discardableResult
    public func insertObject(forEntityName name: String) throws -> ManagedObject {
        let entity = try model.requireEntity(name)
        let o = entity.managedObjectClass.init(entity: entity, objectID: ManagedObjectID(temporaryFor: entity))
        try register(inserted: o)
        return o
    }

    /// Inserts a new object of the entity mapped to a subclass.
    ///
    /// ```swift
    /// let book = try context.insert(Book.self)
    /// ```
    @discardableResult
    public func insert<T: ManagedObject>(_ type: T.Type) throws -> T {
        let entity = try entity(for: type)
        let o = T(entity: entity, objectID: ManagedObjectID(temporaryFor: entity))
        try register(inserted: o)
        return o
    }

    func register(inserted o: ManagedObject) throws {
        checkQueue()
        if o.entity.isAbstract {
            throw CoreStackError.invalidModel(entity: o.entity.name, property: nil, reason: "an abstract entity cannot have instances")
        }
        noteWillChange(o)
        o.managedObjectContext = self
        o.values = o.entity.defaultValues
        o.relations = o.entity.emptyRelations
        o.faultState = .materialized
        o.changeState = .inserted
        registered[o.objectID] = o
        insertedObjects.insert(o)
        pendingChanges.inserted.insert(o)
        o.pendingInsertion = true
        noteUnannouncedChange()
        o.awakeFromInsert()
    }

    /// Deletes an object, applying the delete rules of its relationships (nullify, cascade;
    /// deny is checked at save).
    ///
    /// ```swift
    /// try context.delete(book)
    /// ```
    public func delete(_ object: ManagedObject) throws {
        checkQueue()
        guard object.managedObjectContext === self else {
            throw CoreStackError.wrongContext("\(object.objectID) is not in this context")
        }
        if object.isDeleted { return }
        try object.fireFault()
        var cascade: [ManagedObject] = []
        for (slot, r) in object.entity.allRelationships.enumerated() {
            switch r.deleteRule {
            case .noAction, .deny: continue
            case .nullify, .cascade:
                let ids = try object.destinationIDs(slot: slot)
                for id in ids {
                    guard let dest = try? self.object(with: id), !dest.isDeleted else { continue }
                    if r.deleteRule == .cascade { cascade.append(dest) }
                    if let inv = object.entity.inverseSlots[slot] {
                        try dest.fireFault()
                        try removeLink(from: dest, slot: inv, id: object.objectID)
                    }
                }
            }
        }
        markDeleted(object)
        for dest in cascade { try delete(dest) }
    }

    func markDeleted(_ object: ManagedObject) {
        noteWillChange(object)
        let id = object.objectID
        pendingChanges.updated.remove(object)
        object.pendingUpdate = false
        object.pendingInsertion = false
        if object.changeState == .inserted {
            insertedObjects.remove(object)
            pendingChanges.inserted.remove(object)
            object.changeState = .deleted
            // Never saved: it simply leaves the context.
            registered[id] = nil
            pendingChanges.deleted.insert(object)
            noteUnannouncedChange()
            return
        }
        updatedObjects.remove(object)
        object.changeState = .deleted
        deletedObjects.insert(object)
        pendingChanges.deleted.insert(object)
        noteUnannouncedChange()
    }

    // MARK: Changes

    func objectDidChange(_ object: ManagedObject, transientOnly: Bool = false) {
        debugCheckQueue()
        if object.changeState == .clean && !transientOnly {
            object.changeState = .updated
            updatedObjects.insert(object)
        }
        // Inserted objects too: a change after their insertion was announced is an update
        // (processPendingChanges leaves out objects inserted in the same batch).
        if object.pendingInsertion || object.pendingUpdate { return }
        object.pendingUpdate = true
        pendingChanges.updated.insert(object)
        noteUnannouncedChange()
    }

    // MARK: Faulting

    func fireFault(_ object: ManagedObject) throws {
        debugCheckQueue()
        let id = object.objectID
        // One object of a root context (a fault by ID): as below with `batchIDs == [id]`, with
        // the coordinator's one-ID read (no dictionary of one snapshot, no list of one ID).
        if object.faultBatch == nil, parent == nil {
            let found = try persistentStoreCoordinator.snapshot(for: id)
            if let found, let o = registered[id], o.isFault {
                o.materialize(from: found)
                o.awakeFromFetch()
            }
            if object.isFault {
                guard let found else { throw CoreStackError.objectNotFound("\(id) does not exist in the store") }
                object.materialize(from: found)
                object.awakeFromFetch()
            }
            return
        }
        let batchIDs: [ManagedObjectID]
        if let batch = object.faultBatch {
            batchIDs = batch.neighbours(of: id).filter { registered[$0]?.isFault ?? false }
        } else {
            batchIDs = [id]
        }
        let found = try snapshots(for: batchIDs.isEmpty ? [id] : batchIDs)
        for bid in batchIDs {
            guard let o = registered[bid], o.isFault, let s = found[bid] else { continue }
            o.materialize(from: s.row, toMany: s.toMany)
            o.awakeFromFetch()
        }
        if object.isFault {
            guard let s = found[id] else {
                throw CoreStackError.objectNotFound("\(id) does not exist in the store")
            }
            object.materialize(from: s.row, toMany: s.toMany)
            object.awakeFromFetch()
        }
    }

    /// The state of objects as this context's parent chain sees them (for firing faults).
    func snapshots(for ids: [ManagedObjectID]) throws -> [ManagedObjectID: ObjectState] {
        if let parent {
            return try parent.performAndWait { try parent.statesForChild(ids) }
        }
        return try persistentStoreCoordinator.snapshots(for: ids).mapValues { ObjectState(row: $0, toMany: [:]) }
    }

    /// Called on this context's queue by a child: the objects' states including unsaved changes here.
    func statesForChild(_ ids: [ManagedObjectID]) throws -> [ManagedObjectID: ObjectState] {
        var out: [ManagedObjectID: ObjectState] = [:]
        var missing: [ManagedObjectID] = []
        for id in ids {
            if let o = registeredObject(for: id) {
                if o.isDeleted { continue }
                if !o.isFault {
                    var toMany: [Int: OrderedSet<ManagedObjectID>] = [:]
                    for (slot, rel) in o.relations.enumerated() { if case let .toMany(s) = rel { toMany[slot] = s } }
                    out[id] = ObjectState(row: o.currentSnapshot(), toMany: toMany)
                    continue
                }
            }
            missing.append(id)
        }
        if !missing.isEmpty {
            for (id, s) in try snapshots(for: missing) { out[id] = s }
        }
        return out
    }

    /// Loads a to-many relationship fault of an object.
    func loadToMany(_ object: ManagedObject, slot: Int) throws -> OrderedSet<ManagedObjectID> {
        let ids: [ManagedObjectID]
        if let parent {
            ids = try parent.performAndWait { try parent.toManyForChild(object.objectID, slot: slot) }
        } else if object.objectID.isTemporaryID {
            ids = []
        } else {
            ids = try persistentStoreCoordinator.relatedObjectIDs(for: [object.objectID], slot: slot)[object.objectID] ?? []
        }
        let set = OrderedSet(ids.map { persistentStoreCoordinator.canonicalID($0) })
        object.relations[slot] = .toMany(set)
        object.committedToMany[slot] = set
        return set
    }

    func toManyForChild(_ id: ManagedObjectID, slot: Int) throws -> [ManagedObjectID] {
        if let o = registeredObject(for: id), !o.isDeleted {
            return try o.destinationIDs(slot: slot)
        }
        if let parent {
            return try parent.performAndWait { try parent.toManyForChild(id, slot: slot) }
        }
        if id.isTemporaryID { return [] }
        return try persistentStoreCoordinator.relatedObjectIDs(for: [id], slot: slot)[id] ?? []
    }

    // MARK: Relationship maintenance

    /// Puts `b` in `a`'s relationship slot and `a` in `b`'s inverse, detaching previous partners.
    func link(_ a: ManagedObject, slot: Int, to b: ManagedObject) throws {
        try a.checkMutable()
        try b.checkMutable()
        try addLink(to: a, slot: slot, id: b.objectID)
        guard let inv = a.entity.inverseSlots[slot] else { return }
        try b.fireFault()
        if !b.entity.allRelationships[inv].isToMany, let prev = try previousOwner(of: b, slot: inv), prev != a.objectID {
            // b belonged to another owner through a to-one inverse: take it away from there.
            if let prevObject = try? object(with: prev), !prevObject.isDeleted {
                try prevObject.fireFault()
                try removeLink(from: prevObject, slot: slot, id: b.objectID)
            }
        }
        try addLink(to: b, slot: inv, id: a.objectID)
    }

    /// The destination of `b`'s to-one `slot` (`b` fired), read in place: no array of it made.
    private func previousOwner(of b: ManagedObject, slot: Int) throws -> ManagedObjectID? {
        if case let .toOne(id) = b.materialized.relations[slot] { return id }
        return try b.destinationIDs(slot: slot).first
    }

    /// Removes `b` from `a`'s relationship slot and `a` from `b`'s inverse.
    func unlink(_ a: ManagedObject, slot: Int, from b: ManagedObject) throws {
        try removeLink(from: a, slot: slot, id: b.objectID)
        guard let inv = a.entity.inverseSlots[slot] else { return }
        try b.fireFault()
        try removeLink(from: b, slot: inv, id: a.objectID)
    }

    private func addLink(to o: ManagedObject, slot: Int, id: ManagedObjectID) throws {
        // The two flags read in place: a copy of the description retains and releases each of
        // its strings (~300 instructions a link).
        let relationships = o.entity.allRelationships
        if relationships[slot].isToMany {
            // In place (linking N objects to one owner is O(N)); the undo image is taken first.
            guard try !o.toManyContains(slot: slot, id) else { return }
            noteWillChange(o, relationshipSlot: slot)
            _ = try o.mutateToMany(slot: slot) { $0.append(id).inserted }
        } else {
            if case let .toOne(cur) = o.relations[slot], cur == id { return }
            noteWillChange(o, relationshipSlot: slot)
            if case let .toOne(cur?) = o.relations[slot], cur != id, let inv = o.entity.inverseSlots[slot],
                let old = try? object(with: cur), (try? old.fireFault()) != nil
            {
                try removeLink(from: old, slot: inv, id: o.objectID)
            }
            o.relations[slot] = .toOne(id)
        }
        objectDidChange(o, transientOnly: relationships[slot].isTransient)
    }

    func removeLink(from o: ManagedObject, slot: Int, id: ManagedObjectID) throws {
        let relationships = o.entity.allRelationships
        if relationships[slot].isToMany {
            guard try o.toManyContains(slot: slot, id) else { return }
            noteWillChange(o, relationshipSlot: slot)
            _ = try o.mutateToMany(slot: slot) { $0.remove(id) != nil }
        } else {
            guard case let .toOne(cur) = o.relations[slot], cur == id else { return }
            noteWillChange(o, relationshipSlot: slot)
            o.relations[slot] = .toOne(nil)
        }
        if !o.isDeleted { objectDidChange(o, transientOnly: relationships[slot].isTransient) }
    }
}

/// An object's state as a context sees it: its row and the to-many relationships it has loaded.
struct ObjectState {
    var row: RowSnapshot
    var toMany: [Int: OrderedSet<ManagedObjectID>]
}

/// Identifies a private queue (for ``ManagedObjectContext/isOnQueue``).
final class QueueToken: Sendable {}

/// A weak reference to a context.
struct WeakContext {
    weak var context: ManagedObjectContext?
    init(_ context: ManagedObjectContext) { self.context = context }
}

/// Changes made since the last objectsDidChange.
struct PendingChanges {
    var inserted = ObjectSet(.pendingInserted)
    var updated = ObjectSet(.pendingUpdated)
    var deleted = ObjectSet(.pendingDeleted)
    var refreshed = ObjectSet(.pendingRefreshed)
    var invalidatedAll = false

    var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty && !invalidatedAll }
}

/// The queues a thread is running blocks of, innermost last (see ``ManagedObjectContext/holdingQueue(_:)``).
final class HeldQueues {
    var tokens: [ObjectIdentifier] = []

    /// A pthread key, not `Thread.current.threadDictionary`: every entry point of a context asks
    /// for this list (``ManagedObjectContext/checkQueue(_:)``), and a dictionary look-up by string
    /// with a cast cost several times the rest of the check. The thread's list is released by the
    /// key's destructor when the thread ends.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { raw in
            guard let raw else { return }
            Unmanaged<HeldQueues>.fromOpaque(raw).release()
        }
        return key
    }()

    /// This thread's list.
    static var current: HeldQueues {
        if let raw = pthread_getspecific(key) { return Unmanaged<HeldQueues>.fromOpaque(raw).takeUnretainedValue() }
        let held = HeldQueues()
        pthread_setspecific(key, Unmanaged.passRetained(held).toOpaque())
        return held
    }

    func contains(_ token: QueueToken) -> Bool { tokens.contains(ObjectIdentifier(token)) }
}
