import Foundation

@testable import CoreStack

// The predicate suite's fixture: plain Swift values (the oracle reads these, never CoreStack),
// and builders that write the same data into an SQLite file and an in-memory store.

struct FAuthor: Sendable {
    let index: Int
    let name: String
    let born: Date?
    let country: String?
    var books: [FBook] { PredicateFixture.data.books.filter { $0.authorIndexes.contains(index) } }
}

struct FPublisher: Sendable {
    let index: Int
    let name: String
    let city: String?
    var books: [FBook] { PredicateFixture.data.books.filter { $0.publisherIndex == index } }
}

struct FChapter: Sendable {
    let title: String
    let number: Int
    let words: Int?
    let bookIndex: Int
    var book: FBook { PredicateFixture.data.books[bookIndex] }
}

struct FBook: Sendable {
    let index: Int
    let title: String
    let pages: Int
    let price: Double?
    let rating: Double?
    let published: Date?
    let inPrint: Bool
    let subtitle: String?
    let publisherIndex: Int?
    let authorIndexes: [Int]
    let chapters: [FChapter]
    var authors: [FAuthor] { authorIndexes.map { PredicateFixture.data.authors[$0] } }
    var publisher: FPublisher? { publisherIndex.map { PredicateFixture.data.publishers[$0] } }
}

struct FixtureData: Sendable {
    let authors: [FAuthor]
    let publishers: [FPublisher]
    let books: [FBook]
    var chapters: [FChapter] { books.flatMap(\.chapters) }
}

/// A date `days` days after 1 January 2001 (reference date), for readable fixtures.
func day(_ days: Double) -> Date { Date(timeIntervalSinceReferenceDate: days * 86_400) }

enum PredicateFixture {
    static let data: FixtureData = make()

    /// "Renée" written with a combining accent (e + U+0301), unlike every other name.
    static let decomposedRenee = "Rene\u{301}e Vivien"

    private static func make() -> FixtureData {
        let authorRows: [(String, Date?, String?)] = [
            ("Émile Zola", day(-58_000), "France"),
            ("Gabriel García Márquez", day(-27_000), "Colombia"),
            ("Фёдор Достоевский", day(-65_000), "Russia"),
            ("村上春樹", day(-19_000), "Japan"),
            ("Søren Kierkegaard", day(-68_000), "Denmark"),
            ("Stanisław Lem", day(-29_000), "Poland"),
            ("Frank Herbert", day(-29_500), "USA"),
            ("Ursula K. Le Guin", day(-26_000), nil),
            ("Jürgen Habermas", day(-26_500), "Germany"),
            ("Chimamanda Ngozi Adichie", day(-8_500), "Nigeria"),
            (decomposedRenee, nil, "France"),
            ("Anonymous", nil, nil),
        ]
        let authors = authorRows.enumerated().map { FAuthor(index: $0, name: $1.0, born: $1.1, country: $1.2) }
        let publishers = [
            FPublisher(index: 0, name: "Ace", city: "New York"),
            FPublisher(index: 1, name: "Gallimard", city: "Paris"),
            FPublisher(index: 2, name: "Suhrkamp", city: "Berlin"),
            FPublisher(index: 3, name: "Éditions Zoé", city: nil),
            FPublisher(index: 4, name: "Empty House", city: "Nowhere"),
        ]
        let titles = [
            "Dune", "Germinal", "Cien años de soledad", "Преступление и наказание", "ノルウェイの森",
            "Solaris", "The Left Hand of Darkness", "Frygt og Bæven", "Nana", "Children of Dune",
            "El amor en los tiempos del cólera", "Идиот", "1Q84", "Cyberiada", "A Wizard of Earthsea",
            "Strukturwandel der Öffentlichkeit", "Americanah", "Half of a Yellow Sun", "L'Assommoir", "Dune Messiah",
            "Crónica de una muerte anunciada", "Бесы", "Kafka on the Shore", "The Cyberiad", "The Dispossessed",
            "Faktizität und Geltung", "Purple Hibiscus", "Thérèse Raquin", "Fiasko", "God Emperor of Dune",
            "Enten – Eller", "Straße der Ölsardinen", "La Curée", "Über das Lesen", "Ærø Stories",
            "naïve café", "NAÏVE CAFE", "Hello? World*", "100% Pure", "Zoë's Garden",
        ]
        let words = ["Prologue", "War", "Peace", "Épilogue", "The End"]
        var books: [FBook] = []
        for (i, title) in titles.enumerated() {
            var authorIndexes: [Int] = []
            if i % 13 != 12 {
                authorIndexes.append(i % 11)
                if i % 5 == 0 { authorIndexes.append((i + 3) % 11) }
            }
            let chapterCount = i % 4
            let chapters = (0..<chapterCount).map { n in
                FChapter(
                    title: "\(words[(i + n) % words.count]) \(i).\(n + 1)", number: n + 1,
                    words: (i + n) % 3 == 0 ? nil : 1000 + (i * 97 + n * 31) % 4000, bookIndex: i)
            }
            books.append(FBook(
                index: i, title: title,
                pages: 90 + (i * 37) % 500,
                price: i % 5 == 0 ? nil : Double((i * 3) % 40) + (i % 2 == 0 ? 0.5 : 0.25),
                rating: i % 7 == 3 ? nil : Double(i % 10) / 2,
                published: i % 9 == 4 ? nil : day(Double(i * 400 - 9_000)),
                inPrint: i % 3 != 0,
                subtitle: i % 4 == 0 ? "A Novel" : (i % 4 == 1 ? nil : (i % 4 == 2 ? "" : "Stories of \(title)")),
                publisherIndex: i % 6 == 5 ? nil : i % 4,
                authorIndexes: authorIndexes, chapters: chapters))
        }
        return FixtureData(authors: authors, publishers: publishers, books: books)
    }

