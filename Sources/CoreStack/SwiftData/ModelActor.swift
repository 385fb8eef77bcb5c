import Foundation

/// An actor that works with a model context of its own, off the main actor (SwiftData's
/// `ModelActor`): its code runs on the context's queue through ``DefaultSerialModelExecutor``.
/// SwiftData's `@ModelActor` macro writes the two properties and the initialiser; here they are
/// written by hand.
///
/// ```swift
/// actor Importer: ModelActor {
///     nonisolated let modelContainer: ModelContainer
///     nonisolated let modelExecutor: DefaultSerialModelExecutor
///     init(modelContainer: ModelContainer) {
///         self.modelContainer = modelContainer
///         modelExecutor = DefaultSerialModelExecutor(modelContainer: modelContainer)
///     }
///     func count() throws -> Int { try modelContext.fetchCount(FetchDescriptor<Book>()) }
/// }
/// let n = try await Importer(modelContainer: container).count()
/// ```
public protocol ModelActor: Actor {
    /// The container.
    nonisolated var modelContainer: ModelContainer { get }
    /// The executor that runs the actor on its context's queue.
    nonisolated var modelExecutor: DefaultSerialModelExecutor { get }
}

extension ModelActor {
    /// The actor's executor: its model context's queue.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { modelExecutor.asUnownedSerialExecutor() }

    /// The actor's model context.
    public var modelContext: ModelContext { modelExecutor.modelContext }
}
