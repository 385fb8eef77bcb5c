/// An insertion-ordered set of managed objects, by identity.
///
/// A context's inserted, updated and deleted objects, and the changes its next objectsDidChange
/// announces, are kept in these. Keyed by the object rather than its ID, a set needs no re-keying
/// when a save gives objects permanent IDs. Removal leaves a hole that later iteration skips; the
/// holes are squeezed out when they outnumber the members.
///
/// ```swift
/// var set = ObjectSet()
/// set.insert(book)     // true
/// set.contains(book)   // true
/// set.remove(book)
/// ```
struct ObjectSet: Sequence {
    private var objects: ContiguousArray<ManagedObject?> = []
    private var positions = FastMap<ObjectIdentifier, Int>()

    init() {}

    /// The number of members.
    var count: Int { positions.count }
    var isEmpty: Bool { positions.isEmpty }

    /// Whether `object` is a member.
    func contains(_ object: ManagedObject) -> Bool { positions.contains(ObjectIdentifier(object)) }

    /// Adds `object` at the end unless it is a member; returns whether it was added.
    @discardableResult
    mutating func insert(_ object: ManagedObject) -> Bool {
        guard positions.insertIfAbsent(objects.count, forKey: ObjectIdentifier(object)) else { return false }
        objects.append(object)
        return true
    }

    /// Removes `object`; returns whether it was a member.
    @discardableResult
    mutating func remove(_ object: ManagedObject) -> Bool {
        guard let p = positions.removeValue(forKey: ObjectIdentifier(object)) else { return false }
        objects[p] = nil
        if objects.count > 32 && objects.count > 2 * positions.count { compact() }
        return true
    }

    mutating func removeAll() {
        objects = []
        positions.removeAll()
    }

    private mutating func compact() {
        var kept = ContiguousArray<ManagedObject?>()
        kept.reserveCapacity(positions.count)
        var fresh = FastMap<ObjectIdentifier, Int>(minimumCapacity: positions.count)
        for case let o? in objects {
            fresh.updateValue(kept.count, forKey: ObjectIdentifier(o))
            kept.append(o)
        }
        objects = kept
        positions = fresh
    }

    /// The members in insertion order.
    var values: [ManagedObject] {
        var out: [ManagedObject] = []
        out.reserveCapacity(count)
        for case let o? in objects { out.append(o) }
        return out
    }

    func makeIterator() -> IndexingIterator<[ManagedObject]> { values.makeIterator() }
}
