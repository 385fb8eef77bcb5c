import CoreStack
import Foundation
import Testing

// The API tour of README.md, kept here so that it compiles and runs. Keep the two in step.

final class Note: ManagedObject {
    @Attribute("title") var title: String
    @Attribute("created") var created: Date?
    @ToOne("folder") var folder: Folder?
}

final class Folder: ManagedObject {
    @Attribute("name") var name: String
    @ToMany("notes") var notes: Set<Note>
}

@Suite("README tour")
struct ReadmeTourTests {
    @Test("the README's API tour runs")
    func tour() throws {
        let url = try TestSupport.temporaryDirectory().appendingPathComponent("notes.sqlite")
        // --- README code starts (with `url` above instead of /tmp/notes.sqlite) ---
        let model = try ManagedObjectModel {
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

        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(SQLiteStore(url: url, model: model))  // or InMemoryStore(model: model)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)

        let token = context.addDidSaveObserver { saved in
            print("saved: \(saved.objectIDs.inserted.count) inserted, \(saved.objectIDs.updated.count) updated")
        }

        let noteID = try context.performAndWait {
            let inbox = try context.insert(Folder.self)
            inbox.name = "Inbox"
            for title in ["Groceries", "Call José", "Ideas 💡"] {
                let note = try context.insert(Note.self)
                note.title = title
                note.created = Date()
                note.folder = inbox
            }
            try context.save()

            let title = CoreStack.Expression.key("title")  // Foundation has an `Expression` too
            let request = FetchRequest<Note>(
                entityName: "Note",
                predicate: .key("folder.name") == "Inbox" && title.beginsWith("call", options: .caseInsensitive),
                sortDescriptors: [SortDescriptor("title")])
            let notes = try context.fetch(request)
            print(notes.map(\.title))  // ["Call José"]
            return notes[0].objectID
        }

        // A child context: its save goes into the parent; the parent's save writes the file.
        let scratch = ManagedObjectContext(concurrencyType: .privateQueue, parent: context)
        try scratch.performAndWait {
            let note = try scratch.existingObject(with: noteID) as? Note
            note?.title = "Call José back"
            try scratch.save()
        }
        try context.performAndWait { try context.save() }
        context.removeObserver(token)
        // --- README code ends ---

        let titles = try context.performAndWait {
            try context.fetch(FetchRequest<Note>(entityName: "Note", sortDescriptors: [SortDescriptor("title")])).map(\.title)
        }
        #expect(titles == ["Call José back", "Groceries", "Ideas 💡"])
        coordinator.removePersistentStore()
        let reopened = PersistentStoreCoordinator(managedObjectModel: model)
        try reopened.addPersistentStore(SQLiteStore(url: url, model: model, readOnly: true))
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: reopened)
        let saved = try reader.performAndWait {
            try reader.fetch(FetchRequest<Note>(entityName: "Note", predicate: .key("title") == "Call José back")).count
        }
        #expect(saved == 1)
    }
}
