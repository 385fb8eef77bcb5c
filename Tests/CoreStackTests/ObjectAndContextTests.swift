import Foundation
import Testing
@testable import CoreStack

@Suite("Managed objects and contexts")
struct ObjectAndContextTests {
    @Test("insert, save and fetch back in a fresh context with permanent IDs", arguments: StoreKind.allCases)
    func insertSaveFetch(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ctx = stack.context
        let isbn = UUID()
        let savedID: ManagedObjectID = try ctx.performAndWait {
            let book = try Book(context: ctx)
            book.title = "Dune"
            book.pages = 412
            book.price = 9.5
            book.isbn = isbn
            #expect(book.objectID.isTemporaryID)
            #expect(book.objectID.uriRepresentation().absoluteString.hasPrefix("x-coredata:///Book/t"))
            try ctx.save()
            #expect(!book.objectID.isTemporaryID)
            return book.objectID
        }
        let store = try #require(stack.coordinator.persistentStore)
        #expect(savedID.uriRepresentation().absoluteString == "x-coredata://\(store.identifier)/Book/p1")
        #expect(stack.coordinator.managedObjectID(forURIRepresentation: savedID.uriRepresentation()) == savedID)
        #expect(stack.coordinator.managedObjectID(forURIRepresentation: URL(string: "x-coredata://OTHER/Book/p1")!) == nil)

        let other = stack.newContext()
        try other.performAndWait {
            let books = try other.fetch(FetchRequest<Book>(entityName: "Book"))
            #expect(books.count == 1)
            let book = try #require(books.first)
            #expect(book.isFault)
            #expect(book.title == "Dune")
            #expect(!book.isFault)
            #expect(book.pages == 412)
            #expect(book.price == 9.5)
            #expect(book.isbn == isbn)
            #expect(book.objectID == savedID)
            // Uniquing: one object per ID per context.
            #expect(try other.object(with: savedID) === book)
        }
    }

