import Foundation

/// How a root context resolves a save that conflicts with changes another context (or process)
/// wrote to the store since the objects were read.
///
/// ```swift
/// context.mergePolicy = .mergeByPropertyObjectTrump
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
}
