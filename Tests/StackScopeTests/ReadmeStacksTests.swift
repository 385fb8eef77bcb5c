import CoreStack
import Foundation
import Testing

// The snippets README.md had under "Ready-made stacks" (with "Migration") and "Watching results", now in the
// DocC articles ChoosingAStack.md, MigratingStores.md and FetchedResultsAndMonitors.md
// (Sources/CoreStack/CoreStack.docc/Articles). Keep them in step.

@Suite("Stacks and results snippets (DocC)")
struct ReadmeStacksTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Folder", class: Folder.self) {
                AttributeDescription("name", .string, isOptional: false)
                RelationshipDescription("notes", destination: "Note", inverse: "folder", toMany: true, deleteRule: .cascade)
            }
            EntityDescription("Note", class: Note.self) {
                AttributeDescription("title", .string, isOptional: false)
                AttributeDescription("created", .date)
                RelationshipDescription("folder", destination: "Folder", inverse: "notes")
            }
        }
    }

    @Test("the nested-stack snippet saves a worker's insert to disk")
    func stackSnippet() async throws {
        let model = try Self.model()
        let url = try TestSupport.temporaryDirectory().appendingPathComponent("notes.sqlite")
        // --- article code starts ---
        let stack = try await CoreDataStack.constructSQLiteStack(model: model, at: url)
        let worker = stack.newChildContext(name: "import")
        try await worker.perform {
            let folder = try worker.insert(Folder.self)
            folder.name = "Imported"
            try worker.save()  // → main context → private context → disk
        }
        await stack.waitForPendingSaves()
        // --- article code ends ---
        let reopened = PersistentStoreCoordinator(managedObjectModel: model)
        try reopened.addPersistentStore(SQLiteStore(url: url, model: model, readOnly: true))
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: reopened)
        let names = try reader.performAndWait { try Folder.all(in: reader).map(\.name) }
        #expect(names == ["Imported"])
    }

    @Test("the results-controller snippet sections notes by first letter")
    func controllerSnippet() throws {
        let model = try Self.model()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(InMemoryStore(model: model))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait {
            for title in ["Groceries", "Call José", "Ideas 💡"] {
                let note = try context.insert(Note.self)
                note.title = title
            }
            try context.save()
        }
        // --- article code starts ---
        let request = FetchRequest<Note>(entityName: "Note", sortDescriptors: [SortDescriptor("title")])
        let controller = FetchedResultsController(fetchRequest: request, context: context) { note in
            String(note.title.prefix(1)).uppercased()
        }
        try context.performAndWait { try controller.performFetch() }
        let names = controller.sections.map(\.name)  // ["C", "G", "I"]
        // --- article code ends ---
        #expect(names == ["C", "G", "I"])
    }

    @Test("the migration snippet opens a store of v2 through a custom stage and a lightweight stage to v4")
    func migrationSnippet() throws {
        func notes(_ name: String, _ extra: [String]) throws -> ManagedObjectModel {
            try ManagedObjectModel(versionName: name) {
                EntityDescription("Note") {
                    AttributeDescription("title", .string)
                    for attribute in extra { AttributeDescription(attribute, .string) }
                }
            }
        }
        let v2 = try notes("Notes 2", []), v3 = try notes("Notes 3", ["tag"]), v4 = try notes("Notes 4", ["tag", "color"])
        let bundle = ManagedObjectModelBundle(name: "Notes", versions: [v2, v3, v4], currentVersion: v4)
        let url = try TestSupport.temporaryDirectory().appendingPathComponent("notes.sqlite")
        do { _ = try SQLiteStore(url: url, model: v2) }
        // --- article code starts ---
        let manager = StagedMigrationManager(stages: [
            .custom(from: v2, to: v3,
                    willMigrate: { context in /* read the old values (v2, on a copy of the store) */ },
                    didMigrate: { context in /* write the new ones (v3, before the new file replaces the store) */ }),
            .lightweight(from: [v3], to: v4),
        ])
        let options = PersistentStoreOptions(shouldMigrateStoreAutomatically: true, stagedMigrationManager: manager)
        let store = try SQLiteStore.open(url: url, bundle: bundle, readOnly: false, options: options)
        let steps = store.migrationsOnOpen.map(\.lines)   // what each step changed
        // --- article code ends ---
        #expect(store.model === v4)
        #expect(steps == [["Note.tag: added"], ["Note.color: added"]])
    }
}
