import Foundation

/// Errors of the ready-made stacks (``CoreDataStack``, ``PersistentStoreManager``,
/// ``PersistentContainer``); store and context errors keep their own ``CoreStackError``.
///
/// ```swift
/// do {
///     _ = try await CoreDataStack.constructSQLiteStack(model: model, at: url)
/// } catch let StackError.storeLocationUnavailable(path, reason) {
///     print("cannot keep a store at \(path): \(reason)")
/// }
/// ```
public enum StackError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The store's folder cannot be created, or the store file cannot be written there.
    case storeLocationUnavailable(path: String, reason: String)
    /// No model file of that name was found.
    case modelNotFound(name: String, searched: [String])
    /// The shared manager was configured after it had been set up (or configured twice).
    case alreadyConfigured
    /// A block run on a child context, or the save after it, failed; `descriptor` says what the block was doing.
    case childContextFailed(descriptor: String, reason: String)
    /// The stack's stores have not been loaded yet.
    case storesNotLoaded(String)
    /// The shared manager was used before ``PersistentStoreManager/configureShared(_:managerType:)`` gave it a model.
    case notConfigured
    /// ``PersistentStoreManager/shared`` was read by the code that is creating it (a subclass's
    /// `init(configuration:)` or the configuration's `log`), which would otherwise wait for itself.
    case sharedManagerBeingCreated

    /// A one-line message.
    public var description: String {
        switch self {
        case let .storeLocationUnavailable(path, reason):
            return "cannot keep a store at \(path): \(reason)"
        case let .modelNotFound(name, searched):
            return "no model named \"\(name)\" (looked in \(searched.joined(separator: ", ")))"
        case .alreadyConfigured:
            return "the shared PersistentStoreManager is already set up; configure it once, before first use"
        case let .childContextFailed(descriptor, reason):
            return "Error saving context during the \(descriptor): \(reason)"
        case .notConfigured:
            return "the shared PersistentStoreManager has no model: call PersistentStoreManager.configureShared(_:) before first use"
        case .sharedManagerBeingCreated:
            return "the shared PersistentStoreManager was used by the code creating it (its init or its configuration's log)"
        case let .storesNotLoaded(what):
            return "the stores are not loaded: \(what)"
        }
    }
}
