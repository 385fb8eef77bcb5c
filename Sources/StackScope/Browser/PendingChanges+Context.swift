import CoreStack

extension PendingChanges {
    /// What `context` has inserted, updated and deleted and not saved (read on its queue).
    ///
    /// ```swift
    /// PendingChanges(of: scratch).total   // 3
    /// ```
    init(of context: ManagedObjectContext) {
        self = context.performAndWait {
            PendingChanges(inserted: context.inserted.count, updated: context.updated.count, deleted: context.deleted.count)
        }
    }
}
