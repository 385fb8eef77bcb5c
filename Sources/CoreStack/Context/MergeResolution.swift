import Foundation

/// What a merge policy did with one conflicting object when a root context saved: the conflict
/// (cached, store and context values), the policy, and the value written for each property.
///
/// ```swift
/// context.mergePolicy = .mergeByPropertyStoreTrump
/// try context.save()
/// for r in context.lastSaveMergeResolutions {
///     for key in r.conflict.changedKeys {
///         print(key, r.conflict.cachedSnapshot[key], r.conflict.persistedSnapshot?[key],
///               r.conflict.objectSnapshot[key], r.winners[key])
///     }
/// }
/// ```
public struct MergeResolution: Sendable, Equatable {
    /// The conflict as the save met it.
    public var conflict: MergeConflict
    /// The policy that resolved it.
    public var policy: MergePolicy
    /// The value that won for each property either side changed (``MergeConflict/changedKeys``,
    /// a superset of ``MergeConflict/conflictingKeys``): what the save wrote to the store, or
    /// what the store kept when the policy dropped the context's change. Empty when nothing of
    /// the object was written: it was deleted in the store (the context forgot it) or the saving
    /// context deleted it (the delete went through).
    public var winners: [String: PropertyValue]
    /// For a uniqueness-constraint merge (objects holding the same constrained values merged into
    /// one by the policy, Core Data's upsert), the conflict merged; ``conflict`` then names the
    /// object that survived (``MergeConflict/objectID``) and ``winners`` the values it was saved
    /// with for every attribute a merged duplicate held. Nil for an optimistic-locking conflict.
    ///
    /// ```swift
    /// for r in context.lastSaveMergeResolutions where r.constraintConflict != nil {
    ///     print("\(r.constraintConflict!.values) merged into \(r.conflict.objectID)")
    /// }
    /// ```
    public var constraintConflict: ConstraintConflict?

    /// A resolution: the conflict, the policy that settled it and the winning values.
    public init(
        conflict: MergeConflict, policy: MergePolicy, winners: [String: PropertyValue], constraintConflict: ConstraintConflict? = nil
    ) {
        self.conflict = conflict
        self.policy = policy
        self.winners = winners
        self.constraintConflict = constraintConflict
    }
}
