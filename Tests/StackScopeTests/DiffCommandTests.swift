import CoreStack
import Foundation
import StackScope
import Testing

/// `stackscope diff`: two copies of a demo store, one changed through a context, compared as text and JSON.
@Suite("diff: what changed between two stores")
struct DiffCommandTests {
    /// A copy of `url` beside it, named `name`.
    static func copy(_ url: URL, to name: String) throws -> URL {
        let target = url.deletingLastPathComponent().appendingPathComponent(name)
        try FileManager.default.copyItem(at: url, to: target)
        return target
    }

    /// Changes the demo store at `url` through a context: one publisher's city, one new genre
    /// linked to one book. Returns the publisher's name and old city.
    static func change(_ url: URL) throws -> (publisher: String, city: String?) {
        let model = try DemoLibrary.model()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try SQLiteStore(url: url, model: model)
        try coordinator.addPersistentStore(store)
        defer {
            try? coordinator.remove(store)
            store.close()
        }
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        return try context.performAndWait {
            let publishers = try context.fetch(FetchRequest<ManagedObject>(entityName: "Publisher"))
            let named = try publishers.map { (try $0.value(forKey: "name") as? String ?? "", $0) }
            let publisher = try #require(named.min { $0.0 < $1.0 }?.1)
            let name = try #require(try publisher.value(forKey: "name") as? String)
            let city = try publisher.value(forKey: "city") as? String
            try publisher.setValue("Changed City", forKey: "city")
            let genre = try context.insertObject(forEntityName: "Genre")
            try genre.setValue("Diffing", forKey: "name")
            let books = try context.fetch(FetchRequest<ManagedObject>(entityName: "Book"))
            let titled = try books.map { (try $0.value(forKey: "title") as? String ?? "", $0) }
            try genre.add(try #require(titled.min { $0.0 < $1.0 }?.1), toKey: "books")
            try context.save()
            return (name, city)
        }
    }

    @Test("text: counts per entity, the changed attribute old → new, the inserted object, the link made; unchanged entities listed once")
    func text() throws {
        let (url, _) = try TestSupport.demoStore(size: 200)
        let copy = try Self.copy(url, to: "after.sqlite")
        let (_, city) = try Self.change(copy)
        let result = try DiffCommand.run(
            oldPath: url.path, newPath: copy.path, modelPath: nil, keys: [], entities: [], limit: 20, json: false)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("objects matched by primary key (the same store)"))
        #expect(lines.contains { $0.hasPrefix("Publisher: 0 inserted, 0 deleted, 1 changed") })
        let oldCity = city.map { "\"\($0)\"" } ?? "nil"
        #expect(lines.contains("      city: \(oldCity) → \"Changed City\""))
        #expect(lines.contains { $0.hasPrefix("Genre: 1 inserted, 0 deleted, 0 changed, 1 linked, 0 unlinked") })
        #expect(lines.contains { $0.hasPrefix("Book: 0 inserted, 0 deleted, 0 changed, 1 linked, 0 unlinked") })
        #expect(lines.contains { $0.hasPrefix("  + ") && $0.contains(".genres linked to Genre ") })
        #expect(lines.contains { $0.hasPrefix("unchanged: ") && $0.contains("Chapter") && $0.contains("Author") })
        #expect(result.report.entities.filter(\.hasChanges).map(\.name).sorted() == ["Book", "Genre", "Publisher"])
        // The store compared with itself.
        let same = try DiffCommand.run(
            oldPath: url.path, newPath: url.path, modelPath: nil, keys: [], entities: [], limit: 20, json: false)
        #expect(same.output.contains("no differences in the objects compared"))
    }

    @Test("--json: the whole report, every object, hasChanges for scripts; --entity limits it to one entity")
    func json() throws {
        let (url, _) = try TestSupport.demoStore(size: 200)
        let copy = try Self.copy(url, to: "after.sqlite")
        _ = try Self.change(copy)
        let result = try DiffCommand.run(
            oldPath: url.path, newPath: copy.path, modelPath: nil, keys: [], entities: ["Publisher"], limit: 0, json: true)
        let root = try #require(try TestSupport.parseJSON(result.output) as? [String: Any])
        #expect(root["hasChanges"] as? Bool == true)
        #expect(root["matchedByPrimaryKey"] as? Bool == true)
        let entities = try #require(root["entities"] as? [[String: Any]])
        #expect(entities.map { $0["entity"] as? String } == ["Publisher"])
        #expect(entities.first?["changed"] as? Int == 1)
        let changed = try #require(entities.first?["changedObjects"] as? [[String: Any]])
        #expect(changed.count == 1)  // the limit does not apply to JSON
        let attributes = try #require(changed.first?["attributes"] as? [[String: Any]])
        #expect(attributes.first?["name"] as? String == "city")
        #expect(attributes.first?["new"] as? String == "Changed City")
    }

