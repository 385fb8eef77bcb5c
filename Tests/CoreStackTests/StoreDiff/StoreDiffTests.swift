import Foundation
import Testing

@testable import CoreStack

/// ``StoreDiff``: two copies of a store changed in known ways report exactly those changes.
@Suite("store diff")
struct StoreDiffTests {
    /// Writes objects into a new store at `url` through a context, then closes it.
    static func write(_ url: URL, model: ManagedObjectModel, _ body: (ManagedObjectContext) throws -> Void) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try SQLiteStore(url: url, model: model)
        try coordinator.addPersistentStore(store)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait {
            try body(context)
            try context.save()
        }
        coordinator.removePersistentStore()
        store.close()
    }

    /// The objects of `entity` (its own, not its sub-entities') in `context`.
    static func objects(_ entity: String, _ context: ManagedObjectContext) throws -> [ManagedObject] {
        try context.fetch(FetchRequest<ManagedObject>(entityName: entity)).filter { $0.entity.name == entity }
    }

    static func object(_ entity: String, _ key: String, _ value: String, _ context: ManagedObjectContext) throws -> ManagedObject {
        try #require(try objects(entity, context).first { (try? $0.value(forKey: key) as? String) == value })
    }

    static func copy(_ url: URL, to name: String) throws -> URL {
        let target = url.deletingLastPathComponent().appendingPathComponent(name)
        try FileManager.default.copyItem(at: url, to: target)
        return target
    }

    /// A library: two publishers, four books (B1–B4, isbn set), two chapters of B1, two authors.
    static func seed(_ context: ManagedObjectContext, isbns: [UUID], reversed: Bool = false) throws {
        let ace = try context.insertObject(forEntityName: "Publisher")
        try ace.setValue("Ace", forKey: "name")
        let tor = try context.insertObject(forEntityName: "Publisher")
        try tor.setValue("Tor", forKey: "name")
        let order = reversed ? Array((0..<4).reversed()) : Array(0..<4)
        var books: [Int: ManagedObject] = [:]
        for i in order {
            let b = try context.insertObject(forEntityName: "Book")
            try b.setValue("B\(i + 1)", forKey: "title")
            try b.setValue(100 + i, forKey: "pages")
            try b.setValue(isbns[i], forKey: "isbn")
            try b.setValue(i % 2 == 0 ? ace : tor, forKey: "publisher")
            books[i] = b
        }
        for t in ["One", "Two"] {
            let c = try context.insertObject(forEntityName: "Chapter")
            try c.setValue(t, forKey: "title")
            try c.setValue(books[0], forKey: "book")
        }
        for n in reversed ? ["Le Guin", "Herbert"] : ["Herbert", "Le Guin"] {
            let a = try context.insertObject(forEntityName: "Author")
            try a.setValue(n, forKey: "name")
            if n == "Herbert", let b1 = books[0] { try a.add(b1, toKey: "books") }
        }
    }

    @Test("a copy changed through a context (insert, delete, update, relink) reports exactly those changes, matched by Z_PK")
    func sameStoreCopy() throws {
        let model = try LibraryModel.make()
        let isbns = (0..<4).map { _ in UUID() }
        let url = try Fixtures.temporaryFolder().appendingPathComponent("old.sqlite")
        try Self.write(url, model: model) { try Self.seed($0, isbns: isbns) }
        let copy = try Self.copy(url, to: "new.sqlite")
        try Self.write(copy, model: model) { c in
            let b1 = try Self.object("Book", "title", "B1", c)
            try b1.setValue("B1 revised", forKey: "title")
            try Self.object("Book", "title", "B2", c).setValue(250, forKey: "pages")
            try Self.object("Book", "title", "B3", c).setValue(try Self.object("Publisher", "name", "Tor", c), forKey: "publisher")
            try c.delete(try Self.object("Book", "title", "B4", c))
            let b5 = try c.insertObject(forEntityName: "Book")
            try b5.setValue("B5", forKey: "title")
            try Self.object("Chapter", "title", "Two", c).setValue(nil, forKey: "book")
            // Many-to-many: Herbert unlinked from B1, Le Guin linked to B2.
            try Self.object("Author", "name", "Herbert", c).remove(b1, fromKey: "books")
            try Self.object("Author", "name", "Le Guin", c).add(try Self.object("Book", "title", "B2", c), toKey: "books")
        }
        let old = try SQLiteStore(url: url, model: model, readOnly: true)
        let new = try SQLiteStore(url: copy, model: model, readOnly: true)
        defer { old.close(); new.close() }
        let report = try StoreDiff(old: old, new: new, options: StoreDiffOptions(chunkSize: 2)).run()
        #expect(report.matchedByPrimaryKey)
        #expect(report.oldStoreUUID == report.newStoreUUID)
        let book = try #require(report.entities.first { $0.name == "Book" })
        #expect(book.match == .primaryKey)
        #expect((book.oldCount, book.newCount) == (4, 4))
        #expect((book.insertedCount, book.deletedCount, book.changedCount, book.unchangedCount) == (1, 1, 3, 0))
        func pk(_ table: String, _ column: String, _ value: String, _ file: URL) throws -> Int64 {
            Int64(try RawSQLite.scalar("SELECT Z_PK FROM \(table) WHERE \(column) = '\(value)'", in: file))
        }
        #expect(book.deleted.map(\.primaryKey) == [try pk("ZBOOK", "ZTITLE", "B4", url)])
        #expect(book.inserted.map(\.primaryKey) == [try pk("ZBOOK", "ZTITLE", "B5", copy)])
        let b1 = try pk("ZBOOK", "ZTITLE", "B1", url), b2 = try pk("ZBOOK", "ZTITLE", "B2", url), b3 = try pk("ZBOOK", "ZTITLE", "B3", url)
        #expect(book.changed.map(\.key) == [b1, b2, b3].sorted().map { .integer($0) })
        let byKey = Dictionary(uniqueKeysWithValues: book.changed.map { ($0.key, $0) })
        #expect(byKey[.integer(b1)]?.attributes == [AttributeChange(name: "title", old: "B1", new: "B1 revised")])
        #expect(byKey[.integer(b1)]?.relationships == [])
        #expect(byKey[.integer(b2)]?.attributes == [AttributeChange(name: "pages", old: 101, new: 250)])
        #expect(byKey[.integer(b3)]?.attributes == [])
        let ace = try pk("ZPUBLISHER", "ZNAME", "Ace", url), tor = try pk("ZPUBLISHER", "ZNAME", "Tor", url)
        #expect(byKey[.integer(b3)]?.relationships == [
            RelationshipChange(name: "publisher", destinationEntity: "Publisher", old: .integer(ace), new: .integer(tor))
        ])
        let chapter = try #require(report.entities.first { $0.name == "Chapter" })
        #expect(chapter.changedCount == 1)
        #expect(chapter.changed.first?.relationships == [RelationshipChange(name: "book", destinationEntity: "Book", old: .integer(b1), new: .null)])
        // Join-table links, on both sides of the many-to-many.
        let herbert = try pk("ZAUTHOR", "ZNAME", "Herbert", url), leGuin = try pk("ZAUTHOR", "ZNAME", "Le Guin", url)
        #expect((book.linkedCount, book.unlinkedCount) == (1, 1))
        #expect(Set(book.links) == [
            RelationshipLinkChange(relationship: "authors", source: .integer(b1), destinationEntity: "Author", destination: .integer(herbert), isLinked: false),
            RelationshipLinkChange(relationship: "authors", source: .integer(b2), destinationEntity: "Author", destination: .integer(leGuin), isLinked: true),
        ])
        let author = try #require(report.entities.first { $0.name == "Author" })
        #expect((author.changedCount, author.linkedCount, author.unlinkedCount) == (0, 1, 1))
        #expect(Set(author.links) == [
            RelationshipLinkChange(relationship: "books", source: .integer(herbert), destinationEntity: "Book", destination: .integer(b1), isLinked: false),
            RelationshipLinkChange(relationship: "books", source: .integer(leGuin), destinationEntity: "Book", destination: .integer(b2), isLinked: true),
        ])
        for name in ["Publisher", "GraphicNovel"] {
            #expect(report.entities.first { $0.name == name }?.hasChanges == false, "\(name)")
        }
        // The limit keeps the first objects of each kind; counts stay exact.
        let limited = try StoreDiff(old: old, new: new, options: StoreDiffOptions(entities: ["Book"], changeLimit: 1)).run()
        #expect(limited.entities.map(\.name) == ["Book"])
        #expect(limited.entities.first?.changed.map(\.key) == [.integer([b1, b2, b3].min() ?? 0)])
        #expect(limited.entities.first?.changedCount == 3)
        // A store compared with itself: nothing.
        #expect(try StoreDiff(old: old, new: old).run().hasChanges == false)
    }

    @Test("two different stores (different UUIDs) are matched by a UUID attribute and by keys given; others are reported unmatched")
    func differentStoresByKey() throws {
        let model = try LibraryModel.make()
        let isbns = (0..<4).map { _ in UUID() }
        let folder = try Fixtures.temporaryFolder()
        let a = folder.appendingPathComponent("a.sqlite"), b = folder.appendingPathComponent("b.sqlite")
        try Self.write(a, model: model) { try Self.seed($0, isbns: isbns) }
        // The same library written in another order (other primary keys), then changed.
        try Self.write(b, model: model) { try Self.seed($0, isbns: isbns, reversed: true) }
        try Self.write(b, model: model) { c in
            try Self.object("Author", "name", "Herbert", c).setValue(Date(timeIntervalSinceReferenceDate: 0), forKey: "born")
            try Self.object("Book", "title", "B1", c).setValue(try Self.object("Publisher", "name", "Tor", c), forKey: "publisher")
            try Self.object("Author", "name", "Le Guin", c).add(try Self.object("Book", "title", "B3", c), toKey: "books")
        }
        let old = try SQLiteStore(url: a, model: model, readOnly: true)
        let new = try SQLiteStore(url: b, model: model, readOnly: true)
        defer { old.close(); new.close() }
        #expect(old.metadata.storeUUID != new.metadata.storeUUID)
        let report = try StoreDiff(
            old: old, new: new, options: StoreDiffOptions(keys: ["Author": "name", "Publisher": "name"], chunkSize: 1)
        ).run()
        #expect(!report.matchedByPrimaryKey)
        let book = try #require(report.entities.first { $0.name == "Book" })
        #expect(book.match == .attribute(name: "isbn", source: "UUID attribute"))
        #expect((book.insertedCount, book.deletedCount, book.changedCount, book.unchangedCount) == (0, 0, 1, 3))
        #expect(book.changed.first?.key == .uuid(isbns[0]))
        #expect(book.changed.first?.relationships == [
            RelationshipChange(name: "publisher", destinationEntity: "Publisher", old: "Ace", new: "Tor")
        ])
        #expect(book.changed.first?.attributes == [])
        #expect(book.links == [
            RelationshipLinkChange(relationship: "authors", source: .uuid(isbns[2]), destinationEntity: "Author", destination: "Le Guin", isLinked: true)
        ])
        let author = try #require(report.entities.first { $0.name == "Author" })
        #expect(author.match == .attribute(name: "name", source: "given"))
        #expect((author.changedCount, author.unchangedCount, author.linkedCount, author.unlinkedCount) == (1, 1, 1, 0))
        #expect(author.links.first?.destination == .uuid(isbns[2]))
        #expect(author.changed.first?.key == "Herbert")
        #expect(author.changed.first?.attributes == [
            AttributeChange(name: "born", old: .null, new: .date(Date(timeIntervalSinceReferenceDate: 0)))
        ])
        #expect(report.entities.first { $0.name == "Publisher" }?.hasChanges == false)
        let chapter = try #require(report.entities.first { $0.name == "Chapter" })
        #expect(!chapter.match.isMatched)
        #expect(!chapter.hasChanges)
        #expect((chapter.oldCount, chapter.newCount) == (2, 2))
        // Without the keys, authors are not guessed.
        let bare = try StoreDiff(old: old, new: new).run()
        #expect(bare.entities.first { $0.name == "Author" }?.match.isMatched == false)
        // A book's publisher cannot be compared without a key for publishers: said, not guessed.
        #expect(bare.entities.first { $0.name == "Book" }?.notes.contains { $0.contains("publisher not compared") } == true)
    }

    @Test("progress is called once per entity compared, in the report's order, before it is compared; a progress that throws stops the run with its error")
    func progressAndCancel() throws {
        let model = try LibraryModel.make()
        let url = try Fixtures.temporaryFolder().appendingPathComponent("lib.sqlite")
        try Self.write(url, model: model) { try Self.seed($0, isbns: (0..<4).map { _ in UUID() }) }
        let other = try Self.copy(url, to: "other.sqlite")
        let old = try SQLiteStore(url: url, model: model, readOnly: true)
        let new = try SQLiteStore(url: other, model: model, readOnly: true)
        defer { old.close(); new.close() }
        var calls: [(String, Int, Int)] = []
        let report = try StoreDiff(old: old, new: new).run { name, i, n in calls.append((name, i, n)) }
        #expect(calls.map(\.0) == report.entities.map(\.name))
        #expect(calls.map(\.1) == Array(0..<report.entities.count))
        #expect(calls.allSatisfy { $0.2 == report.entities.count })
        var seen = 0
        #expect(throws: CancellationError.self) {
            try StoreDiff(old: old, new: new).run { _, i, _ in
                seen += 1
                if i == 1 { throw CancellationError() }
            }
        }
        #expect(seen == 2)
    }

    @Test("unknown entities and key attributes are errors naming them")
    func unknownNames() throws {
        let model = try LibraryModel.make()
        let url = try Fixtures.temporaryFolder().appendingPathComponent("lib.sqlite")
        try Self.write(url, model: model) { try Self.seed($0, isbns: (0..<4).map { _ in UUID() }) }
        let other = try Self.copy(url, to: "other.sqlite")
        let old = try SQLiteStore(url: url, model: model, readOnly: true)
        let new = try SQLiteStore(url: other, model: model, readOnly: true)
        defer { old.close(); new.close() }
        #expect(throws: CoreStackError.unknownEntity("Magazine")) {
            try StoreDiff(old: old, new: new, options: StoreDiffOptions(entities: ["Magazine"])).run()
        }
        #expect(throws: CoreStackError.unknownEntity("Magazine")) {
            try StoreDiff(old: old, new: new, options: StoreDiffOptions(keys: ["Magazine": "name"])).run()
        }
        #expect(throws: CoreStackError.unknownKey(entity: "Author", key: "nickname")) {
            try StoreDiff(old: old, new: new, options: StoreDiffOptions(keys: ["Author": "nickname"])).run()
        }
        // Keys are used only between different stores; the copy has the same UUID, so Z_PK matches.
        let keyed = try StoreDiff(old: old, new: new, options: StoreDiffOptions(keys: ["Author": "name"])).run()
        #expect(keyed.matchedByPrimaryKey)
        #expect(keyed.entities.first { $0.name == "Author" }?.match == .primaryKey)
    }

    @Test("a store migrated to a new model version (renamed, retyped and added attributes) differs from its copy only by the added attribute's default")
    func migratedStore() throws {
        let v1 = try AutomaticMigrationTests.v1Notes(), v2 = try AutomaticMigrationTests.v2Notes()
        let url = try AutomaticMigrationTests.notesStore(v1)
        let migrated = try Self.copy(url, to: "migrated.sqlite")
        let opened = try SQLiteStore(url: migrated, model: v2, options: PersistentStoreOptions(shouldMigrateStoreAutomatically: true))
        #expect(opened.migrationsOnOpen.count == 1)
        opened.close()
        let old = try SQLiteStore(url: url, model: v1, readOnly: true)
        let new = try SQLiteStore(url: migrated, model: v2, readOnly: true)
        defer { old.close(); new.close() }
        let report = try StoreDiff(old: old, new: new).run()
        #expect(report.matchedByPrimaryKey)
        #expect((report.oldModelVersion, report.newModelVersion) == ("Notes 1", "Notes 2"))
        let note = try #require(report.entities.first { $0.name == "Note" })
        #expect((note.insertedCount, note.deletedCount, note.changedCount) == (0, 0, 3))
        #expect(note.changed.allSatisfy { $0.attributes == [AttributeChange(name: "pinned", old: .null, new: false)] })
        #expect(note.notes.contains("attribute text renamed body"))
        #expect(note.notes.contains("attribute pinned only in the new model (compared with null)"))
    }
}
