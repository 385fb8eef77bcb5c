import CoreStackModel
import Foundation
import GRDB
import Testing
import TestSupportKit

private typealias Demo = MacroDemoLibrary

@Suite("the demo model declared with @Entity is the demo model from Xcode")
struct DeclaredDemoModelTests {
    @Test("same entities, properties and version hashes (entity and model) as the .xcdatamodeld")
    func sameModel() throws {
        let declared = try Demo.model()
        let xcode = try XcodeModelReader.readModel(at: ModelFixtures.demoBundle)
        try expectSameEntities(declared, xcode)
        #expect(declared.entities.map(\.entityNumber) == xcode.entities.map(\.entityNumber))
        #expect(declared.versionName == xcode.versionName)
        #expect(declared.versionIdentifiers == xcode.versionIdentifiers)
        #expect(declared.entity(forClass: Demo.GraphicNovel.self)?.superentity?.name == "Book")
    }

    @Test("a store written through the macro classes has the Xcode model's tables and opens with it")
    func storeOpensWithXcodeModel() throws {
        let folder = try TemporaryRoot.folder("declared-demo")
        let declaredURL = folder.appendingPathComponent("Declared.sqlite")
        let xcodeURL = folder.appendingPathComponent("Xcode.sqlite")
        let xcode = try XcodeModelReader.readModel(at: ModelFixtures.demoBundle)
        do {
            let model = try Demo.model()
            let context = try storeContext(model, try SQLiteStore(url: declaredURL, model: model), name: "declared")
            try context.performAndWait {
                let publisher = try context.insert(Demo.Publisher.self)
                publisher.name = "Gollancz"
                let author = try context.insert(Demo.Author.self)
                author.name = "Le Guin"
                let book = try context.insert(Demo.Book.self)
                book.title = "The Dispossessed"
                book.publisher = publisher
                book.authors = [author]
                let one = try context.insert(Demo.Chapter.self)
                one.title = "One"
                let two = try context.insert(Demo.Chapter.self)
                two.title = "Two"
                book.chapters = [two, one]
                let novel = try context.insert(Demo.GraphicNovel.self)
                novel.title = "Maus"
                novel.illustrator = "Spiegelman"
                #expect(book.lastAccessorError == nil)
                try context.save()
            }
        }
        // An empty store of the Xcode model, for its tables.
        _ = try SQLiteStore(url: xcodeURL, model: xcode)
        #expect(try schema(of: declaredURL) == schema(of: xcodeURL))
        #expect(try SQLiteStore.metadata(at: declaredURL).versionHashes == xcode.entityVersionHashes)

        // The store opens with the Xcode model (read-only: no migration, no change) and reads back.
        let store = try SQLiteStore.open(url: declaredURL, bundle: ManagedObjectModelBundle(model: xcode), readOnly: true)
        #expect(store.migrationsOnOpen.isEmpty)
        let context = try storeContext(xcode, store, name: "xcode")
        try context.performAndWait {
            let books = try context.fetch(FetchRequest<ManagedObject>(entityName: "Book", sortDescriptors: [SortDescriptor("title")]))
            #expect(try books.map { try $0.attributeValue(forKey: "title") } == [.string("Maus"), .string("The Dispossessed")])
            #expect(books.first?.entity.name == "GraphicNovel")
            let dispossessed = try #require(books.last)
            let chapters = try dispossessed.objects(forKey: "chapters")
            #expect(try chapters.map { try $0.attributeValue(forKey: "title") } == [.string("Two"), .string("One")])
            #expect(try dispossessed.attributeValue(forKey: "pages") == .integer(100))
            let publisher = try #require(try dispossessed.object(forKey: "publisher"))
            #expect(try publisher.attributeValue(forKey: "name") == .string("Gollancz"))
        }
    }

    @Test("new objects start with the declared defaults; key paths map through the generated table")
    func defaultsAndKeyPaths() throws {
        let model = try Demo.model()
        let context = try storeContext(model, InMemoryStore(model: model), name: "defaults")
        try context.performAndWait {
            let book = try context.insert(Demo.Book.self)
            #expect(book.pages == 100)
            #expect(book.edition == 1)
            #expect(book.inPrint == true)
            #expect(book.price == nil)
            #expect(book.chapters.isEmpty)
            book.title = "Draft"
            let chapter = try context.insert(Demo.Chapter.self)
            chapter.title = "Prologue"
            chapter.number = 0
            chapter.book = book
            #expect(book.chapters == [chapter])
            try context.save()
            let found = try context.fetch(try FetchRequest<Demo.Chapter>(predicate: #Predicate { $0.title == "Prologue" }))
            #expect(found == [chapter])
        }
        #expect(Demo.Chapter.propertyKeyPaths[\Demo.Chapter.book] == "book")
        #expect(try PropertyKeyPath.name(of: \Demo.Chapter.wordCount) == "wordCount")
        // A class with sub-entities is probed instead (it cannot list PartialKeyPath<Self>).
        #expect(try PropertyKeyPath.name(of: \Demo.Book.chapters) == "chapters")
        #expect(try PropertyKeyPath.name(of: \Demo.GraphicNovel.title) == "title")
    }

    /// The store's tables, indexes and triggers, as SQLite keeps their definitions.
    private func schema(of url: URL) throws -> [String] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        return try queue.read { db in
            try String.fetchAll(db, sql: "SELECT type || ' ' || name || ': ' || ifnull(sql, '') FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name")
        }
    }
}
