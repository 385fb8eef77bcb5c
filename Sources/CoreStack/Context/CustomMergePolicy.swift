import Foundation

/// A merge policy whose conflicts a closure resolves, as a subclass of Core Data's
/// `NSMergePolicy` overriding `resolve(optimisticLockingConflicts:)`.
///
/// The closure gets one ``ConflictResolutionDraft`` per conflicting object, each with the
/// conflict's snapshots and the values the save will write for every property either side
/// changed (prefilled as object trump does: the context's changes, the store's for the rest). It
/// changes what it wants (``ConflictResolutionDraft/choose(_:for:)`` or a value of its own), or
/// throws to fail the save with that error. The objects then take the store's row with the
/// drafts' values on top and the save is tried again.
///
/// ```swift
/// let largerPages = CustomMergePolicy(name: "largerPages") { drafts in
///     for i in drafts.indices {
///         let mine = drafts[i].conflict.objectSnapshot["pages"]?.attributeValue?.integerValue ?? 0
///         let theirs = drafts[i].conflict.persistedSnapshot?["pages"]?.attributeValue?.integerValue ?? 0
///         drafts[i].choose(mine >= theirs ? .context : .store, for: "pages")
///         drafts[i].choose(.context, for: "title")
///     }
/// }
/// context.mergePolicy = .custom(largerPages)
/// ```
///
/// Uniqueness-constraint conflicts go to a second closure, if the policy has one
/// (``init(name:constraintConflicts:resolve:)``), which picks the built-in policy that merges
/// each; without it they fail the save with ``CoreStackError/constraintConflict(_:)``.
///
/// Objects deleted in the store are left out of the drafts (there is no row to write: the
/// context forgets them, as under the built-in policies), and so are objects the saving
/// context deletes (the delete goes through). Two policies are equal when they are the same
/// instance (copies of one value included); the hash uses the name and that identity.
public struct CustomMergePolicy: Sendable, Hashable {
    /// The policy's name (``MergePolicy/name``).
    public let name: String
    let resolver: @Sendable (inout [ConflictResolutionDraft]) throws -> Void
    /// Picks the built-in policy that merges each uniqueness-constraint conflict (Core Data's
    /// `resolve(constraintConflicts:)` calling `super` with that merge type); nil when the policy
    /// was made without one, and constraint conflicts fail the save.
    let constraintResolver: (@Sendable (ConstraintConflict) throws -> MergePolicy)?
    private let identity = Identity()

    private final class Identity: Sendable {}

    /// A policy named `name` that resolves conflicts with `resolve`.
    ///
    /// ```swift
    /// let storeWinsOnPrice = CustomMergePolicy(name: "price") { drafts in
    ///     for i in drafts.indices { drafts[i].choose(.store, for: "price") }
    /// }
    /// ```
    public init(name: String, resolve: @escaping @Sendable (inout [ConflictResolutionDraft]) throws -> Void) {
        self.name = name
        self.resolver = resolve
        self.constraintResolver = nil
    }

    /// A policy named `name` that also resolves uniqueness-constraint conflicts: for each
    /// ``ConstraintConflict`` of a root save, `constraintConflicts` returns the built-in policy
    /// that merges its objects (as ``MergePolicy`` describes), ``MergePolicy/error`` to fail the
    /// save with ``CoreStackError/constraintConflict(_:)``, or throws to fail it with its own
    /// error. It runs on the saving context's queue before anything is written.
    ///
    /// ```swift
    /// let importer = CustomMergePolicy(name: "importer", constraintConflicts: { conflict in
    ///     conflict.entity == "Tag" ? .mergeByPropertyObjectTrump : .error
    /// }, resolve: { drafts in
    ///     for i in drafts.indices { drafts[i].choose(.context, for: "title") }
    /// })
    /// context.mergePolicy = .custom(importer)
    /// ```
    public init(
        name: String, constraintConflicts: @escaping @Sendable (ConstraintConflict) throws -> MergePolicy,
        resolve: @escaping @Sendable (inout [ConflictResolutionDraft]) throws -> Void
    ) {
        self.name = name
        self.resolver = resolve
        self.constraintResolver = constraintConflicts
    }

    /// Two policies are equal when they are the same policy (made by the same `init` call).
    public static func == (lhs: CustomMergePolicy, rhs: CustomMergePolicy) -> Bool {
        lhs.identity === rhs.identity
    }

    /// Hashes the name and identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(ObjectIdentifier(identity))
    }
}
