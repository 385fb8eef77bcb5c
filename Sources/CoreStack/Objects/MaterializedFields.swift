import OrderedCollections

/// The fields of a ``ManagedObject`` that materialising a fault sets besides its values: the
/// relationship slots, the committed snapshot, the committed to-many sets and the fault batch.
///
/// Kept together in one stored property so that filling a fault assigns them in one access
/// (Swift checks exclusivity at run time on every access to a class's stored property; four
/// separate fields cost four checks per object fetched). The object reads and modifies each
/// field in place through properties of the same names.
struct MaterializedFields {
    /// Relationship slots: to-one destinations, to-many sets, or not yet loaded.
    var relations: [RelationSlot] = []
    /// The values as last fetched or saved.
    var committed: RowSnapshot?
    /// To-many destinations as first loaded or last saved, by slot.
    var committedToMany: [Int: OrderedSet<ManagedObjectID>] = [:]
    /// The batch of faults this object was fetched with, for firing them together.
    var faultBatch: FaultBatch?
}
