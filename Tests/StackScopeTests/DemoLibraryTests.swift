import CoreStack
import Foundation
import StackScope
import Testing

@Suite("Demo library")
struct DemoLibraryTests {
    @Test("the model has the promised entities, numbering, inheritance and relationship shapes")
    func modelShape() throws {
        let model = try DemoLibrary.model()
        #expect(model.entities.map(\.name) == TestSupport.demoEntities)
        #expect(model.entity(named: "GraphicNovel")?.superentity?.name == "Book")
        #expect(model.entity(named: "Author")?.superentity?.name == "Person")
        #expect(model.entity(named: "Editor")?.superentity?.name == "Person")
        #expect(model.entity(named: "Person")?.isAbstract == true)
        let book = try #require(model.entity(named: "Book"))
        let chapters = try #require(book.relationship(named: "chapters"))
        #expect(chapters.isToMany && chapters.isOrdered && chapters.deleteRule == .cascade)
        #expect(book.inverseRelationship(of: "chapters")?.name == "book")
        #expect(book.inverseRelationship(of: "authors")?.isToMany == true)
        #expect(book.inverseRelationship(of: "genres")?.isToMany == true)
        #expect(book.relationship(named: "publisher")?.isToMany == false)
        #expect(book.inverseRelationship(of: "publisher")?.isToMany == true)
        let types = Set(model.entities.flatMap { $0.attributes.map(\.type) })
        #expect(types.isSuperset(of: [.string, .integer16, .integer32, .integer64, .double, .date, .boolean, .uuid, .binaryData, .decimal, .uri]))
    }

    @Test("two creations of the same size give the same dump")
    func deterministic() throws {
        let a = try TestSupport.demoStore(size: 120)
        let b = try TestSupport.demoStore(size: 120)
        #expect(a.summary == b.summary)
        let uuidA = try SQLiteStore.metadata(at: a.url).storeUUID
        let uuidB = try SQLiteStore.metadata(at: b.url).storeUUID
        for entity in TestSupport.demoEntities {
            let query = DumpQuery(entityName: entity)
            let dumpA = try DumpCommand.run(storePath: a.url.path, modelPath: nil, query: query, json: true)
            let dumpB = try DumpCommand.run(storePath: b.url.path, modelPath: nil, query: query, json: true)
            #expect(dumpA.count > 10)
            #expect(TestSupport.withoutStoreUUID(dumpA, uuid: uuidA) == TestSupport.withoutStoreUUID(dumpB, uuid: uuidB), "\(entity)")
        }
    }

