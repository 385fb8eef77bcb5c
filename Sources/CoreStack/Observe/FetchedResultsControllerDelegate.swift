import Foundation

/// Told of a ``FetchedResultsController``'s changes, on the context's queue. Every method has an
/// empty default; implement the ones you need.
///
/// A batch of changes calls ``controllerWillChangeContent(_:)``, then
/// ``controller(_:didChangeSection:)`` for each section deleted (old index) and inserted (new index),
/// then ``controller(_:didChange:)`` for each object deleted, inserted, moved and updated, then
/// ``controllerDidChangeContent(_:)``.
///
/// ```swift
/// final class BookList: FetchedResultsControllerDelegate {
///     func controller(_ c: FetchedResultsController<Book>, didChange change: FetchedResultsChange<Book>) {
///         print(change)
///     }
///     func controllerDidChangeContent(_ c: FetchedResultsController<Book>) { redraw() }
/// }
/// controller.delegate = bookList
/// ```
public protocol FetchedResultsControllerDelegate<Object>: AnyObject {
    /// The controller's object type.
    associatedtype Object: ManagedObject

    /// A batch of changes begins; the controller still holds the old results.
    func controllerWillChangeContent(_ controller: FetchedResultsController<Object>)
    /// An object was inserted, deleted, moved or updated.
    func controller(_ controller: FetchedResultsController<Object>, didChange change: FetchedResultsChange<Object>)
    /// A section was inserted or deleted.
    func controller(_ controller: FetchedResultsController<Object>, didChangeSection change: FetchedResultsSectionChange<Object>)
    /// The batch is complete: the controller holds the new results.
    func controllerDidChangeContent(_ controller: FetchedResultsController<Object>)
    /// ``FetchedResultsController/performFetch()`` replaced the results.
    func controllerDidPerformFetch(_ controller: FetchedResultsController<Object>)
    /// The index title of a section; nil keeps the default (the name's first character, uppercased).
    func controller(_ controller: FetchedResultsController<Object>, sectionIndexTitleForSectionName name: String) -> String?
}

/// Empty defaults, so a delegate implements only what it needs:
///
/// ```swift
/// final class Counter: FetchedResultsControllerDelegate {
///     var batches = 0
///     func controllerDidChangeContent(_ c: FetchedResultsController<Book>) { batches += 1 }
/// }
/// ```
extension FetchedResultsControllerDelegate {
    /// Does nothing.
    public func controllerWillChangeContent(_ controller: FetchedResultsController<Object>) {}
    /// Does nothing.
    public func controller(_ controller: FetchedResultsController<Object>, didChange change: FetchedResultsChange<Object>) {}
    /// Does nothing.
    public func controller(_ controller: FetchedResultsController<Object>, didChangeSection change: FetchedResultsSectionChange<Object>) {}
    /// Does nothing.
    public func controllerDidChangeContent(_ controller: FetchedResultsController<Object>) {}
    /// Does nothing.
    public func controllerDidPerformFetch(_ controller: FetchedResultsController<Object>) {}
    /// Keeps the default index title (nil).
    public func controller(_ controller: FetchedResultsController<Object>, sectionIndexTitleForSectionName name: String) -> String? { nil }
}
