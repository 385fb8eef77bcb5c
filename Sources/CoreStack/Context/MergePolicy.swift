import Foundation

/// How a root context resolves a save that conflicts with changes another context (or process)
/// wrote to the store since the objects were read.
///
/// ```swift
/// context.mergePolicy = .mergeByPropertyObjectTrump
/// context.mergePolicy = MergePolicy(name: "storetrump") ?? .error
/// ```
///
/// A policy runs only where a save reaches the store: a child context's save pushes into its
/// parent without a conflict check (see ``ContextDidSave/replacedParentChanges``). What it
/// decided is in ``ContextDidSave/mergeResolutions``.
///
/// A policy also settles uniqueness-constraint conflicts (Core Data's
/// `resolve(constraintConflicts:)`): under ``error`` the save throws
/// ``CoreStackError/constraintConflict(_:)``; under the others, before anything is written, each
/// inserted object holding the values of a stored row (or of an earlier inserted object) is merged
/// into that row's object and leaves the context, the import "upsert". Object trump gives the
/// survivor the new object's non-nil values, overwrite all its values, store trump keeps the
/// survivor's, rollback its stored ones; relationships that pointed at the duplicate point at the
/// survivor. Conflicts no policy can merge (an updated object taking another row's values, a
/// stored row deleted or swapped in the same save) are still thrown.
///
/// ```swift
/// context.mergePolicy = .mergeByPropertyObjectTrump
/// let tag = try context.insertObject(forEntityName: "Tag")  // "swift" is already stored
/// try tag.setValue("swift", forKey: "name")
/// try context.save()  // updates the stored "swift"; `tag` is gone from the context
/// ```
public enum MergePolicy: Sendable, Hashable {
    /// Fail the save with ``CoreStackError/mergeConflict(_:)`` listing each conflict (the default).
    case error
    /// Property by property: the context's changed values win, the store's values fill the rest.
    case mergeByPropertyObjectTrump
    /// Property by property: the store's changed values win over the context's.
    case mergeByPropertyStoreTrump
    /// The context's whole objects overwrite the store's.
    case overwrite
    /// The context's changes to conflicting objects are dropped in favour of the store.
    case rollback
    /// A closure decides, property by property (as a subclass of Core Data's `NSMergePolicy`).
    case custom(CustomMergePolicy)

    /// The policy's name: `error`, `objectTrump`, `storeTrump`, `overwrite`, `rollback`, or the
    /// custom policy's name.
    ///
    /// ```swift
    /// MergePolicy.mergeByPropertyStoreTrump.name // "storeTrump"
    /// ```
    public var name: String {
        switch self {
        case .error: "error"
        case .mergeByPropertyObjectTrump: "objectTrump"
        case .mergeByPropertyStoreTrump: "storeTrump"
        case .overwrite: "overwrite"
        case .rollback: "rollback"
        case let .custom(policy): policy.name
        }
    }

    /// The built-in policy of a name, case-insensitively: `error`, `objecttrump`, `storetrump`,
    /// `overwrite` or `rollback`; nil for any other name.
    ///
    /// ```swift
    /// MergePolicy(name: "ObjectTrump") // .mergeByPropertyObjectTrump
    /// MergePolicy(name: "newest")      // nil
    /// ```
    public init?(name: String) {
        switch name.lowercased() {
        case "error": self = .error
        case "objecttrump": self = .mergeByPropertyObjectTrump
        case "storetrump": self = .mergeByPropertyStoreTrump
        case "overwrite": self = .overwrite
        case "rollback": self = .rollback
        default: return nil
        }
    }
}