    @Test("the default size gives a few hundred objects, and --size scales it")
    func sizes() throws {
        let files = InMemoryStoreFiles()
        let small = try DemoLibrary.create(at: URL(fileURLWithPath: "/virtual/small"), size: 60, files: files)
        let normal = try DemoLibrary.create(at: URL(fileURLWithPath: "/virtual/normal"), files: files)
        let large = try DemoLibrary.create(at: URL(fileURLWithPath: "/virtual/large"), size: 3000, files: files)
        #expect((200...400).contains(normal.total))
        #expect(small.total < normal.total && normal.total < large.total)
        #expect((2400...3600).contains(large.total))
        #expect(throws: StackScopeError.invalidOption(name: "--size", reason: "0 is not a positive number")) {
            try DemoLibrary.create(at: URL(fileURLWithPath: "/virtual/zero"), size: 0, files: files)
        }
    }

    @Test("chapters come back in their order, not in primary-key order")
    func orderedChapters() throws {
        let (url, _) = try TestSupport.demoStore()
        let session = try StoreSession.open(storePath: url.path, modelPath: nil)
        let context = session.context
        let (checked, differsFromKeys) = try context.performAndWait { () throws -> (Int, Bool) in
            let books = try context.fetch(FetchRequest<DemoLibrary.Book>(entityName: "Book"))
            var differs = false
            for book in books {
                let chapters = book.chapters
                #expect(chapters.map(\.number) == (1...Int16(chapters.count)).map { $0 }, "\(book.title)")
                #expect(chapters.allSatisfy { $0.book === book })
                let keys = chapters.compactMap(\.objectID.primaryKey)
                if keys != keys.sorted() { differs = true }
            }
            return (books.count, differs)
        }
        #expect(checked == 30)
        #expect(differsFromKeys, "chapters were inserted shuffled, so some book's order must differ from key order")
    }

    @Test("many-to-many relationships hold both ways")
    func manyToMany() throws {
        let (url, _) = try TestSupport.demoStore()
        let session = try StoreSession.open(storePath: url.path, modelPath: nil)
        let context = session.context
        try context.performAndWait {
            let books = try context.fetch(FetchRequest<DemoLibrary.Book>(entityName: "Book"))
            let authors = try context.fetch(FetchRequest<DemoLibrary.Author>(entityName: "Author"))
            let genres = try context.fetch(FetchRequest<DemoLibrary.Genre>(entityName: "Genre"))
            var bookAuthorLinks = 0
            var bookGenreLinks = 0
            for book in books {
                #expect(!book.authors.isEmpty && !book.genres.isEmpty)
                for a in book.authors { #expect(a.books.contains(book)) }
                for g in book.genres { #expect(g.books.contains(book)) }
                bookAuthorLinks += book.authors.count
                bookGenreLinks += book.genres.count
                if let p = book.publisher { #expect(p.books.contains(book)) }
            }
            #expect(bookAuthorLinks == authors.reduce(0) { $0 + $1.books.count })
            #expect(bookGenreLinks == genres.reduce(0) { $0 + $1.books.count })
            #expect(bookAuthorLinks > books.count)
        }
    }

    @Test("inheritance: graphic novels are books, authors and editors are people")
    func inheritance() throws {
        let (url, summary) = try TestSupport.demoStore()
        let session = try StoreSession.open(storePath: url.path, modelPath: nil)
        let context = session.context
        try context.performAndWait {
            let books = try context.fetch(FetchRequest<DemoLibrary.Book>(entityName: "Book"))
            let novels = books.compactMap { $0 as? DemoLibrary.GraphicNovel }
            #expect(novels.count == summary.counts["GraphicNovel"])
            #expect(books.count == (summary.counts["Book"] ?? 0) + (summary.counts["GraphicNovel"] ?? 0))
            #expect(novels.allSatisfy { $0.entity.name == "GraphicNovel" && $0.illustrator != nil })
            var onlyBooks = FetchRequest<ManagedObject>(entityName: "Book")
            onlyBooks.includesSubentities = false
            #expect(try context.count(for: onlyBooks) == summary.counts["Book"])
            let people = try context.fetch(FetchRequest<DemoLibrary.Person>(entityName: "Person"))
            #expect(people.count == (summary.counts["Author"] ?? 0) + (summary.counts["Editor"] ?? 0))
            #expect(Set(people.map(\.entity.name)) == ["Author", "Editor"])
            let editors = people.compactMap { $0 as? DemoLibrary.Editor }
            #expect(editors.contains { !$0.editedBooks.isEmpty })
        }
    }

    @Test("non-ASCII text round-trips through the SQLite store")
    func nonASCII() throws {
        let (url, _) = try TestSupport.demoStore()
        let session = try StoreSession.open(storePath: url.path, modelPath: nil)
        let context = session.context
        try context.performAndWait {
            let titles = Set(try context.fetch(FetchRequest<DemoLibrary.Book>(entityName: "Book")).map(\.title))
            for t in ["L’Écume des jours 📚", "日本語の庭", "Über den Fluß", "The Cartographer’s Daughter", "Ørkenens Sønner"] {
                #expect(titles.contains(t), "\(t)")
            }
            let names = Set(try context.fetch(FetchRequest<DemoLibrary.Author>(entityName: "Author")).map(\.name))
            #expect(names.isSuperset(of: ["Zoë Brontë-Øster", "山田 太郎", "Søren Kierkegård"]))
            let predicate: CoreStack.Predicate = .key("title") == "L’Écume des jours 📚"
            let found = try context.fetch(FetchRequest<DemoLibrary.Book>(entityName: "Book", predicate: predicate))
            #expect(found.count == 1)
            #expect(found.first?.uuid != nil && (found.first?.cover?.count ?? 0) >= 8)
        }
    }
}
