import CoreStack
import Foundation

// The reset demo: reset the store, damage the demo store and watch the shared manager quarantine
// it, seed it again. The work runs off the main queue with a progress line; every pane then
// starts again on the new contexts.
extension BrowserProgram {
    func resetStore() {
        dispatch(.message("Resetting the store …", .info))
        scratch.closeAll()
        if let stack = session.stack {
            let ref = ProgramRef(self)
            stack.resetStore(callbackQueue: .main) { result in
                MainQueueJob { ref.program?.storeReset(result.map { "reset by CoreDataStack.resetStore(): a new, empty store" }) }.run()
            }
            return
        }
        guard let manager = session.manager else { return }
        restart(manager, after: { try StoreLocation.destroyStore(at: $0) }) { _, fresh in
            "reset: the store file was deleted and the shared PersistentStoreManager started again on a new, empty one (dataStoreWasResetOrCreatedOnLoad = \(fresh.dataStoreWasResetOrCreatedOnLoad))"
        }
    }

    /// Damages the demo store's file on disk and restarts the shared manager on it: the manager
    /// quarantines the damaged file and creates a fresh store.
    func corruptDemoStore() {
        guard let manager = session.manager else {
            dispatch(.message(":corrupt damages the demo store only (run stackscope with no store to open it)", .warning))
            return
        }
        dispatch(.message("Damaging \(manager.storeURL.lastPathComponent) and restarting the shared manager …", .info))
        scratch.closeAll()
        restart(manager, after: Self.damage) { url, fresh in
            var note = "corrupt: damaged \(url.path); the shared manager found it unreadable"
            if let moved = fresh.quarantinedStoreURL { note += ", quarantined it at \(moved.path)" }
            if let why = fresh.resetReason { note += " (\(why))" }
            return note + ", and created a fresh store: dataStoreWasResetOrCreatedOnLoad = \(fresh.dataStoreWasResetOrCreatedOnLoad)"
        }
    }

    /// Off the main queue: closes the manager's store, does `work` to its file, opens a new manager
    /// with the same configuration, and hands it (with the note `describe` writes) to every pane.
    private func restart(
        _ manager: PersistentStoreManager, after work: @escaping @Sendable (URL) throws -> Void,
        describe: @escaping @Sendable (URL, PersistentStoreManager) -> String
    ) {
        let job = ReplaceJob(program: ProgramRef(self))
        DispatchQueue.global().async {
            let result = Result { () -> (PersistentStoreManager, String) in
                let url = manager.storeURL
                manager.persistentStoreCoordinator.removePersistentStore()
                try work(url)
                let fresh = try PersistentStoreManager(configuration: manager.configuration)
                return (fresh, describe(url, fresh))
            }
            job.finish(result)
        }
    }

    /// Writes over the SQLite header of a store file (and drops its -wal/-shm), as a torn or
    /// overwritten file would look: under SQLite's exclusive lock on the store, refused with
    /// ``CoreStackError/storeInUse(path:action:)`` while another process has it open.
    static func damage(_ url: URL) throws {
        try SQLiteStoreFileLock.withExclusiveLock(on: url, toDo: "damage the demo store (:corrupt)") {
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
            // Closing this handle ends the lock (POSIX locks go with any descriptor of the file):
            // the last thing done under it.
            guard let handle = FileHandle(forWritingAtPath: url.path) else {
                throw BrowserError.cannotWrite(path: url.path, reason: "cannot open the store file to damage it")
            }
            defer { try? handle.close() }
            try handle.write(contentsOf: Data(repeating: 0x5A, count: 4096))
        }
    }

    /// Fills the demo store again (off the main queue, through a context of its own).
    func reseed() {
        guard session.model.versionName == DemoLibrary.versionName else {
            dispatch(.message(":reseed fills the demo library only (this store has another model)", .warning))
            return
        }
        dispatch(.message("Seeding the demo library …", .info))
        let coordinator = session.coordinator
        let session = session
        let mailbox = MainMailbox(self)
        DispatchQueue.global().async {
            let worker = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: "reseed")
            do {
                let ids: SavedObjectIDs = try worker.performAndWait {
                    _ = try DemoLibrary.populate(worker, size: 300)
                    var saved = SavedObjectIDs(inserted: [], updated: [], deleted: [])
                    let token = worker.addDidSaveObserver { saved = $0.objectIDs }
                    defer { worker.removeObserver(token) }
                    try worker.save()
                    return saved
                }
                DispatchQueue.main.async {
                    MainQueueJob {
                        session.mergeIntoStack(ids)
                        mailbox.post(.message("Seeded: \(ids.inserted.count) objects inserted by the reseed context", .info))
                        mailbox.post(.run(.refresh))
                    }.run()
                }
            } catch {
                mailbox.post(.message("Reseed failed: " + StackScopeErrorMessage.line(for: error), .error))
            }
        }
    }

    /// Every pane starts again on the session's new contexts.
    func storeReset(_ result: Result<String, any Error>) {
        switch result {
        case let .success(note):
            session.stackReplaced()
            replaceData(note: note)
        case let .failure(error):
            dispatch(.message("Reset failed: " + StackScopeErrorMessage.line(for: error), .error))
        }
    }

    func replaceData(note: String) {
        currentContextName = "main"
        conflictContext = nil
        data = BrowserData(session: session) { [weak self] action in self?.dispatch(action) }
        observeRemoteChanges()
        dispatch(.storeReplaced(note: note, at: clock()))
        loadAndOpen(nil)
    }
}

/// Carries a replaced manager back to the program on the main queue.
private struct ReplaceJob: Sendable {
    let program: ProgramRef
    func finish(_ result: Result<(PersistentStoreManager, String), any Error>) {
        let box = MainQueueJob {
            guard let program = program.program else { return }
            switch result {
            case let .success((fresh, note)):
                program.session.replaceManager(fresh)
                program.replaceData(note: note)
            case let .failure(error):
                program.dispatch(.message("Failed: " + StackScopeErrorMessage.line(for: error), .error))
            }
        }
        DispatchQueue.main.async { box.run() }
    }
}

/// A weak reference to the program that can travel to another queue and back; used only on the
/// main queue.
final class ProgramRef: @unchecked Sendable {
    weak var program: BrowserProgram?
    init(_ program: BrowserProgram) { self.program = program }
}
