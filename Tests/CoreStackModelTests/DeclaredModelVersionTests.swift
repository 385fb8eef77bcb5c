import CoreStackModel
import Foundation
import Testing
import TestSupportKit

/// Version 1 of a notes model, declared with the macro.
private enum NotesV1 {
    @Entity final class Note: ManagedObject {
        var title: String
        var body: String?
    }

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(declaring: Note.self, versionName: "Notes 1")
    }
}

/// Version 2: `title` renamed `heading` (its renaming identifier names the old property), a new
/// `created` filled by a custom stage.
private enum NotesV2 {
    @Entity final class Note: ManagedObject {
        @AttributeOptions(originalName: "title") var heading: String
        var body: String?
        var created: Date?
    }

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(declaring: Note.self, versionName: "Notes 2")
    }
}

@Suite("model versions declared with @Entity migrate through the staged migration")
struct DeclaredModelVersionTests {
    @Test("a store of version 1 opens as version 2: the renamed attribute keeps its values, the stage's code fills the new one")
    func stagedMigration() throws {
        let url = try TemporaryRoot.folder("declared-versions").appendingPathComponent("Notes.sqlite")
        let v1 = try NotesV1.model()
        let v2 = try NotesV2.model()
        #expect(v1.entityVersionHashes != v2.entityVersionHashes)
        do {
            let context = try storeContext(v1, try SQLiteStore(url: url, model: v1), name: "v1")
            try context.performAndWait {
                let note = try context.insert(NotesV1.Note.self)
                note.title = "Groceries"
                note.body = "eggs"
                try context.save()
            }
        }
        let stamp = Date(timeIntervalSinceReferenceDate: 800_000_000)
        let manager = StagedMigrationManager(stages: [
            .custom(from: v1, to: v2, didMigrate: { context in
                for note in try context.fetch(FetchRequest<NotesV2.Note>()) { note.created = stamp }
            }),
        ])
        let bundle = ManagedObjectModelBundle(name: "Notes", versions: [v1, v2], currentVersion: v2)
        let store = try SQLiteStore.open(
            url: url, bundle: bundle, readOnly: false,
            options: PersistentStoreOptions(shouldMigrateStoreAutomatically: true, stagedMigrationManager: manager))
        #expect(store.migrationsOnOpen.count == 1)
        let context = try storeContext(v2, store, name: "v2")
        try context.performAndWait {
            let notes = try context.fetch(FetchRequest<NotesV2.Note>())
            #expect(notes.map(\.heading) == ["Groceries"])
            #expect(notes.map(\.body) == ["eggs"])
            #expect(notes.map(\.created) == [stamp])
        }
    }
}