    /// The fixture's model; `typed`: its entities' objects are the classes of
    /// SwiftPredicateFixture.swift (`PBook`…), for `#Predicate` and key paths (same layout, same hashes).
    static func model(typed: Bool = false) throws -> ManagedObjectModel {
        try ManagedObjectModel(versionName: "PredicateLibrary") {
            EntityDescription("Author", class: typed ? PAuthor.self : ManagedObject.self) {
                AttributeDescription("name", .string, isOptional: false)
                AttributeDescription("born", .date)
                AttributeDescription("country", .string)
                AttributeDescription("scratch", .string, isTransient: true)
                RelationshipDescription("books", destination: "Book", inverse: "authors", toMany: true)
            }
            EntityDescription("Book", class: typed ? PBook.self : ManagedObject.self) {
                AttributeDescription("title", .string, isOptional: false)
                AttributeDescription("pages", .integer32, isOptional: false, defaultValue: 0)
                AttributeDescription("price", .decimal)
                AttributeDescription("rating", .double)
                AttributeDescription("published", .date)
                AttributeDescription("inPrint", .boolean, isOptional: false, defaultValue: false)
                AttributeDescription("subtitle", .string)
                RelationshipDescription("publisher", destination: "Publisher", inverse: "books")
                RelationshipDescription("authors", destination: "Author", inverse: "books", toMany: true)
                RelationshipDescription("chapters", destination: "Chapter", inverse: "book", toMany: true, isOrdered: true, deleteRule: .cascade)
            }
            EntityDescription("Publisher", class: typed ? PPublisher.self : ManagedObject.self) {
                AttributeDescription("name", .string, isOptional: false)
                AttributeDescription("city", .string)
                RelationshipDescription("books", destination: "Book", inverse: "publisher", toMany: true)
            }
            EntityDescription("Chapter", class: typed ? PChapter.self : ManagedObject.self) {
                AttributeDescription("title", .string, isOptional: false)
                AttributeDescription("number", .integer16, isOptional: false, defaultValue: 0)
                AttributeDescription("words", .integer32)
                RelationshipDescription("book", destination: "Book", inverse: "chapters")
            }
        }
    }

    /// The attribute naming each object uniquely, per entity.
    static func uniqueKey(_ entity: String) -> String {
        entity == "Author" || entity == "Publisher" ? "name" : "title"
    }

