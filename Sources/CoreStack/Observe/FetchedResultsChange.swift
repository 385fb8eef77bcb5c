import Foundation

/// One object change reported by a ``FetchedResultsController``, with the table-view rule for
/// index paths: deletes (and the source of a move) use the index paths from before the change,
/// inserts (and the destination of a move) the index paths after it; apply deletes first, then
/// inserts.
///
/// The delegate receives changes carrying objects (`FetchedResultsChange<Book>`); the
/// ``FetchedResultsController/events()`` stream carries their IDs
/// (`FetchedResultsChange<ManagedObjectID>`, which is `Sendable`).
///
/// ```swift
/// func controller(_ c: FetchedResultsController<Book>, didChange change: FetchedResultsChange<Book>) {
///     switch change {
///     case let .insert(_, at: new): table.insertRows(at: [new])
///     case let .delete(_, at: old): table.deleteRows(at: [old])
///     case let .move(_, from: old, to: new): table.moveRow(at: old, to: new)
///     case let .update(book, at: old, newIndexPath: _): table.reloadRow(at: old, with: book)
///     }
/// }
/// ```
public enum FetchedResultsChange<Object> {
    /// The object joined the results at this index path (after the change).
    case insert(Object, at: IndexPath)
    /// The object left the results from this index path (before the change).
    case delete(Object, at: IndexPath)
    /// The object's sort or section key changed: it moved from the old index path to the new one.
    case move(Object, from: IndexPath, to: IndexPath)
    /// The object changed in place: at `at` before the change and at `newIndexPath` after it (they
    /// differ only when other objects were inserted or deleted before it).
    case update(Object, at: IndexPath, newIndexPath: IndexPath)

    /// The object the change is about.
    ///
    /// ```swift
    /// let title = change.object.title
    /// ```
    public var object: Object {
        switch self {
        case let .insert(o, _), let .delete(o, _), let .move(o, _, _), let .update(o, _, _): o
        }
    }

    /// The same change about another value, e.g. the object's ID.
    ///
    /// ```swift
    /// let sendable = change.map(\.objectID)   // FetchedResultsChange<ManagedObjectID>
    /// ```
    public func map<Other>(_ transform: (Object) throws -> Other) rethrows -> FetchedResultsChange<Other> {
        switch self {
        case let .insert(o, p): .insert(try transform(o), at: p)
        case let .delete(o, p): .delete(try transform(o), at: p)
        case let .move(o, from, to): .move(try transform(o), from: from, to: to)
        case let .update(o, p, n): .update(try transform(o), at: p, newIndexPath: n)
        }
    }
}

extension FetchedResultsChange: Sendable where Object: Sendable {}
extension FetchedResultsChange: Equatable where Object: Equatable {}
extension FetchedResultsChange: Hashable where Object: Hashable {}