    @Test("value(forKey:) and setValue(_:forKey:) check types against the model", arguments: StoreKind.allCases)
    func typeChecks(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ctx = stack.context
        try ctx.performAndWait {
            let book = try ctx.insertObject(forEntityName: "Book")
            try book.setValue("Emma", forKey: "title")
            try book.setValue(300, forKey: "pages")
            #expect(try book.value(forKey: "title") as? String == "Emma")
            #expect(try book.value(forKey: "pages") as? Int64 == 300)
            #expect(throws: CoreStackError.typeMismatch(entity: "Book", key: "pages", expected: "Integer 32", got: "a String (x)")) {
                try book.setValue("x", forKey: "pages")
            }
            #expect(throws: CoreStackError.unknownKey(entity: "Book", key: "subtitle")) {
                try book.setValue("x", forKey: "subtitle")
            }
            // Out of range for Integer 32.
            #expect(throws: CoreStackError.self) { try book.setValue(Int64(1) << 40, forKey: "pages") }
            let author = try ctx.insertObject(forEntityName: "Author")
            #expect(throws: CoreStackError.self) { try book.setValue(author, forKey: "publisher") }
            #expect(throws: CoreStackError.self) { try book.setValue("not an object", forKey: "authors") }
        }
    }

    @Test("change state, changedValues and committedValues", arguments: StoreKind.allCases)
    func changeTracking(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ctx = stack.context
        try ctx.performAndWait {
            let book = try Book(context: ctx)
            book.title = "Persuasion"
            #expect(book.isInserted && book.hasChanges && !book.isUpdated)
            #expect(ctx.hasChanges)
            try ctx.save()
            #expect(!book.hasChanges && !ctx.hasChanges)
            #expect(book.changedValues().isEmpty)
            book.title = "Persuasion (1817)"
            book.pages = 249
            #expect(book.isUpdated)
            let changed = book.changedValues()
            #expect(changed["title"] == .attribute("Persuasion (1817)"))
            #expect(changed["pages"] == .attribute(249))
            #expect(changed.count == 2)
            #expect(book.committedValues(forKeys: ["title"])["title"] == .attribute("Persuasion"))
            try ctx.delete(book)
            #expect(book.isDeleted && !book.isUpdated)
            try ctx.save()
            #expect(try ctx.count(for: FetchRequest<Book>(entityName: "Book")) == 0)
        }
    }

    @Test("inverse relationships stay in step", arguments: StoreKind.allCases)
    func inverses(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ctx = stack.context
        try ctx.performAndWait {
            let p1 = try Publisher(context: ctx)
            p1.name = "Gollancz"
            let p2 = try Publisher(context: ctx)
            p2.name = "Ace"
            let book = try Book(context: ctx)
            book.title = "Dune"
            book.publisher = p1
            #expect(p1.books == [book])
            book.publisher = p2
            #expect(p1.books.isEmpty)
            #expect(p2.books == [book])
            let a = try Author(context: ctx)
            a.name = "Frank Herbert"
            book.authors.insert(a)
            #expect(a.books == [book])
            a.books = []
            #expect(book.authors.isEmpty)
            // To-one side set from the to-many side.
            p1.books = [book]
            #expect(book.publisher === p1)
            #expect(p2.books.isEmpty)
            #expect(book.lastAccessorError == nil)
        }
    }

    @Test("ordered to-many mutators keep order, and the order survives a save", arguments: StoreKind.allCases)
    func orderedMutators(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ctx = stack.context
        let bookID: ManagedObjectID = try ctx.performAndWait {
            let book = try Book(context: ctx)
            book.title = "Middlemarch"
            func chapter(_ t: String) throws -> Chapter {
                let c = try Chapter(context: ctx)
                c.title = t
                return c
            }
            let (a, b, c, d, e) = (try chapter("A"), try chapter("B"), try chapter("C"), try chapter("D"), try chapter("E"))
            book.chapters = [a, b, c]
            #expect(a.book === book)
            try book.insert(d, at: 1, inKey: "chapters")
            #expect(book.chapters.map(\.title) == ["A", "D", "B", "C"])
            try book.insert([e], at: IndexSet(integer: 0), inKey: "chapters")
            #expect(book.chapters.map(\.title) == ["E", "A", "D", "B", "C"])
            try book.removeObject(at: 0, fromKey: "chapters")
            #expect(book.chapters.map(\.title) == ["A", "D", "B", "C"])
            #expect(e.book == nil)
            try book.replaceObject(at: 1, with: e, inKey: "chapters")
            #expect(book.chapters.map(\.title) == ["A", "E", "B", "C"])
            #expect(d.book == nil && e.book === book)
            try book.moveObject(from: 3, to: 0, inKey: "chapters")
            #expect(book.chapters.map(\.title) == ["C", "A", "E", "B"])
            try book.moveObjects(at: IndexSet([0, 1]), to: 2, inKey: "chapters")
            #expect(book.chapters.map(\.title) == ["E", "B", "C", "A"])
            try book.removeObjects(at: IndexSet([1, 2]), fromKey: "chapters")
            #expect(book.chapters.map(\.title) == ["E", "A"])
            try book.add(d, toKey: "chapters")
            #expect(book.chapters.map(\.title) == ["E", "A", "D"])
            #expect(throws: CoreStackError.self) { try book.removeObject(at: 7, fromKey: "chapters") }
            #expect(throws: CoreStackError.self) { try book.insert(b, at: 1, inKey: "authors") }
            try ctx.delete(b)
            try ctx.delete(c)
            try ctx.save()
            return book.objectID
        }
        let other = stack.newContext()
        try other.performAndWait {
            let book = try #require(try other.existingObject(with: bookID) as? Book)
            #expect(book.chapters.map(\.title) == ["E", "A", "D"])
            try book.moveObject(from: 2, to: 0, inKey: "chapters")
            try other.save()
        }
        let third = stack.newContext()
        try third.performAndWait {
            let book = try #require(try third.existingObject(with: bookID) as? Book)
            #expect(book.chapters.map(\.title) == ["D", "E", "A"])
        }
    }

    @Test("many-to-many relationships save and load from both sides", arguments: StoreKind.allCases)
    func manyToMany(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ctx = stack.context
        try ctx.performAndWait {
            let good = try Book(context: ctx)
            good.title = "Good Omens"
            let pratchett = try Author(context: ctx)
            pratchett.name = "Terry Pratchett"
            let gaiman = try Author(context: ctx)
            gaiman.name = "Neil Gaiman"
            good.authors = [pratchett, gaiman]
            let mort = try Book(context: ctx)
            mort.title = "Mort"
            pratchett.books.insert(mort)
            try ctx.save()
        }
        let other = stack.newContext()
        try other.performAndWait {
            var r = FetchRequest<Author>(entityName: "Author")
            r.sortDescriptors = [SortDescriptor("name")]
            let authors = try other.fetch(r)
            #expect(authors.map(\.name) == ["Neil Gaiman", "Terry Pratchett"])
            #expect(authors[0].books.map(\.title) == ["Good Omens"])
            #expect(Set(authors[1].books.map(\.title)) == ["Good Omens", "Mort"])
            let good = try #require(authors[0].books.first)
            #expect(Set(good.authors.map(\.name)) == ["Neil Gaiman", "Terry Pratchett"])
            good.authors.remove(authors[1])
            try other.save()
        }
        let third = stack.newContext()
        try third.performAndWait {
            let r = FetchRequest<Author>(entityName: "Author", predicate: .key("name") == "Terry Pratchett")
            let terry = try #require(try third.fetch(r).first)
            #expect(terry.books.map(\.title) == ["Mort"])
        }
    }

    @Test("delete rules: cascade, nullify, and deny at save", arguments: StoreKind.allCases)
    func deleteRules(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ctx = stack.context
        try ctx.performAndWait {
            let publisher = try Publisher(context: ctx)
            publisher.name = "Penguin"
            let book = try Book(context: ctx)
            book.title = "Emma"
            book.publisher = publisher
            let author = try Author(context: ctx)
            author.name = "Jane Austen"
            book.authors = [author]
            for t in ["I", "II"] {
                let c = try Chapter(context: ctx)
                c.title = t
                try book.add(c, toKey: "chapters")
            }
            try ctx.save()

            // Deny: a publisher with books cannot go.
            try ctx.delete(publisher)
            #expect(throws: CoreStackError.deleteDenied(entity: "Publisher", relationship: "books", objectID: publisher.objectID.description)) {
                try ctx.save()
            }
            ctx.rollback()
            #expect(!publisher.isDeleted)
            #expect(publisher.books == [book])

            // Cascade to chapters, nullify the authors' side and the publisher's side.
            try ctx.delete(book)
            #expect(author.books.isEmpty)
            #expect(publisher.books.isEmpty)
            try ctx.save()
            #expect(try ctx.count(for: FetchRequest<Chapter>(entityName: "Chapter")) == 0)
            #expect(try ctx.count(for: FetchRequest<Author>(entityName: "Author")) == 1)
            try ctx.delete(publisher)
            try ctx.save()
        }
    }

    @Test("validation: required values, minimum, maximum length", arguments: StoreKind.allCases)
    func validation(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ctx = stack.context
        try ctx.performAndWait {
            let book = try ctx.insertObject(forEntityName: "Book")
            #expect(throws: CoreStackError.validation(entity: "Book", property: "title", objectID: book.objectID.description, reason: "a value is required")) {
                try ctx.save()
            }
            try book.setValue("ok", forKey: "title")
            try book.setValue(-1, forKey: "pages")
            #expect(throws: CoreStackError.self) { try ctx.save() }
            try book.setValue(1, forKey: "pages")
            let author = try Author(context: ctx)
            author.name = String(repeating: "x", count: 101)
            #expect(throws: CoreStackError.self) { try ctx.save() }
            author.name = "short"
            try ctx.save()
        }
    }

    @Test("fetch: predicate, sort, limit, offset, sub-entities, pending changes", arguments: StoreKind.allCases)
    func fetching(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ctx = stack.context
        try ctx.performAndWait {
            for (t, p) in [("Emma", 474), ("Dune", 412), ("Beloved", 324), ("Ulysses", 730)] {
                let b = try Book(context: ctx)
                b.title = t
                b.pages = p
            }
            let g = try GraphicNovel(context: ctx)
            g.title = "Maus"
            g.pages = 296
            g.illustrator = "Art Spiegelman"
            try ctx.save()

            var r = FetchRequest<Book>(entityName: "Book", predicate: .key("pages") > 300, sortDescriptors: [SortDescriptor("title")])
            #expect(try ctx.fetch(r).map(\.title) == ["Beloved", "Dune", "Emma", "Ulysses"])
            r.fetchLimit = 2
            r.fetchOffset = 1
            #expect(try ctx.fetch(r).map(\.title) == ["Dune", "Emma"])
            let all = FetchRequest<Book>(entityName: "Book", sortDescriptors: [SortDescriptor("pages", ascending: false)])
            #expect(try ctx.fetch(all).map(\.title) == ["Ulysses", "Emma", "Dune", "Beloved", "Maus"])
            var onlyBooks = all
            onlyBooks.includesSubentities = false
            #expect(try ctx.count(for: onlyBooks) == 4)
            #expect(try ctx.fetch(FetchRequest<GraphicNovel>(entityName: "GraphicNovel")).first?.illustrator == "Art Spiegelman")

            // Pending changes: an unsaved insert and an unsaved rename count.
            let new = try Book(context: ctx)
            new.title = "Anna Karenina"
            new.pages = 864
            let dune = try #require(try ctx.fetch(FetchRequest<Book>(entityName: "Book", predicate: .key("title") == "Dune")).first)
            dune.title = "Zorba"
            r.fetchLimit = 0
            r.fetchOffset = 0
            #expect(try ctx.fetch(r).map(\.title) == ["Anna Karenina", "Beloved", "Emma", "Ulysses", "Zorba"])
            #expect(try ctx.count(for: r) == 5)
            var ignoring = r
            ignoring.includesPendingChanges = false
            #expect(try ctx.fetch(ignoring).map(\.title) == ["Beloved", "Dune", "Emma", "Ulysses"].map { $0 == "Dune" ? "Zorba" : $0 })
            let ids = try ctx.fetchObjectIDs(r)
            #expect(ids.count == 5)
            var dicts = FetchRequest<Book>(entityName: "Book", predicate: .key("title") == "Emma")
            dicts.propertiesToFetch = ["title", "pages"]
            #expect(try ctx.fetchDictionaries(dicts) == [["title": "Emma", "pages": 474]])
            #expect(throws: CoreStackError.unknownEntity("Nope")) { try ctx.fetch(FetchRequest<Book>(entityName: "Nope")) }
        }
    }

    @Test("string predicates with case and diacritic folding, to-one key paths and nil checks, in memory", arguments: StoreKind.allCases)
    func predicatesInMemory(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ctx = stack.context
        try ctx.performAndWait {
            let p = try Publisher(context: ctx)
            p.name = "Éditions Gallimard"
            for t in ["L'Étranger", "La Peste", "Le Mythe de Sisyphe"] {
                let b = try Book(context: ctx)
                b.title = t
                b.publisher = p
            }
            let orphan = try Book(context: ctx)
            orphan.title = "Les Misérables"
            try ctx.save()
            func titles(_ pred: Predicate) throws -> [String] {
                try ctx.fetch(FetchRequest<Book>(entityName: "Book", predicate: pred, sortDescriptors: [SortDescriptor("title")])).map(\.title)
            }
            #expect(try titles(.key("title").beginsWith("l", options: .caseInsensitive)) == ["L'Étranger", "La Peste", "Le Mythe de Sisyphe", "Les Misérables"])
            #expect(try titles(.key("title").contains("etr", options: [.caseInsensitive, .diacriticInsensitive])) == ["L'Étranger"])
            #expect(try titles(.key("title").contains("etr", options: .caseInsensitive)) == [])
            #expect(try titles(.key("publisher.name").beginsWith("editions", options: [.caseInsensitive, .diacriticInsensitive])).count == 3)
            #expect(try titles(.key("publisher") == nil) == ["Les Misérables"])
            #expect(try titles(.key("title").like("L? *")) == ["La Peste", "Le Mythe de Sisyphe"])
            #expect(try titles(.key("title").in(["La Peste", "Nope"])) == ["La Peste"])
            #expect(try titles(!(.key("publisher") == nil) && .key("title").endsWith("e")) == ["La Peste", "Le Mythe de Sisyphe"])
            #expect(throws: CoreStackError.unknownKey(entity: "Book", key: "subtitle")) { try titles(.key("subtitle") == "x") }
        }
    }
}