    /// Inserts the fixture into `context` and saves (unless `save` is false: the objects stay
    /// pending insertions, which fetches match in memory).
    static func populate(_ context: ManagedObjectContext, save: Bool = true) throws {
        try context.performAndWait {
            let d = data
            let authors = try d.authors.map { a -> ManagedObject in
                let o = try context.insertObject(forEntityName: "Author")
                try o.setAttributeValue(.string(a.name), forKey: "name")
                try o.setAttributeValue(a.born.map { .date($0) } ?? .null, forKey: "born")
                try o.setAttributeValue(a.country.map { .string($0) } ?? .null, forKey: "country")
                return o
            }
            let publishers = try d.publishers.map { p -> ManagedObject in
                let o = try context.insertObject(forEntityName: "Publisher")
                try o.setAttributeValue(.string(p.name), forKey: "name")
                try o.setAttributeValue(p.city.map { .string($0) } ?? .null, forKey: "city")
                return o
            }
            for b in d.books {
                let o = try context.insertObject(forEntityName: "Book")
                try o.setAttributeValue(.string(b.title), forKey: "title")
                try o.setAttributeValue(.integer(Int64(b.pages)), forKey: "pages")
                try o.setAttributeValue(b.price.map { .decimal(Decimal($0)) } ?? .null, forKey: "price")
                try o.setAttributeValue(b.rating.map { .double($0) } ?? .null, forKey: "rating")
                try o.setAttributeValue(b.published.map { .date($0) } ?? .null, forKey: "published")
                try o.setAttributeValue(.bool(b.inPrint), forKey: "inPrint")
                try o.setAttributeValue(b.subtitle.map { .string($0) } ?? .null, forKey: "subtitle")
                if let p = b.publisherIndex { try o.setObject(publishers[p], forKey: "publisher") }
                try o.setObjects(b.authorIndexes.map { authors[$0] }, forKey: "authors")
                var chapters: [ManagedObject] = []
                for c in b.chapters {
                    let co = try context.insertObject(forEntityName: "Chapter")
                    try co.setAttributeValue(.string(c.title), forKey: "title")
                    try co.setAttributeValue(.integer(Int64(c.number)), forKey: "number")
                    try co.setAttributeValue(c.words.map { .integer(Int64($0)) } ?? .null, forKey: "words")
                    chapters.append(co)
                }
                try o.setObjects(chapters, forKey: "chapters")
            }
            if save { try context.save() }
        }
    }

    private final class FileCache: @unchecked Sendable {
        let lock = NSLock()
        var url: URL?
    }
    private static let sqliteFile = FileCache()

    /// The fixture written once into an SQLite file (tests open their own stores on it and only read).
    static func sqliteURL() throws -> URL {
        sqliteFile.lock.lock()
        defer { sqliteFile.lock.unlock() }
        if let url = sqliteFile.url { return url }
        let url = try Fixtures.temporaryFolder().appendingPathComponent("PredicateSuite.sqlite")
        let stack = try TestStack(model: try model()) { try SQLiteStore(url: url, model: $0) }
        try populate(stack.context)
        sqliteFile.url = url
        return url
    }

    /// A fresh coordinator and context on a copy of the fixture file (each test its own copy:
    /// SQLite connections may write on open and close, and tests run in parallel).
    static func sqliteStack(typed: Bool = false) throws -> TestStack {
        let source = try sqliteURL()
        let url = try Fixtures.temporaryFolder().appendingPathComponent("PredicateSuite.sqlite")
        sqliteFile.lock.lock()
        defer { sqliteFile.lock.unlock() }
        try FileManager.default.copyItem(at: source, to: url)
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: source.path + suffix) {
            try FileManager.default.copyItem(atPath: source.path + suffix, toPath: url.path + suffix)
        }
        return try TestStack(model: try model(typed: typed)) { try SQLiteStore(url: url, model: $0) }
    }

    /// A fresh in-memory store holding the same data.
    static func inMemoryStack(typed: Bool = false) throws -> TestStack {
        let stack = try TestStack(model: try model(typed: typed))
        try populate(stack.context)
        return try TestStack(model: stack.model, sharing: stack.coordinator)
    }
}

extension TestStack {
    /// Another context on an existing coordinator.
    init(model: ManagedObjectModel, sharing coordinator: PersistentStoreCoordinator) throws {
        self.model = model
        self.coordinator = coordinator
        context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: "fresh")
    }
}
