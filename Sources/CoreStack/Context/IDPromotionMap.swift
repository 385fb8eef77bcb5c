import OrderedCollections

/// Where the temporary IDs of one promotion went (temporary → permanent), for rewriting the
/// references objects hold to them.
///
/// A save (or ``ManagedObjectContext/obtainPermanentIDs(for:)``) gives inserted objects
/// permanent IDs; every to-one and to-many reference to their temporary IDs is then rewritten.
/// A temporary ID is found by its key in a dense index (a hash map, ``FastMap``, only when one
/// promotion's keys are spread thinly), a permanent ID (never a key here) is passed over without a
/// look-up, each reference is looked up once, and a to-many
/// set is rebuilt only when it holds a promoted ID: a save of 10,000 books with 100,000 chapters
/// and their authors rewrites about 260,000 references.
///
/// ```swift
/// let promotions = IDPromotionMap(temporary: [t1, t2], permanent: [p1, p2])
/// promotions[t1]                    // p1
/// promotions.rewritten([t2, p1])    // [p2, p1]
/// promotions.rewritten([p1])        // nil: nothing to rewrite
/// ```
struct IDPromotionMap {
    /// The promotion's IDs as given (`temporary[i]` became `permanent[i]`).
    private let temporary: [ManagedObjectID]
    private let permanent: [ManagedObjectID]
    /// The usual case, a dense index by temporary key: `slots[rawKey - base]` is the index in
    /// ``temporary`` of the ID with that key, plus one (0: none). Temporary keys come from one
    /// process-wide counter, so one save's keys lie close together: looking an ID up is an index
    /// and one comparison, no hash (a save of 1,000 books with their chapters and authors makes
    /// 11,250 entries and looks up about 36,000 references).
    private var base: Int64 = 0
    private var slots: [Int32] = []
    /// Otherwise (keys spread thinly, or two promoted IDs sharing a key): a hash map.
    private var map: FastMap<ManagedObjectID, ManagedObjectID>?
    /// Number of promoted IDs.
    private var count = 0

    /// `temporary[i]` became `permanent[i]`; a temporary ID listed twice keeps its first.
    init(temporary: [ManagedObjectID], permanent: [ManagedObjectID]) {
        self.temporary = temporary
        self.permanent = permanent
        let n = min(temporary.count, permanent.count)
        func promoted(_ i: Int) -> Bool { temporary[i].isTemporary && temporary[i] != permanent[i] }
        var lo = Int64.max
        var hi = Int64.min
        var promotions = 0
        for i in 0..<n where promoted(i) {
            lo = Swift.min(lo, temporary[i].rawKey)
            hi = Swift.max(hi, temporary[i].rawKey)
            promotions += 1
        }
        guard promotions > 0 else { return }
        let (span, overflow) = hi.subtractingReportingOverflow(lo)
        if !overflow, span < Int64(promotions) * 4 + 1024, n < Int(Int32.max) {
            slots = [Int32](repeating: 0, count: Int(span) + 1)
            base = lo
            var dense = true
            for i in 0..<n where promoted(i) {
                let k = Int(temporary[i].rawKey - lo)
                let s = slots[k]
                if s == 0 {
                    slots[k] = Int32(i + 1)
                    count += 1
                } else if temporary[Int(s) - 1] != temporary[i] {
                    dense = false
                    break
                }
            }
            if dense { return }
            slots = []
            count = 0
        }
        var map = FastMap<ManagedObjectID, ManagedObjectID>(minimumCapacity: promotions)
        for i in 0..<n where promoted(i) && !map.contains(temporary[i]) {
            map.insertNew(permanent[i], forAbsentKey: temporary[i])
        }
        count = map.count
        self.map = map
    }

    /// Whether no ID was promoted.
    var isEmpty: Bool { count == 0 }

    /// The permanent ID `id` became, or nil when it is not a promoted temporary ID.
    subscript(id: ManagedObjectID) -> ManagedObjectID? {
        guard id.isTemporary, count > 0 else { return nil }
        if let map { return map[id] }
        guard id.rawKey >= base else { return nil }
        let (k, overflow) = id.rawKey.subtractingReportingOverflow(base)
        guard !overflow, k < Int64(slots.count) else { return nil }
        let s = Int(slots[Int(k)])
        guard s > 0, temporary[s - 1] == id else { return nil }
        return permanent[s - 1]
    }

    /// `set` with each promoted ID replaced in place (order kept), or nil when it holds none.
    func rewritten(_ set: OrderedSet<ManagedObjectID>) -> OrderedSet<ManagedObjectID>? {
        let elements = set.elements
        var out: [ManagedObjectID] = []
        var changed = false
        // Promoted temporary IDs map to distinct permanent ones, and an ID left as it is stays
        // distinct from them unless it is permanent: only a set holding a permanent ID (which a
        // promoted member may have become already) can come out with a duplicate.
        var holdsPermanent = false
        // By index, the flag read in place: a permanent member (never promoted) is passed over
        // without a copy of it (a retain and a release of its entity) or a look-up.
        for i in elements.indices {
            if elements[i].isTemporary, let p = self[elements[i]] {
                if !changed {
                    changed = true
                    out.reserveCapacity(elements.count)
                    out.append(contentsOf: elements[..<i])
                }
                out.append(p)
            } else {
                if !elements[i].isTemporary { holdsPermanent = true }
                if changed { out.append(elements[i]) }
            }
        }
        guard changed else { return nil }
        if holdsPermanent { return OrderedSet(out) }
        assert(Set(out).count == out.count, "a promotion gave two members one permanent ID")
        return OrderedSet(uncheckedUniqueElements: out)
    }
}
