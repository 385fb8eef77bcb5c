/// An insertion-ordered set of managed objects, by identity, with no hashing.
///
/// A context's inserted, updated and deleted objects, and the changes its next objectsDidChange
/// announces, are kept in these. Each set has a ``Role``, and every object keeps its position in
/// the set of each role (``ObjectSetPositions``), so membership, insertion and removal are an
/// array access instead of a hash lookup (two hash tables per inserted object were a tenth of
/// inserting 100,000 objects). A stored position counts only if the set holds the object there,
/// so positions left behind by a cleared or replaced set are harmless. Removal leaves a hole that
/// iteration skips; the holes are squeezed out when they outnumber the members.
///
/// Copies share the members' position slots: once one copy has been changed, the others may
/// only be iterated, not changed or asked ``contains(_:)`` (the context keeps one live copy of
/// each set; objectsDidChange reads the pending sets it has just swapped out before anything is
/// pending again).
///
/// ```swift
/// var set = ObjectSet(.inserted)
/// set.insert(book)     // true
/// set.contains(book)   // true
/// set.remove(book)
/// ```
struct ObjectSet: Sequence {
    /// Which of a context's sets this is; each role has its own position slot in every object.
    enum Role: Int {
        case inserted, updated, deleted, pendingInserted, pendingUpdated, pendingDeleted, pendingRefreshed
    }

    let role: Role
    private var objects: ContiguousArray<ManagedObject?> = []
    /// The number of members.
    private(set) var count = 0

    init(_ role: Role) { self.role = role }

    var isEmpty: Bool { count == 0 }

    /// Whether `object` is a member.
    @inline(__always)
    func contains(_ object: ManagedObject) -> Bool {
        let p = object.setPositions[role]
        return p >= 0 && p < objects.count && objects[p] === object
    }

    /// Adds `object` at the end unless it is a member; returns whether it was added.
    @discardableResult
    mutating func insert(_ object: ManagedObject) -> Bool {
        if contains(object) { return false }
        object.setPositions[role] = objects.count
        objects.append(object)
        count += 1
        return true
    }

    /// Removes `object`; returns whether it was a member.
    @discardableResult
    mutating func remove(_ object: ManagedObject) -> Bool {
        guard contains(object) else { return false }
        objects[object.setPositions[role]] = nil
        object.setPositions[role] = -1
        count -= 1
        if objects.count > 32 && objects.count > 2 * count { compact() }
        return true
    }

    /// Removes every member.
    mutating func removeAll() {
        objects = []
        count = 0
    }

    private mutating func compact() {
        var kept = ContiguousArray<ManagedObject?>()
        kept.reserveCapacity(count)
        for case let o? in objects {
            o.setPositions[role] = kept.count
            kept.append(o)
        }
        objects = kept
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
