import Foundation
import OrderedCollections

/// An object of an entity, living in one ``ManagedObjectContext``.
///
/// Subclass it and declare typed properties with the property wrappers, or use it as it is with
/// ``value(forKey:)`` and ``setValue(_:forKey:)``, which check values against the model.
///
/// ```swift
/// final class Book: ManagedObject {
///     @Attribute("title") var title: String?
///     @Attribute("pages") var pages: Int
///     @ToOne("publisher") var publisher: Publisher?
///     @ToMany("authors") var authors: Set<Author>
///     @OrderedToMany("chapters") var chapters: [Chapter]
/// }
/// let book = try Book(context: context)
/// book.title = "Dune"
/// try context.save()
/// ```
///
/// Objects come back from fetches as faults: their values load on first access, from the
/// coordinator's row cache or from the store, in batches for objects fetched together.
/// Objects are not `Sendable`; pass their ``objectID`` between queues.
open class ManagedObject: Hashable, CustomStringConvertible {
    /// The object's entity.
    public let entity: EntityDescription
    /// The object's ID: temporary until saved, then permanent.
    public internal(set) var objectID: ManagedObjectID
    /// The context the object lives in (nil once the context is gone or the object was removed).
    public internal(set) var managedObjectContext: ManagedObjectContext? {
        get { contextLink?.context }
        set { contextLink = newValue?.link }
    }
    /// The context's link: a strong reference to a box the context clears as it goes, rather
    /// than a weak reference to the context (forming and destroying a weak reference per object
    /// cost a fetch or an insert of 100,000 objects about 2 ms each).
    var contextLink: ContextLink?

    // Storage: one slot per attribute and per relationship (see Sources/CoreStack/CoreStack.docc/Reference/Architecture.md). The one-byte states
    // and the 4-byte set positions come last, packed together: stored properties are laid out in
    // declaration order, and every byte of an object counts when a fetch makes 100,000 of them.
    // Every field keeps Swift's run-time exclusivity checks (an overlapping access traps instead
    // of corrupting the object), except `values` and `faultState`, which every typed property
    // read touches (two `swift_beginAccess` calls per read: property reads of workload 2 take
    // 2-3 times as long with them, BENCHMARKS.md, issue 19). What makes skipping them safe, and
    // who upholds it:
    // - an object's fields are only touched on its context's queue (the context's entry points
    //   trap elsewhere; CORESTACK_CONCURRENCY_DEBUG=1 checks every fault and property change),
    //   so two threads never access them at once;
    // - CoreStack's own code makes only instantaneous accesses to them: a read, an element
    //   assignment or a whole-array swap; no `inout` to either is ever held across a call (no
    //   `&values`, no `values.withUnsafe…`, no closure run inside a `modify`), so no user code
    //   (observers, `awakeFromFetch`, `willSave`, subclass overrides) runs during an access.
    // Tests: ManagedObjectFieldAccessTests (run under ThreadSanitizer and AddressSanitizer in CI).
    @exclusivity(unchecked) @usableFromInline final var values: [AttributeValue] = []
    /// What materialising sets besides `values`, in one field so that filling a fault makes one
    /// checked access instead of four (worth ~2 ms of a 100,000-object fetch's ~52 ms in a
    /// same-run A/B, BENCHMARKS.md). The four properties below read and modify it in place.
    var materialized = MaterializedFields()
    /// Relationship slots: to-one destinations, to-many sets, or not yet loaded.
    var relations: [RelationSlot] {
        get { materialized.relations }
        _modify { yield &materialized.relations }
    }
    /// The values as last fetched or saved.
    var committed: RowSnapshot? {
        get { materialized.committed }
        _modify { yield &materialized.committed }
    }
    /// To-many destinations as first loaded or last saved, by slot.
    var committedToMany: [Int: OrderedSet<ManagedObjectID>] {
        get { materialized.committedToMany }
        _modify { yield &materialized.committedToMany }
    }
    /// The batch of faults this object was fetched with, for firing them together.
    var faultBatch: FaultBatch? {
        get { materialized.faultBatch }
        _modify { yield &materialized.faultBatch }
    }
    /// The last error a typed property accessor (``Attribute``, ``ToOne``…) swallowed: accessors
    /// cannot throw, so a refused value or a fault that could not fire is recorded here.
    public var lastAccessorError: (any Error)?
    /// Skips run-time exclusivity checks, like `values` (see the note above `values`).
    @exclusivity(unchecked) @usableFromInline final var faultState: FaultState = .fault
    var changeState: ChangeState = .clean
    /// In the context's pending insertions or updates (the next objectsDidChange): lets a change
    /// skip re-recording an object already pending, without loading its context.
    var pendingInsertion = false
    var pendingUpdate = false
    /// The object's position in each of its context's change sets (see ``ObjectSet``).
    var setPositions = ObjectSetPositions()

    @usableFromInline enum FaultState { case fault, materialized }
    enum ChangeState { case clean, inserted, updated, deleted }

    /// Creates an object; contexts call this. Subclasses must keep it (add no stored properties
    /// without default values).
    public required init(entity: EntityDescription, objectID: ManagedObjectID) {
        self.entity = entity
        self.objectID = objectID
    }

    /// Inserts a new object of the entity mapped to this class into a context.
    ///
    /// ```swift
    /// let book = try Book(context: context)
    /// ```
    public convenience init(context: ManagedObjectContext) throws {
        let entity = try context.entity(for: Self.self)
        self.init(entity: entity, objectID: ManagedObjectID(temporaryFor: entity))
        try context.register(inserted: self)
    }

    // MARK: State

