import Foundation

/// Keeps every model that mints object IDs alive for the rest of the process.
///
/// A ``ManagedObjectID`` refers to its entity without retaining it: IDs are copied on every
/// insert, fetch, registration and save, and a retain and release of the shared entity on each
/// copy was about 5 % of inserting 100,000 objects. IDs are only made from the model of a
/// coordinator or a store, and those models are retained here, so an ID's entity is always
/// alive. A process uses few models; each is kept once.
///
/// ```swift
/// ModelRetention.retain(model)   // done by coordinators and stores when they are created
/// ```
enum ModelRetention {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var models: [ObjectIdentifier: ManagedObjectModel] = [:]

    /// Keeps `model` (and so its entities) for the rest of the process.
    static func retain(_ model: ManagedObjectModel) {
        lock.lock()
        defer { lock.unlock() }
        if models[ObjectIdentifier(model)] == nil { models[ObjectIdentifier(model)] = model }
    }

    /// Whether `model` is kept (for tests).
    static func isRetained(_ model: ManagedObjectModel) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return models[ObjectIdentifier(model)] != nil
    }
}
