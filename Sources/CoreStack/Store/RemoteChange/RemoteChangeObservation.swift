import Foundation

/// Keeps a remote-change observer registered; dropping every reference to it, or
/// ``PersistentStoreCoordinator/removeRemoteChangeObserver(_:)``, removes the observer.
///
/// ```swift
/// let observation = coordinator.addRemoteChangeObserver { change in print(change.transactions.count) }
/// coordinator.removeRemoteChangeObserver(observation)
/// ```
public final class RemoteChangeObservation: Sendable {
    let id: Int
    private weak let center: RemoteChangeCenter?

    init(id: Int, center: RemoteChangeCenter) {
        self.id = id
        self.center = center
    }

    deinit { center?.removeObserver(id) }
}
