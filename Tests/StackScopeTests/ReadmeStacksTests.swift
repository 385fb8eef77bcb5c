import CoreStack
import Foundation
import Testing

// The "Ready-made stacks" and "Watching results" snippets of README.md. Keep the two in step.

@Suite("README stacks and results")
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
        // --- README code starts ---
        let stack = try await CoreDataStack.constructSQLiteStack(model: model, at: url)
        let worker = stack.newChildContext(name: "import")
        try await worker.perform {
            let folder = try worker.insert(Folder.self)
            folder.name = "Imported"
            try worker.save()  // → main context → private context → disk
        }
        await stack.waitForPendingSaves()
        // --- README code ends ---
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
        // --- README code starts ---
        let request = FetchRequest<Note>(entityName: "Note", sortDescriptors: [SortDescriptor("title")])
        let controller = FetchedResultsController(fetchRequest: request, context: context) { note in
            String(note.title.prefix(1)).uppercased()
        }
        try context.performAndWait { try controller.performFetch() }
        let names = controller.sections.map(\.name)  // ["C", "G", "I"]
        // --- README code ends ---
        #expect(names == ["C", "G", "I"])
    }
}