    @Test("two demo stores created apart (different UUIDs) are matched by --key and by their UUID attributes")
    func differentStores() throws {
        let (a, _) = try TestSupport.demoStore(size: 100)
        let (b, _) = try TestSupport.demoStore(size: 100)
        let result = try DiffCommand.run(
            oldPath: a.path, newPath: b.path, modelPath: nil, keys: ["Genre=name"], entities: ["Genre", "Chapter"], limit: 20,
            json: false)
        #expect(!result.report.matchedByPrimaryKey)
        let genre = try #require(result.report.entities.first { $0.name == "Genre" })
        #expect(genre.match == .attribute(name: "name", source: "given"))
        #expect(genre.unchangedCount == genre.oldCount)
        let chapter = try #require(result.report.entities.first { $0.name == "Chapter" })
        #expect(!chapter.match.isMatched)
        #expect(result.output.contains("not compared: Chapter ("))
    }

    @Test("a store migrated with `migrate` (wibosco 3 → 4, Post.hide added), diffed against its copy with the bundle: only hide nil → false")
    func migrated() throws {
        let old = try StoreOwnModelTests.copy(["wibosco-CoreDataMigration-Example/CoreDataMigration_Example_3.sqlite"])
        let new = try Self.copy(old, to: "migrated.sqlite")
        let model = TestSupport.fixture(MigrateCommandTests.model).path
        _ = try MigrateCommand.run(storePath: new.path, modelPath: model, dryRun: false)
        let result = try DiffCommand.run(
            oldPath: old.path, newPath: new.path, modelPath: model, keys: [], entities: [], limit: 3, json: false)
        let report = result.report
        #expect(report.matchedByPrimaryKey)
        #expect((report.oldModelVersion, report.newModelVersion) == ("CoreDataMigration_Example 3", "CoreDataMigration_Example 4"))
        #expect(report.entities.filter(\.hasChanges).map(\.name) == ["Post"])
        let post = try #require(report.entities.first { $0.name == "Post" })
        #expect((post.insertedCount, post.deletedCount, post.changedCount, post.linkedCount, post.unlinkedCount) == (0, 0, 7995, 0, 0))
        #expect(post.changed.count == 3)
        #expect(post.changed.allSatisfy { $0.attributes == [AttributeChange(name: "hide", old: .null, new: false)] && $0.relationships.isEmpty })
        #expect(result.output.contains("      hide: nil → false"))
        #expect(result.output.contains("  … 7992 more changed"))
    }

    @Test("hostile input: a missing file, a file that is not a store, an unknown entity, a malformed --key: errors naming them")
    func errors() throws {
        let (url, _) = try TestSupport.demoStore(size: 50)
        let folder = url.deletingLastPathComponent()
        let missing = folder.appendingPathComponent("missing.sqlite").path
        func message(_ body: () throws -> Void) -> String? {
            do {
                try body()
                return nil
            } catch {
                return StackScopeErrorMessage.line(for: error)
            }
        }
        let run = { (old: String, new: String, keys: [String], entities: [String]) in
            _ = try DiffCommand.run(oldPath: old, newPath: new, modelPath: nil, keys: keys, entities: entities, limit: 20, json: false)
        }
        #expect(throws: StackScopeError.storeNotFound(path: missing)) { try run(url.path, missing, [], []) }
        let text = folder.appendingPathComponent("notes.sqlite")
        try Data("not a database, just text\n".utf8).write(to: text)
        let notStore = try #require(message { try run(text.path, url.path, [], []) })
        #expect(notStore.contains(text.path))
        let unknown = try #require(message { try run(url.path, url.path, [], ["Magazine"]) })
        #expect(unknown.contains("Magazine") && unknown.contains("Book"))
        #expect(throws: StackScopeError.invalidOption(name: "--key", reason: "'Book' is not Entity=attribute")) {
            try run(url.path, url.path, ["Book"], [])
        }
        let other = try TestSupport.demoStore(size: 50).url
        #expect(throws: CoreStackError.unknownKey(entity: "Genre", key: "colour")) {
            try run(url.path, other.path, ["Genre=colour"], [])
        }
    }
}
