import CoreStack
import Foundation
import Testing

// The API tour that README.md had, now the DocC article "Getting started"
// (Sources/CoreStack/CoreStack.docc/Articles/GettingStarted.md; its "Undo" section, and "Merge conflicts"
// in ChildContextsAndMergePolicies.md), kept here so that it compiles and runs. Keep them in step.

final class Note: ManagedObject {
    @Attribute("title") var title: String
    @Attribute("created") var created: Date?
    @ToOne("folder") var folder: Folder?
}

final class Folder: ManagedObject {
    @Attribute("name") var name: String
    @ToMany("notes") var notes: Set<Note>
}

@Suite("Getting started tour (DocC)")
struct ReadmeTourTests {
    @Test("the Getting started article's API tour runs")
    func tour() throws {
        let url = try TestSupport.temporaryDirectory().appendingPathComponent("notes.sqlite")
        // --- GettingStarted.md code starts (with `url` above instead of /tmp/notes.sqlite) ---
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
        // --- GettingStarted.md code ends ---

        // --- "Undo" (GettingStarted.md) and "Merge conflicts" (ChildContextsAndMergePolicies.md) start ---
        let other = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try other.performAndWait { _ = (try other.existingObject(with: noteID) as? Note)?.title }

        // Undo: off by default, as on iOS. One group per user action; undo() posts objectsDidChange.
        context.undoManager = ContextUndoManager()
        try context.performAndWait {
            let note = try context.existingObject(with: noteID) as? Note
            context.undoGroup(named: "Rename") { note?.title = "Call José today" }
            print(context.undoManager?.undoActionName ?? "")  // Rename
            context.undo()  // "Call José back" again
            context.redo()  // "Call José today"
            try context.save()
        }

        // `other` read the note before that save: its own save meets the change (optimistic locking).
        try other.performAndWait {
            let note = try other.existingObject(with: noteID) as? Note
            note?.title = "Theirs"
            do {
                try other.save()  // the default policy is .error
            } catch let CoreStackError.mergeConflict(conflicts) {
                print(conflicts[0])  // Note p2: title: cached "Call José back", store "Call José today", context "Theirs"; version 2 → 3
            }
            other.mergePolicy = MergePolicy(name: "objecttrump") ?? .error  // or .custom(CustomMergePolicy(…))
            try other.save()
            let resolution = other.lastSaveMergeResolutions[0]
            print(resolution.conflict.conflictingKeys, resolution.winners["title"] ?? "")  // ["title"] Theirs
        }
        // --- "Undo" and "Merge conflicts" end ---

        let fresh = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        let titles = try fresh.performAndWait {
            try fresh.fetch(FetchRequest<Note>(entityName: "Note", sortDescriptors: [SortDescriptor("title")])).map(\.title)
        }
        #expect(titles == ["Groceries", "Ideas 💡", "Theirs"])
        let (conflictLine, winner): (String, PropertyValue?) = try other.performAndWait {
            let note = try #require(try other.existingObject(with: noteID) as? Note)
            note.title = "Once more"
            let third = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
            try third.performAndWait {
                (try third.existingObject(with: noteID) as? Note)?.title = "Elsewhere"
                try third.save()
            }
            other.mergePolicy = .error
            var line = ""
            do { try other.save() } catch let CoreStackError.mergeConflict(conflicts) { line = conflicts[0].description }
            return (line, other.lastSaveMergeResolutions.first?.winners["title"])
        }
        #expect(conflictLine == "Note p2: title: cached \"Theirs\", store \"Elsewhere\", context \"Once more\"; version 4 → 5")
        #expect(winner == nil)
        coordinator.removePersistentStore()
        let reopened = PersistentStoreCoordinator(managedObjectModel: model)
        try reopened.addPersistentStore(SQLiteStore(url: url, model: model, readOnly: true))
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: reopened)
        let saved = try reader.performAndWait {
            try reader.fetch(FetchRequest<Note>(entityName: "Note", predicate: .key("title") == "Elsewhere")).count
        }
        #expect(saved == 1)
    }
}
