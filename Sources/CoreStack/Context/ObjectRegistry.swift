/// The objects a context holds, by ID: permanent IDs in one table (pages by primary key, see
/// ``PrimaryKeyTable``) and the temporary IDs of unsaved inserts in another.
///
/// A reference type, held by its context in a `let`: registering an object makes no access to a
/// field of the context, so a subclass's `init(entity:objectID:)`, which runs while a fetch
/// registers the object it makes, may use the context (a `var` struct field was under a
/// modifying access for the whole registration, and any use of the registry from that `init`
/// trapped as a simultaneous access).
///
/// A save moves its inserts to their permanent IDs. With one table that meant removing 100,000
/// temporary keys one at a time after a big insert; with two, the permanent keys go into their
/// table and the temporary table is dropped at once when the save took every one of them.
///
/// ```swift
/// let registry = ObjectRegistry()
/// registry[object.objectID] = object
/// registry[object.objectID]          // object
/// registry.promote([object], from: [object.objectID], to: [permanentID])
/// ```
final class ObjectRegistry {
    private let permanent = PrimaryKeyTable<ManagedObject>()
    private var temporary = TemporaryObjectTable()

    init() {}

    /// Number of objects.
    var count: Int { permanent.count + temporary.count }

    subscript(id: ManagedObjectID) -> ManagedObject? {
        get { id.isTemporary ? temporary[id] : permanent[id] }
        set {
            if id.isTemporary { temporary[id] = newValue } else { permanent[id] = newValue }
        }
    }

    /// Registers an object under an ID the caller knows is not registered.
    func insertNew(_ object: ManagedObject, forAbsentKey id: ManagedObjectID) {
        if id.isTemporary {
            temporary[id] = object
        } else {
            permanent.setValue(object, forKey: id)
        }
    }

    /// The object registered under a permanent ID, or the one `make` creates, registered: one
    /// probe either way. `make` runs while no page is being worked on and may use the registry
    /// (see ``PrimaryKeyTable/value(forKey:orInsert:)``).
    @inline(__always)
    func object(forPermanent id: ManagedObjectID, orInsert make: () -> ManagedObject) -> ManagedObject {
        permanent.value(forKey: id, orInsert: make)
    }

    /// Moves objects registered under the temporary IDs `old` to the permanent IDs `new` (all
    /// three parallel) and sets each object's ``ManagedObject/objectID``. `visit` sees every
    /// object with its index, just after its move (or where it stands, for one not moved): a
    /// caller with more to do per object (rewriting the references it holds) does it in this
    /// walk rather than in one of its own, while the object is in the processor's cache.
    func promote(
        _ objects: [ManagedObject], from old: [ManagedObjectID], to new: [ManagedObjectID],
        visiting visit: (Int, ManagedObject) -> Void = { _, _ in }
    ) {
        var moved = 0
        // By index, reading the IDs in place: each copy of an ID (a `zip`) retains and releases
        // its entity.
        let n = min(objects.count, old.count, new.count)
        for i in objects.indices {
            let o = objects[i]
            if i < n && old[i].isTemporary && old[i] != new[i] {
                // Counted only when registered here, so `moved` is exact.
                if temporary.holds(o, for: old[i]) { moved += 1 }
                o.objectID.become(new[i])
                permanent.setValue(o, forKey: new[i])
            }
            visit(i, o)
        }
        if moved == temporary.count {
            // Every temporary key went: drop the table rather than empty it key by key.
            temporary.removeAll()
        } else {
            for i in 0..<n where old[i].isTemporary && old[i] != new[i] { temporary[old[i]] = nil }
        }
    }

    /// Number of objects under permanent IDs (the ones a sweep may release).
    var permanentCount: Int { permanent.count }

    /// Drops every clean object under a permanent ID that nothing but this registry references,
    /// returning their IDs. On the context's queue only: when the registry holds the only
    /// strong reference, no other thread can be taking one concurrently (taking one needs the
    /// object, which only this registry can hand out), so the check cannot race. (A Swift
    /// `weak` reference held elsewhere does not count: loaded on another thread during the
    /// sweep, it can keep alive an object the registry has just let go, which is then no longer
    /// the registered instance for its ID. Hold objects strongly.) Objects with
    /// changes, or pending in an objectsDidChange, are held elsewhere too (the context's change
    /// sets) and are also skipped by state. Inserted objects live under temporary IDs until
    /// saved and are never looked at.
    func sweepUnreferenced() -> [ManagedObjectID] {
        var released: [ManagedObjectID] = []
        permanent.removeAll(whereSlot: { slot in
            // Read through the slot, binding no second reference before the uniqueness check.
            guard slot?.changeState == .clean && slot?.pendingUpdate == false && slot?.pendingInsertion == false
                && isKnownUniquelyReferenced(&slot), let id = slot?.objectID
            else { return false }
            released.append(id)
            return true
        })
        return released
    }

    /// Every object, permanent IDs first.
    var values: [ManagedObject] { permanent.values + temporary.values }

    /// Forgets every object.
    func removeAll() {
        permanent.removeAll()
        temporary.removeAll()
    }
}
