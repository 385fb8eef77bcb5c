import Dispatch
import Foundation

/// The executor of a ``ModelActor`` (SwiftData's `DefaultSerialModelExecutor`): it runs the actor's
/// code on its model context's queue, so the actor uses the context and its models where CoreStack
/// requires, and announces the context's changes after each job, as `perform` does.
///
/// ```swift
/// actor Importer: ModelActor {
///     nonisolated let modelContainer: ModelContainer
///     nonisolated let modelExecutor: DefaultSerialModelExecutor
///     init(modelContainer: ModelContainer) {
///         self.modelContainer = modelContainer
///         modelExecutor = DefaultSerialModelExecutor(modelContainer: modelContainer)
///     }
///     func add(_ title: String) throws {
///         try modelContext.insert(Book.self).title = title
///         try modelContext.save()
///     }
/// }
/// ```
///
/// `@unchecked Sendable`: the model context it holds is used only by jobs it runs on that
/// context's queue.
public final class DefaultSerialModelExecutor: SerialExecutor, @unchecked Sendable {
    /// The context the actor uses.
    public let modelContext: ModelContext
    private let context: ManagedObjectContext

    /// An executor on the queue of `modelContext`.
    ///
    /// ```swift
    /// let executor = DefaultSerialModelExecutor(modelContext: ModelContext(container))
    /// ```
    public init(modelContext: ModelContext) {
        self.modelContext = modelContext
        context = modelContext.managedObjectContext
    }

    /// An executor with a new private-queue context of the container (what `@ModelActor` makes in
    /// SwiftData; `ModelContext(container)` made on the main queue would be a main-queue context).
    ///
    /// ```swift
    /// modelExecutor = DefaultSerialModelExecutor(modelContainer: modelContainer)
    /// ```
    public convenience init(modelContainer: ModelContainer) {
        self.init(modelContext: ModelContext(privateQueueOf: modelContainer))
    }

    /// Runs `job` on the context's queue, then announces the changes it made.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        let context = context
        context.queue.async {
            context.holdingQueue { job.runSynchronously(on: executor) }
            context.processPendingChanges()
        }
    }

    /// Traps unless the caller runs on the context's queue.
    public func checkIsolated() {
        precondition(context.isOnQueue, "not on the model context's queue")
    }
}
