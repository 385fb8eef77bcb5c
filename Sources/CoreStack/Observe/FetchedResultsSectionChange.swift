import Foundation

/// A section appearing or disappearing in a ``FetchedResultsController``: a section is inserted
/// with its first object and deleted with its last. The index of a deleted section is from before
/// the change, the index of an inserted one from after it.
///
/// ```swift
/// func controller(_ c: FetchedResultsController<Book>, didChangeSection change: FetchedResultsSectionChange<Book>) {
///     switch change {
///     case let .insert(info, at: index): print("new section \(info.name) at \(index)")
///     case let .delete(info, at: index): print("section \(info.name) gone from \(index)")
///     }
/// }
/// ```
public enum FetchedResultsSectionChange<Object> {
    /// A new section, at its index after the change (the info holds its objects after the change).
    case insert(FetchedResultsSectionInfo<Object>, at: Int)
    /// A section that lost its last object, at its index before the change (the info holds the
    /// objects it had before the change).
    case delete(FetchedResultsSectionInfo<Object>, at: Int)

    /// The section's info.
    ///
    /// ```swift
    /// let name = change.info.name
    /// ```
    public var info: FetchedResultsSectionInfo<Object> {
        switch self {
        case let .insert(i, _), let .delete(i, _): i
        }
    }

    /// The same change with the section's objects transformed, e.g. to their IDs.
    ///
    /// ```swift
    /// let sendable = change.map(\.objectID)
    /// ```
    public func map<Other>(_ transform: (Object) throws -> Other) rethrows -> FetchedResultsSectionChange<Other> {
        switch self {
        case let .insert(i, at): .insert(try i.map(transform), at: at)
        case let .delete(i, at): .delete(try i.map(transform), at: at)
        }
    }
}

extension FetchedResultsSectionChange: Sendable where Object: Sendable {}
extension FetchedResultsSectionChange: Equatable where Object: Equatable {}
extension FetchedResultsSectionChange: Hashable where Object: Hashable {}
