import Foundation

/// Told of the objects an ``EntityMonitor`` saw inserted, deleted and updated, on the context's
/// queue, in that order, and only for non-empty sets. Every method has an empty default.
///
/// ```swift
/// final class Badge: EntityMonitorDelegate {
///     func entityMonitor(_ m: EntityMonitor<Book>, didInsert objects: Set<Book>) { count += objects.count }
///     func entityMonitor(_ m: EntityMonitor<Book>, didDelete objects: Set<Book>) { count -= objects.count }
/// }
/// monitor.delegate = badge
/// ```
public protocol EntityMonitorDelegate<Object>: AnyObject {
    /// The monitor's object type.
    associatedtype Object: ManagedObject

    /// Objects inserted (and matching the filter).
    func entityMonitor(_ monitor: EntityMonitor<Object>, didInsert objects: Set<Object>)
    /// Objects deleted (that matched the filter or were reported before).
    func entityMonitor(_ monitor: EntityMonitor<Object>, didDelete objects: Set<Object>)
    /// Objects updated (matching the filter, or reported before and no longer matching).
    func entityMonitor(_ monitor: EntityMonitor<Object>, didUpdate objects: Set<Object>)
}

/// Empty defaults, so a delegate implements only what it needs:
///
/// ```swift
/// final class NewBooks: EntityMonitorDelegate {
///     func entityMonitor(_ m: EntityMonitor<Book>, didInsert objects: Set<Book>) { print(objects.count) }
/// }
/// ```
extension EntityMonitorDelegate {
    /// Does nothing.
    public func entityMonitor(_ monitor: EntityMonitor<Object>, didInsert objects: Set<Object>) {}
    /// Does nothing.
    public func entityMonitor(_ monitor: EntityMonitor<Object>, didDelete objects: Set<Object>) {}
    /// Does nothing.
    public func entityMonitor(_ monitor: EntityMonitor<Object>, didUpdate objects: Set<Object>) {}
}
