import Foundation

extension ManagedObjectContext {
    /// The smallest registry (objects under permanent IDs) a sweep looks at.
    static let registrySweepMinimum = 4_096

    /// A sweep point: releases the unreferenced clean objects once the registry has doubled
    /// since the last sweep (and holds at least ``registrySweepMinimum`` objects), so sweeping
    /// costs O(1) amortised per registration. Fetches run it before they register objects, and a
    /// ``BatchedFetchResult`` as it loads a batch.
    ///
    /// There is no sweep at the end of a `perform` block or in ``object(with:)``: releasing there
    /// would move the deallocation of every object a block used into that block (a block that
    /// fetches 100,000 objects and lets them go would pay for their teardown before returning).
    @inline(__always)
    func sweepUnreferencedObjectsIfGrown() {
        guard registered.permanentCount >= nextRegistrySweep else { return }
        sweepUnreferencedObjects()
    }

    /// Releases every clean object under a permanent ID that nothing but this context
    /// references (none when ``retainsRegisteredObjects`` is set); returns how many went. A root
    /// context also drops their rows from the coordinator's row cache: a snapshot is kept there
    /// while an object uses it, so walking a million rows once does not leave a million
    /// snapshots behind (dropping one loses nothing: a fault reads its row again).
    ///
    /// Core Data releases such an object as soon as its last outside reference goes; here it
    /// stays registered (and is found again by ID) until the next sweep. Objects are not
    /// referenced weakly and have no `deinit` hook: the check is `isKnownUniquelyReferenced` on
    /// the registry's own reference, on the context's queue.
    @discardableResult
    func sweepUnreferencedObjects() -> Int {
        debugCheckQueue()
        var released = 0
        if !retainsRegisteredObjects {
            let ids = registered.sweepUnreferenced()
            released = ids.count
            if parent == nil, !ids.isEmpty { persistentStoreCoordinator.forgetRows(ids) }
        }
        nextRegistrySweep = max(Self.registrySweepMinimum, 2 * registered.permanentCount)
        return released
    }
}
