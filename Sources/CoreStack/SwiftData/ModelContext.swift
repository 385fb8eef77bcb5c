import Dispatch
import Foundation

/// Inserts, deletes, fetches and saves models (SwiftData's `ModelContext`): a
/// ``ManagedObjectContext`` on the container's coordinator, with SwiftData's calls.
///
/// ```swift
/// let context = ModelContext(container)
/// let book = try context.insert(Book.self)
/// book.title = "Dune"
/// try context.save()
/// let long = try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.pages > 500 }))
/// ```
///
/// Not `Sendable`, as in SwiftData: use a context, and its models, where it was made. A context made
/// on the main queue (the container's ``ModelContainer/mainContext``, or `ModelContext(container)`
/// called there) is a main-queue context. One made elsewhere has a private queue, and each of its
/// calls runs there (`performAndWait`); its models are used on that queue too, which a
/// ``ModelActor`` (whose executor is the context's queue) does for you, as SwiftData's model actors. Models are made in a context (``insert(_:)`` takes the
/// class), not made first and inserted later as in SwiftData: a ``ManagedObject`` takes its entity
/// from the container's model.
public final class ModelContext {
    /// The CoreStack context underneath, for what SwiftData's shape does not offer (fetched results
    /// controllers, entity monitors, batch requests, child contexts).
    public let managedObjectContext: ManagedObjectContext
    /// The schema of the container.
    let schema: Schema
    private let ownedContainer: ModelContainer?
    private weak var mainContainer: ModelContainer?
    private let autosave: AutosaveState
    private var autosaveToken: ObservationToken?

    /// A new context on the container's store, with autosave off (SwiftData's default for a
    /// context you make; the main context has it on).
    ///
    /// ```swift
    /// let context = ModelContext(container)
    /// ```
    public convenience init(_ container: ModelContainer) {
        let type: ManagedObjectContext.ConcurrencyType = Self.isOnMainQueue ? .mainQueue : .privateQueue
        let context = ManagedObjectContext(
            concurrencyType: type, coordinator: container.persistentStoreCoordinator, name: "ModelContext")
        self.init(context, schema: container.schema, owned: container, main: nil, autosave: false)
    }

    /// A context with a private queue of its own, wherever it is made (a ``ModelActor``'s).
    convenience init(privateQueueOf container: ModelContainer) {
        let context = ManagedObjectContext(
            concurrencyType: .privateQueue, coordinator: container.persistentStoreCoordinator, name: "ModelActor")
        self.init(context, schema: container.schema, owned: container, main: nil, autosave: false)
    }

    /// The container's main context (see ``ModelContainer/mainContext``): it holds its container
    /// weakly, as the container holds it.
    convenience init(mainOf container: ModelContainer) {
        let context = ManagedObjectContext(
            concurrencyType: .mainQueue, coordinator: container.persistentStoreCoordinator, name: "ModelContainer.mainContext")
        self.init(context, schema: container.schema, owned: nil, main: container, autosave: true)
    }

    /// A migration stage's context (already on its queue when the stage's code runs).
    convenience init(migrating context: ManagedObjectContext, schema: Schema) {
        let container = ModelContainer(wrapping: context.persistentStoreCoordinator, schema: schema)
        self.init(context, schema: schema, owned: container, main: nil, autosave: false)
    }

    private init(_ context: ManagedObjectContext, schema: Schema, owned: ModelContainer?, main: ModelContainer?, autosave: Bool) {
        managedObjectContext = context
        self.schema = schema
        ownedContainer = owned
        mainContainer = main
        self.autosave = AutosaveState(enabled: autosave)
        updateAutosaveObserver()
    }

    deinit {
        if let autosaveToken { managedObjectContext.removeObserver(autosaveToken) }
        // A private-queue context saves what is left when it goes (its autosave; see autosaveEnabled).
        let context = managedObjectContext
        if autosave.isEnabled && context.concurrencyType == .privateQueue {
            context.performAndWait {
                guard context.hasChanges else { return }
                do { try context.save() } catch {
                    FileHandle.standardError.write(Data("CoreStack: ModelContext autosave failed: \(error)\n".utf8))
                }
            }
        }
    }

    /// Whether the caller runs on the main queue (the main thread, or the thread draining the main
    /// queue after `dispatchMain()`).
    static var isOnMainQueue: Bool {
        let token = ManagedObjectContext.mainQueueToken
        return Thread.isMainThread || DispatchQueue.getSpecific(key: ManagedObjectContext.queueKey) === token
    }

    /// The container (for the main context, made again over the same coordinator if the container
    /// it came from is gone).
    public var container: ModelContainer {
        ownedContainer ?? mainContainer ?? ModelContainer(wrapping: managedObjectContext.persistentStoreCoordinator, schema: schema)
    }

    /// Runs `body` on the context's queue (at once when already there).
    func run<R>(_ body: () throws -> R) rethrows -> R {
        try managedObjectContext.performAndWait(body)
    }

    // MARK: Autosave

    /// Whether changes are saved without calling ``save()`` (SwiftData's `autosaveEnabled`): off by
    /// default, on for the container's ``ModelContainer/mainContext``.
    ///
    /// On a main-queue context, the changes of a main-queue turn are saved just after it: the
    /// turn's end-of-turn processing announces them (`objectsDidChange`), and that schedules one
    /// save on the main queue. On a private-queue context (one made off the main queue), whose
    /// models its caller's thread uses, a save scheduled on the queue could run while that thread
    /// is changing them, so autosave saves what is left when the context is released. An autosave
    /// that fails leaves the changes in the context and its error in ``lastAutosaveError``.
    ///
    /// ```swift
    /// let context = ModelContext(container)   // on the main actor
    /// context.autosaveEnabled = true
    /// try context.insert(Book.self).title = "Dune"   // saved after this main-queue turn
    /// ```
    public var autosaveEnabled: Bool {
        get { autosave.isEnabled }
        set {
            autosave.isEnabled = newValue
            updateAutosaveObserver()
        }
    }

    /// The error of the last autosave that failed (nil after one that succeeds).
    public var lastAutosaveError: (any Error)? { autosave.lastError }

    private func updateAutosaveObserver() {
        if autosave.isEnabled, autosaveToken == nil, managedObjectContext.concurrencyType == .mainQueue {
            let state = autosave
            autosaveToken = managedObjectContext.addObjectsDidChangeObserver { [weak context = managedObjectContext] change in
                guard let context, !change.inserted.isEmpty || !change.updated.isEmpty || !change.deleted.isEmpty else { return }
                state.scheduleSave(of: context)
            }
        } else if !autosave.isEnabled, let token = autosaveToken {
            managedObjectContext.removeObserver(token)
            autosaveToken = nil
        }
    }
}

/// A model context is used where it was made, as in SwiftData.
@available(*, unavailable)
extension ModelContext: Sendable {}
