import Foundation

/// What a ``FetchedResultsController``'s event stream delivers: the delegate's calls as `Sendable`
/// values, with object IDs in place of objects.
///
/// Each batch of changes arrives as `willChangeContent`, section changes, object changes, then
/// `didChangeContent`. An ID is the object's ID when the event was sent: a temporary ID becomes
/// permanent at save, and ``ManagedObjectContext/object(with:)`` resolves either.
///
/// ```swift
/// Task {
///     for await event in controller.events() {
///         if case let .object(.insert(id, at: path)) = event { print(id, path) }
///     }
/// }
/// ```
public enum FetchedResultsEvent: Sendable, Hashable {
    /// A batch of changes begins.
    case willChangeContent
    /// A section was inserted or deleted.
    case section(FetchedResultsSectionChange<ManagedObjectID>)
    /// An object was inserted, deleted, moved or updated.
    case object(FetchedResultsChange<ManagedObjectID>)
    /// The batch is complete: the controller holds the new results.
    case didChangeContent
    /// ``FetchedResultsController/performFetch()`` replaced the results (reload everything).
    case didPerformFetch
}
