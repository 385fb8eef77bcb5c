import CoreStack
import Foundation

/// The scratch contexts the browser edits in, by name (`scratch-1`, `scratch-2`, …): children of
/// the main-queue context, siblings on its coordinator, or root contexts on a coordinator of their
/// own on the same file. All live on the main queue, like the browser. A sibling's or another
/// coordinator's save is merged into the stack's root and main contexts, as an app merges a
/// did-save; a child's save pushes into the main context and the browser then saves the stack.
///
/// ```swift
/// let scratch = try contexts.open(.child)
/// scratch.context.name   // "scratch-1"
/// ```
final class ScratchContexts {
    struct Scratch {
        let name: String
        let kind: ContextInfo.Kind
        let context: ManagedObjectContext
        /// The coordinator of a `.coordinator` scratch (kept alive with it).
        let coordinator: PersistentStoreCoordinator?
        /// The did-save observer that merges a root scratch's saves into the stack.
        let token: ObservationToken?
    }

    let session: BrowserSession
    private(set) var all: [Scratch] = []
    private var counter = 0

    init(session: BrowserSession) {
        self.session = session
    }

    func named(_ name: String) -> Scratch? { all.first { $0.name == name } }

    /// Opens a new scratch context of a kind.
    func open(_ kind: ContextInfo.Kind) throws -> Scratch {
        counter += 1
        let name = "scratch-\(counter)"
        let context: ManagedObjectContext
        var own: PersistentStoreCoordinator?
        switch kind {
        case .main, .child:
            context = ManagedObjectContext(concurrencyType: .mainQueue, parent: session.mainContext, name: name)
        case .sibling:
            context = ManagedObjectContext(concurrencyType: .mainQueue, coordinator: session.coordinator, name: name)
        case .coordinator:
            guard let url = session.storeURL else { throw BrowserError.needsStoreFile("a context on its own coordinator") }
            let c = PersistentStoreCoordinator(managedObjectModel: session.model)
            // Its saves keep history when the store does (other processes see them by it); the
            // browser merges its did-save itself, so it watches for no commits.
            var options = PersistentStoreOptions()
            options.persistentHistoryTracking = (session.coordinator.persistentStore as? SQLiteStore)?.options.persistentHistoryTracking ?? false
            try c.addPersistentStore(SQLiteStore(url: url, model: session.model, options: options))
            own = c
            context = ManagedObjectContext(concurrencyType: .mainQueue, coordinator: c, name: name)
        }
        // Each user action is one undo group (the program groups them); undo works until the save.
        context.undoManager = ContextUndoManager()
        var token: ObservationToken?
        if kind == .sibling || kind == .coordinator {
            // The main context learns of a root scratch's saves by merging its did-save.
            let session = session
            token = context.addDidSaveObserver { [weak self] saved in
                if kind == .coordinator { session.coordinator.invalidateRowCache() }
                self?.mergeIntoStackAndChildren(saved.objectIDs)
            }
        }
        let scratch = Scratch(name: name, kind: kind == .main ? .child : kind, context: context, coordinator: own, token: token)
        all.append(scratch)
        return scratch
    }

    /// Brings the child scratch contexts up to date with what was merged into the main context (as
    /// Core Data's `automaticallyMergesChangesFromParent` does): objects they hold take the new
    /// values, keeping their own unsaved changes.
    /// ``BrowserSession/mergeIntoStack(_:)`` (root, then main), then the child scratch contexts.
    func mergeIntoStackAndChildren(_ ids: SavedObjectIDs) {
        session.mergeIntoStack(ids)
        for s in all where s.kind == .child {
            s.context.performAndWait { s.context.mergeChanges(from: ids) }
        }
    }

    /// Closes every scratch context (after a reset their objects belong to a store that is gone).
    func closeAll() {
        for s in all {
            if let t = s.token { s.context.removeObserver(t) }
            // A context on its own coordinator has its own connection to the file: close it, so
            // the file's -wal and -shm can go when the browser's last connection closes.
            if let c = s.coordinator, let store = c.persistentStore {
                try? c.remove(store)
                (store as? SQLiteStore)?.close()
            }
        }
        all.removeAll()
    }
}
