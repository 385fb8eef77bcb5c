/// The inserted objects of a save that still have temporary IDs, with those IDs (two parallel
/// arrays, in the order the objects were met), for their promotion to permanent IDs.
///
/// A root save gathers them in its validation pass, while each object is at hand, instead of
/// walking its inserts twice more (a filter on the ID, then the IDs copied out): a walk over
/// 100,000 objects is a cache miss per object.
///
/// ```swift
/// var temporaries = TemporaryInserts(capacity: inserted.count)
/// for o in inserted { temporaries.gather(o) }   // kept only while o.objectID is temporary
/// temporaries.objects.count == inserted.count   // every insert is promoted by the save
/// ```
struct TemporaryInserts {
    /// The objects, in the order gathered.
    private(set) var objects: [ManagedObject] = []
    /// Their temporary IDs: `ids[i]` is `objects[i].objectID` as gathered.
    private(set) var ids: [ManagedObjectID] = []

    /// An empty list with room for `capacity` objects.
    init(capacity: Int = 0) {
        objects.reserveCapacity(capacity)
        ids.reserveCapacity(capacity)
    }

    /// Adds `object` if its ID is temporary.
    @inline(__always)
    mutating func gather(_ object: ManagedObject) {
        // The ID copied out once (a copy retains its entity).
        let id = object.objectID
        guard id.isTemporary else { return }
        objects.append(object)
        ids.append(id)
    }
}
