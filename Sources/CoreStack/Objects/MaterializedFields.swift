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

    /// Makes `snapshot` the committed state and the current to-many sets the committed ones
    /// (a saved object): one access to the object's field, not one per slot.
    ///
    /// ```swift
    /// o.materialized.settle(as: snapshot)
    /// ```
    mutating func settle(as snapshot: RowSnapshot) {
        committed = snapshot
        // Made at its final size: grown one set at a time, an object with two to-many
        // relationships reallocated its table on the second.
        var toManyCount = 0
        for slot in relations.indices {
            if case .toMany = relations[slot] { toManyCount += 1 }
        }
        var sets = [Int: OrderedSet<ManagedObjectID>](minimumCapacity: toManyCount)
        if toManyCount > 0 {
            for slot in relations.indices {
                if case let .toMany(set) = relations[slot] { sets[slot] = set }
            }
        }
        committedToMany = sets
    }

    /// Points every reference held to a promoted temporary ID at its permanent ID: the to-one
    /// and to-many slots and the committed to-many sets, in one access to the object's field.
    ///
    /// ```swift
    /// o.materialized.rewriteReferences(promotions)
    /// ```
    mutating func rewriteReferences(_ promotions: IDPromotionMap) {
        for slot in relations.indices {
            switch relations[slot] {
            case let .toOne(id?):
                if id.isTemporary, let p = promotions[id] { relations[slot] = .toOne(p) }
            case let .toMany(set):
                if let rewritten = promotions.rewritten(set) { relations[slot] = .toMany(rewritten) }
            default: break
            }
        }
        if committedToMany.isEmpty { return }
        for (slot, set) in committedToMany {
            if let rewritten = promotions.rewritten(set) { committedToMany[slot] = rewritten }
        }
    }
}
