/// What a context's objects hold to reach their context: one small box per context.
///
/// Objects hold the box strongly and the box holds the context unowned; the context empties the
/// box as it goes, so an object that outlives its context sees none. Forming a weak reference
/// from each of 100,000 objects, and destroying it again, costs several times the one retain
/// and release of the box.
///
/// ```swift
/// object.managedObjectContext   // context.link.context, nil once the context is gone
/// ```
///
/// `@unchecked Sendable`: `context` is emptied only by the context's `deinit` (after which no
/// code runs on the context's queue for it) and `recordsUndo` is read and written on the
/// context's queue; objects, which read both, are confined to that queue too.
final class ContextLink: @unchecked Sendable {
    /// The context; set once it is initialised, cleared by its `deinit`.
    unowned var context: ManagedObjectContext?
    /// Whether the context has an undo manager: changes note their object's state first
    /// (checked here, on the object's path, without loading the context).
    var recordsUndo = false

    init() {}
}
