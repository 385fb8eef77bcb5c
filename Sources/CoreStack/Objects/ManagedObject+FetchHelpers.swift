import Foundation

/// Gives every ``ManagedObject`` subclass its class-level fetch helpers (a protocol, so that
/// they can return `[Self]`).
///
/// Class-level fetch helpers for ``ManagedObject`` subclasses (mapped to an entity with
/// `EntityDescription(_:class:)`). Call them on the context's queue.
///
/// ```swift
/// try await context.perform {
///     let long = try Book.all(in: context, predicate: .key("pages") > 300, sortedBy: [SortDescriptor("title")])
///     let first = try Book.findFirst(in: context, predicate: .key("title") == "Emma")
///     let n = try Book.count(in: context)
///     try Book.removeAll(in: context, except: long)
///     try context.save()
/// }
/// ```
public protocol FetchHelpers: ManagedObject {}

extension ManagedObject: FetchHelpers {}

extension FetchHelpers {
    /// Every object of the class's entity (and its sub-entities) matching `predicate`, in order.
    ///
    /// ```swift
    /// let books = try Book.all(in: context, sortedBy: [SortDescriptor("title")])
    /// ```
    public static func all(
        in context: ManagedObjectContext, predicate: Predicate? = nil, sortedBy sortDescriptors: [SortDescriptor] = []
    ) throws -> [Self] {
        try context.fetch(FetchRequest<Self>(predicate: predicate, sortDescriptors: sortDescriptors))
    }

    /// The first object matching `predicate` (in the order of `sortDescriptors`), or nil.
    ///
    /// ```swift
    /// let emma = try Book.findFirst(in: context, predicate: .key("title") == "Emma")
    /// ```
    public static func findFirst(
        in context: ManagedObjectContext, predicate: Predicate? = nil, sortedBy sortDescriptors: [SortDescriptor] = []
    ) throws -> Self? {
        var request = FetchRequest<Self>(predicate: predicate, sortDescriptors: sortDescriptors)
        request.fetchLimit = 1
        return try context.fetch(request).first
    }

    /// How many objects match `predicate`.
    ///
    /// ```swift
    /// let n = try Book.count(in: context, predicate: .key("pages") > 300)
    /// ```
    public static func count(in context: ManagedObjectContext, predicate: Predicate? = nil) throws -> Int {
        try context.count(for: FetchRequest<Self>(predicate: predicate))
    }

    /// Deletes every object of the class's entity (and sub-entities) in the context; save to make it last.
    ///
    /// ```swift
    /// try Book.removeAll(in: context)
    /// try context.save()
    /// ```
    public static func removeAll(in context: ManagedObjectContext) throws {
        try removeAll(in: context, except: [])
    }

    /// Deletes every object of the class's entity except the ones given; save to make it last.
    ///
    /// ```swift
    /// try Book.removeAll(in: context, except: keep)
    /// ```
    public static func removeAll(in context: ManagedObjectContext, except kept: [ManagedObject]) throws {
        let keep = Set(kept.map { context.persistentStoreCoordinator.canonicalID($0.objectID) })
        for o in try all(in: context) where !keep.contains(context.persistentStoreCoordinator.canonicalID(o.objectID)) {
            if !o.isDeleted { try context.delete(o) }
        }
    }
}
