import Foundation

/// The box a ``FetchDescriptor`` keeps its translated request in (not shared across threads: a
/// descriptor is not `Sendable`).
final class TranslatedRequest<T: ManagedObject> {
    var request: FetchRequest<T>?
}
