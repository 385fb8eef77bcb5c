import Foundation

/// What a root save's uniqueness merging did (``ManagedObjectContext/resolveUniquenessConflicts()``):
/// the merges made, for ``ManagedObjectContext/lastSaveMergeResolutions``, and whether its last
/// look at the store found nothing left to merge, so the save's own check need not ask again.
struct UniquenessMerges {
    /// One conflict merged: the object that survived, the policy, and the attributes the merged
    /// duplicates held (their values are the survivor's winners).
    struct Merge {
        var survivor: ManagedObject
        var conflict: ConstraintConflict
        var policy: MergePolicy
        var keys: Set<String>
    }

    var merges: [Merge] = []
    /// The coordinator's ``PersistentStoreCoordinator/storeGeneration`` when a uniqueness query
    /// last found the save's objects free of conflicts (nil: no such query ran). While it has not
    /// moved, no save of this coordinator came in between, and the save need not ask again.
    var checkedAtGeneration: UInt64?

    /// The context's objects as they were before the first merge (their undo images), to put
    /// back when the save fails after merging.
    var before: [(object: ManagedObject, image: UndoImage)] = []

    /// Whether anything was merged.
    var changed: Bool { !merges.isEmpty }

    /// Undoes the merges in `context` (the save failed after them): each object the merging
    /// changed gets its earlier values and relationships back, and each duplicate is an inserted
    /// object of the context again.
    func restore(in context: ManagedObjectContext) {
        for (o, image) in before {
            let now = context.undoImage(of: o)
            if !image.sameState(as: now) { context.applyUndoImage(image, leaving: now, to: o) }
        }
    }

    /// The merges as resolutions, once the save has settled the survivors (their object IDs
    /// permanent, their committed versions the saved ones). A survivor merged away in turn is left out.
    func resolutions() -> [MergeResolution] {
        merges.compactMap { m in
            guard !m.survivor.isDeleted else { return nil }
            let version = m.survivor.committed?.version ?? 0
            let now = ManagedObjectContext.propertySnapshot(m.survivor.currentSnapshot(), entity: m.survivor.entity)
            var winners: [String: PropertyValue] = [:]
            for key in m.keys { winners[key] = now[key] }
            return MergeResolution(
                conflict: MergeConflict(objectID: m.survivor.objectID, expectedVersion: version, storeVersion: version),
                policy: m.policy, winners: winners, constraintConflict: m.conflict)
        }
    }
}
