import CoreStack
import Foundation

/// The child side of one case: opens, counts, fetches, faults and saves a (damaged) store
/// through the framework. Every failure must be a thrown ``CoreStackError``; anything else is
/// reported through the exit status (a crash is seen by the parent as a signal).
enum CaseProbe {
    /// Exit statuses of the child.
    enum Status: Int32 {
        case ok = 0
        case fileChanged = 10
        case untypedError = 11
        case usage = 64
    }

    /// Runs the case on `store` with the model bundle at `model`; returns the exit status.
    static func run(store: URL, model: URL) -> Status {
        let bundle: ManagedObjectModelBundle
        do {
            bundle = try XcodeModelReader.readBundle(at: model)
        } catch {
            Output.say("model: \(error)")
            return .usage
        }
        var status = Status.ok
        func attempt(_ what: String, _ body: () throws -> Void) {
            do {
                try body()
            } catch is CoreStackError {
                // A typed refusal: what the framework must do with a damaged file.
            } catch is StackError {
                // The ready-made stacks' own typed errors.
            } catch {
                Output.say("untyped error in \(what): \(String(reflecting: error))")
                status = .untypedError
            }
        }

        // Reading: nothing may change in the store or its -wal.
        let before = Snapshot(store)
        attempt("metadata") { _ = try SQLiteStore.metadata(at: store) }
        attempt("entities") { _ = try SQLiteStore.entities(at: store) }
        attempt("quickCheck") { try SQLiteStore.quickCheck(at: store) }
        attempt("read-only open") {
            let opened = try SQLiteStore.open(url: store, bundle: bundle, readOnly: true)
            try exercise(opened, write: false)
        }
        let after = Snapshot(store)
        if let change = before.change(to: after) {
            Output.say("read-only use changed the files: \(change)")
            return .fileChanged
        }

        // The shared-stack manager on a copy of the file as damaged: opened, quick-checked,
        // quarantined and replaced by a fresh store when damaged; then used.
        attempt("PersistentStoreManager") {
            let folder = store.deletingLastPathComponent().appendingPathComponent("manager", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let copy = folder.appendingPathComponent(store.lastPathComponent)
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: store.path + suffix) {
                try FileManager.default.copyItem(atPath: store.path + suffix, toPath: copy.path + suffix)
            }
            let manager = try PersistentStoreManager(configuration: .init(
                model: bundle.currentVersion, storeURL: copy, savesOnTermination: false, log: { _ in }))
            let context = manager.managedObjectContext
            try context.performAndWait {
                for entity in bundle.currentVersion.entities {
                    _ = try context.count(for: FetchRequest<ManagedObject>(entityName: entity.name))
                }
                if let entity = bundle.currentVersion.entities.first(where: { !$0.isAbstract }) {
                    _ = try context.insertObject(forEntityName: entity.name)
                    do { try context.save() } catch CoreStackError.validation { }
                }
            }
        }

        // Writing: through a context, then opened again.
        attempt("read-write open") {
            let opened: SQLiteStore
            do {
                opened = try SQLiteStore.open(url: store, bundle: bundle, readOnly: false)
            } catch CoreStackError.migrationRequired {
                return
            }
            try exercise(opened, write: true)
        }
        attempt("reopen") { _ = try SQLiteStore.open(url: store, bundle: bundle, readOnly: true) }
        return status
    }

    /// Counts and fetches every entity at the store level, then through a context: every
    /// attribute read and every relationship faulted; with `write`, changes, inserts, deletes and saves.
    static func exercise(_ store: SQLiteStore, write: Bool) throws {
        for entity in store.model.entities {
            _ = try store.count(StoreFetchRequest(entity: entity))
            _ = try store.fetch(StoreFetchRequest(entity: entity, includesSubentities: false))
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: store.model)
        try coordinator.addPersistentStore(store)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: "fuzz")
        try context.performAndWait {
            for entity in store.model.entities {
                let objects = try context.fetch(FetchRequest<ManagedObject>(entityName: entity.name))
                for object in objects.prefix(50) {
                    for attribute in entity.allAttributes { _ = try object.value(forKey: attribute.name) }
                    for relationship in entity.allRelationships {
                        if relationship.isToMany {
                            for related in try object.objects(forKey: relationship.name).prefix(5) {
                                _ = try related.value(forKey: related.entity.allAttributes.first?.name ?? "")
                            }
                        } else if let related = try object.object(forKey: relationship.name),
                            let first = related.entity.allAttributes.first
                        {
                            _ = try related.value(forKey: first.name)
                        }
                    }
                }
                guard write else { continue }
                if let first = objects.first {
                    if let text = entity.allAttributes.first(where: { $0.type == .string && !$0.isTransient }) {
                        try first.setValue("fuzz", forKey: text.name)
                    }
                    if objects.count > 1, let last = objects.last { try context.delete(last) }
                }
                if !entity.isAbstract { _ = try context.insertObject(forEntityName: entity.name) }
            }
            if write {
                do {
                    try context.save()
                } catch let error as CoreStackError {
                    // Validation of the inserted empty objects is expected to refuse some saves.
                    if case .validation = error { return }
                    throw error
                }
            }
        }
    }
}