    /// Whether the object's values have not been loaded yet.
    public var isFault: Bool { faultState == .fault }
    /// Inserted in its context and not saved yet.
    public var isInserted: Bool { changeState == .inserted }
    /// Changed in its context and not saved yet.
    public var isUpdated: Bool { changeState == .updated }
    /// Deleted in its context and not saved yet.
    public var isDeleted: Bool { changeState == .deleted }
    /// Inserted, updated or deleted.
    public var hasChanges: Bool { changeState != .clean }

    /// Identity: two objects are equal only when they are the same instance.
    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }
    /// Hashes the instance's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    /// The instance's hash for sets and dictionaries, without `Hasher`: its address (what `==`
    /// compares) mixed with the seed by a `HashMixer`. Underscored, as the standard library's
    /// `Hashable` requirement it implements.
    ///
    /// ```swift
    /// let objects: Set<ManagedObject> = [book, author]   // hashed through this
    /// ```
    public final func _rawHashValue(seed: Int) -> Int {
        var m = HashMixer(seed: seed)
        m.combine(UInt64(UInt(bitPattern: ObjectIdentifier(self))))
        return m.value
    }

    /// The entity, the ID and, unless a fault, every attribute value.
    open var description: String {
        if isFault { return "<\(entity.name) \(objectID): fault>" }
        let attrs = entity.allAttributes.enumerated().map { "\($1.name)=\(values[$0])" }
        return "<\(entity.name) \(objectID): \(attrs.joined(separator: ", "))>"
    }

    /// Called once after the object is inserted; override to set up values.
    open func awakeFromInsert() {}
    /// Called after the object's values were loaded from a fetch or a fault.
    open func awakeFromFetch() {}

    // MARK: Faulting

    /// Loads the object's values if it is a fault (a no-op otherwise).
    public func fireFault() throws {
        guard faultState == .fault else { return }
        guard let context = managedObjectContext else {
            throw CoreStackError.objectNotFound("\(objectID) is not in a context")
        }
        try context.fireFault(self)
    }

    /// Fills the slots from a snapshot (values and to-one destinations), leaving to-many as faults.
    /// The snapshot becomes the committed state: a caller that gives it up (a fetched row) spares
    /// a copy.
    func materialize(from snapshot: consuming RowSnapshot, toMany: [Int: OrderedSet<ManagedObjectID>] = [:]) {
        values = snapshot.values
        fill(from: snapshot, toMany: toMany, relationships: entity.allRelationships)
    }

    /// ``materialize(from:toMany:)`` for a caller that already holds a second reference to the
    /// snapshot's values (`sharedValues` is `snapshot.values`, taken while the row was still in
    /// the processor's cache): the object swaps that reference in (`sharedValues` is left with
    /// the fault's old values) instead of retaining the array again, which would touch a cold
    /// cache line per object in a large fetch. `relationships` is the entity's
    /// ``EntityDescription/allRelationships``, which a fetch reads once per run of rows of one
    /// entity: read per object, it was a run-time access check on the entity each time (a
    /// `var` of a public class), ~2 % of a 100,000-row fetch's instructions.
    func materialize(
        from snapshot: consuming RowSnapshot, sharedValues: inout [AttributeValue], relationships: [RelationshipDescription]
    ) {
        swap(&values, &sharedValues)
        fill(from: snapshot, toMany: Dictionary(), relationships: relationships)
    }

    /// The rest of materialising once `values` is set: to-one slots, the committed state, flags.
    /// `relationships` is the entity's ``EntityDescription/allRelationships``.
    private func fill(
        from snapshot: consuming RowSnapshot, toMany: [Int: OrderedSet<ManagedObjectID>], relationships: [RelationshipDescription]
    ) {
        var rel: [RelationSlot] = []
        if !relationships.isEmpty {
            rel = [RelationSlot](repeating: .fault, count: relationships.count)
            for (slot, r) in relationships.enumerated() {
                if r.isToMany {
                    if let set = toMany[slot] { rel[slot] = .toMany(set) }
                } else {
                    rel[slot] = .toOne(slot < snapshot.toOne.count ? snapshot.toOne[slot] : nil)
                }
            }
        }
        // One assignment, one checked access; the fault batch is done with.
        materialized = MaterializedFields(relations: rel, committed: consume snapshot, committedToMany: toMany)
        faultState = .materialized
    }

    /// The object's state as a snapshot of its current values (for pushing to a parent or saving).
    func currentSnapshot() -> RowSnapshot {
        RowSnapshot(
            values: values,
            toOne: relations.map { if case let .toOne(id) = $0 { id } else { nil } },
            version: committed?.version ?? 0)
    }

    /// Turns the object back into a fault, dropping unsaved changes of its values.
    func turnIntoFault() {
        values = []
        relations = []
        committed = nil
        committedToMany = [:]
        faultState = .fault
    }
}

/// What a relationship slot holds.
enum RelationSlot {
    /// Not loaded yet (to-many only once materialized).
    case fault
    case toOne(ManagedObjectID?)
    case toMany(OrderedSet<ManagedObjectID>)
}

/// Objects fetched together, so that firing one fault loads its neighbours in one query.
final class FaultBatch {
    let ids: [ManagedObjectID]
    let batchSize: Int
    private var positions: [ManagedObjectID: Int] = [:]

    init(ids: [ManagedObjectID], batchSize: Int) {
        self.ids = ids
        self.batchSize = max(1, batchSize)
    }

    /// The IDs of the batch that holds `id`.
    func neighbours(of id: ManagedObjectID) -> ArraySlice<ManagedObjectID> {
        if positions.isEmpty { for (i, x) in ids.enumerated() { positions[x] = i } }
        guard let i = positions[id] else { return [id] }
        let start = (i / batchSize) * batchSize
        return ids[start..<min(ids.count, start + batchSize)]
    }
}
