import Foundation

/// What an ``EntityMonitor``'s event stream delivers: the delegate's calls as `Sendable` sets of
/// object IDs, in the order inserted, deleted, updated, and only when non-empty.
///
/// ```swift
/// Task {
///     for await event in monitor.events() {
///         switch event {
///         case let .inserted(ids): print("+\(ids.count)")
///         case let .deleted(ids): print("-\(ids.count)")
///         case let .updated(ids): print("~\(ids.count)")
///         }
///     }
/// }
/// ```
public enum EntityMonitorEvent: Sendable, Hashable {
    /// Objects inserted.
    case inserted(Set<ManagedObjectID>)
    /// Objects deleted.
    case deleted(Set<ManagedObjectID>)
    /// Objects updated.
    case updated(Set<ManagedObjectID>)
}
