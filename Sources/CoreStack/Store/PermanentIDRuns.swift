/// Where temporary IDs went when they were made permanent, kept as runs.
///
/// A coordinator remembers this so an ID handed out before a save (to a child context, a parent,
/// a caller) still finds its object afterwards. Temporary IDs come from one counter and a save
/// gives each entity's inserts consecutive primary keys, so a big insert maps a run of temporary
/// keys onto a run of primary keys: one entry for 100,000 objects, where a hash map kept
/// 100,000 entries that were never removed.
///
/// ```swift
/// var runs = PermanentIDRuns()
/// runs.record(temporary: [t1, t2], permanent: [p1, p2])
/// runs[t2]            // p2
/// ```
struct PermanentIDRuns {
    /// Temporary keys `firstTemporary ..< firstTemporary + count` of one entity became primary keys
    /// `firstKey ..< firstKey + count` in one store.
    private struct Run {
        var firstTemporary: Int64
        var count: Int64
        var firstKey: Int64
        let entity: EntityDescription
        let storeToken: UInt32

        var endTemporary: Int64 { firstTemporary + count }

        /// Whether `(t, p)` continues this run.
        func continues(_ t: ManagedObjectID, _ p: ManagedObjectID) -> Bool {
            t.rawKey == endTemporary && p.rawKey == firstKey + count && t._entity === entity
                && p._entity === entity && p.storeToken == storeToken
        }
    }

    /// Sorted by `firstTemporary`, not overlapping.
    private var runs: [Run] = []

    /// Number of runs (not of IDs).
    var runCount: Int { runs.count }

    /// The permanent ID a temporary one became, if it did.
    subscript(id: ManagedObjectID) -> ManagedObjectID? {
        guard id.isTemporary, !runs.isEmpty else { return nil }
        // The last run starting at or before the key.
        let after = position(of: id.rawKey)
        guard after > 0 else { return nil }
        // Read in place: a copy of the run would retain and release its entity.
        let r = after - 1
        guard id.rawKey < runs[r].endTemporary, runs[r].entity === id._entity else { return nil }
        return ManagedObjectID(
            entity: id._entity, storeToken: runs[r].storeToken, primaryKey: runs[r].firstKey + (id.rawKey - runs[r].firstTemporary))
    }

    /// Records that `temporary[i]` became `permanent[i]` (a temporary ID is recorded once).
    mutating func record(temporary: some Sequence<ManagedObjectID>, permanent: some Sequence<ManagedObjectID>) {
        var fresh: [Run] = []
        for (t, p) in zip(temporary, permanent) where t.isTemporary && !p.isTemporary {
            if let last = fresh.last, last.continues(t, p) {
                fresh[fresh.count - 1].count += 1
            } else {
                fresh.append(Run(firstTemporary: t.rawKey, count: 1, firstKey: p.rawKey, entity: t._entity, storeToken: p.storeToken))
            }
        }
        add(fresh)
    }

    /// Records that temporary keys `temporaryKeys[i]` of `entity` became primary keys
    /// `primaryKeys[i]` in the store of `storeToken` (what a coordinator's
    /// `obtainPermanentIDs(for:)` assigns, recorded from plain keys: no ID is copied).
    mutating func record(
        entity: EntityDescription, storeToken: UInt32, temporaryKeys: some Sequence<Int64>, primaryKeys: [Int64]
    ) {
        var fresh: [Run] = []
        for (t, p) in zip(temporaryKeys, primaryKeys) {
            if let last = fresh.indices.last, t == fresh[last].endTemporary, p == fresh[last].firstKey + fresh[last].count {
                fresh[last].count += 1
            } else {
                fresh.append(Run(firstTemporary: t, count: 1, firstKey: p, entity: entity, storeToken: storeToken))
            }
        }
        add(fresh)
    }

    /// Adds new runs, keeping the runs in temporary-key order.
    ///
    /// Usually every new run comes after the runs so far (one entity's inserts, or a context that
    /// took its keys before another one saved: a few runs a little before the end). When they do
    /// not, the two sorted lists are merged in one pass: a save that interleaves entities (a book,
    /// its ten chapters, the next book…) records one run per book and per book's chapters, and
    /// inserting each chapters' run among the books' ones moved the runs after it every time
    /// (quadratic: 10,000 books took ~30 ms of workload 7a's save).
    private mutating func add(_ fresh: [Run]) {
        guard !fresh.isEmpty else { return }
        var fresh = fresh
        fresh.sort { $0.firstTemporary < $1.firstTemporary }
        guard let last = runs.last, last.firstTemporary > fresh[0].firstTemporary else {
            runs.append(contentsOf: fresh)
            return
        }
        if fresh.count == 1 {
            runs.insert(fresh[0], at: position(of: fresh[0].firstTemporary))
            return
        }
        var merged: [Run] = []
        merged.reserveCapacity(runs.count + fresh.count)
        var i = 0
        var j = 0
        while i < runs.count, j < fresh.count {
            if runs[i].firstTemporary <= fresh[j].firstTemporary {
                merged.append(runs[i])
                i += 1
            } else {
                merged.append(fresh[j])
                j += 1
            }
        }
        merged.append(contentsOf: runs[i...])
        merged.append(contentsOf: fresh[j...])
        runs = merged
    }

    /// The index of the first run starting after `key`.
    private func position(of key: Int64) -> Int {
        var low = 0
        var high = runs.count
        while low < high {
            let mid = (low + high) / 2
            if runs[mid].firstTemporary <= key { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Forgets every run.
    mutating func removeAll() { runs.removeAll() }
}
