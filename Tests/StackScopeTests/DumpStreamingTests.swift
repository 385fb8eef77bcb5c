import CoreStack
import Foundation
import StackScope
import Testing

@Suite("dump in SQL: several sort keys, descending, offset, limit, predicate; streamed output")
struct DumpStreamingTests {
    /// The Book rows' primary keys in the order a dump lists them.
    static func keys(_ url: URL, _ query: DumpQuery) throws -> [Int64] {
        try DumpCommand.dump(storePath: url.path, query: query).compactMap(\.objectID.primaryKey)
    }

    /// The same order by `sqlite3`, independent of CoreStack (Book and GraphicNovel share ZBOOK).
    static func sqliteKeys(_ url: URL, _ sql: String) throws -> [Int64] {
        try StoreOwnModelTests.sqlite3(sql, url).compactMap { Int64($0) }
    }

    @Test("sort keys ascending and descending, ties by primary key, offset and limit: as sqlite3 orders them")
    func orderAndWindowMatchSQLite() throws {
        let (url, _) = try TestSupport.demoStore(size: 400)
        func check(_ spec: String, limit: Int?, offset: Int?, _ sql: String) throws {
            let query = DumpQuery(entityName: "Book", sort: try DumpSort.parse(spec), limit: limit, offset: offset)
            let ours = try Self.keys(url, query)
            let theirs = try Self.sqliteKeys(url, sql)
            #expect(!theirs.isEmpty)
            #expect(ours == theirs, "--sort \(spec) limit \(limit ?? -1) offset \(offset ?? 0)")
        }
        try check("title", limit: 10, offset: nil, "SELECT Z_PK FROM ZBOOK ORDER BY ZTITLE, Z_PK LIMIT 10")
        try check("-pages,title", limit: nil, offset: nil, "SELECT Z_PK FROM ZBOOK ORDER BY ZPAGES DESC, ZTITLE, Z_PK")
        try check("inPrint:desc, rating", limit: 7, offset: 5,
                  "SELECT Z_PK FROM ZBOOK ORDER BY ZINPRINT DESC, ZRATING, Z_PK LIMIT 7 OFFSET 5")
        try check("edition:asc", limit: nil, offset: 3, "SELECT Z_PK FROM ZBOOK ORDER BY ZEDITION, Z_PK LIMIT -1 OFFSET 3")
    }

    @Test("a predicate, a sort and a limit together: as sqlite3 filters and orders")
    func predicateWithSortAndLimit() throws {
        let (url, _) = try TestSupport.demoStore(size: 400)
        let query = DumpQuery(
            entityName: "Book", sort: [DumpSort(key: "pages", ascending: false)], limit: 5,
            predicate: try CoreStack.Predicate(format: "pages > %d", 200))
        let theirs = try Self.sqliteKeys(url, "SELECT Z_PK FROM ZBOOK WHERE ZPAGES > 200 ORDER BY ZPAGES DESC, Z_PK LIMIT 5")
        #expect(theirs.count == 5)
        #expect(try Self.keys(url, query) == theirs)
    }

    @Test("the streamed text and JSON are the rendering of the dumped objects, footer included")
    func streamedOutputMatchesRendering() throws {
        let (url, _) = try TestSupport.demoStore(size: 120)
        for query in [
            DumpQuery(entityName: "Book", sort: [DumpSort(key: "title", ascending: false)], limit: 4, offset: 2),
            DumpQuery(entityName: "Person"),
            DumpQuery(entityName: "Genre", predicate: try CoreStack.Predicate(format: "name == %@", "none such")),
        ] {
            let objects = try DumpCommand.dump(storePath: url.path, query: query)
            var pieces: [String] = []
            try DumpCommand.write(storePath: url.path, modelPath: nil, query: query, json: false) { pieces.append($0) }
            #expect(pieces.joined() == DumpCommand.renderText(objects, query: query) + "\n")
            #expect(pieces.count == objects.count + 1)
            let json = try DumpCommand.run(storePath: url.path, modelPath: nil, query: query, json: true)
            #expect(json == DumpCommand.renderJSON(objects) + "\n")
            #expect((try TestSupport.parseJSON(json) as? [Any])?.count == objects.count)
        }
        let text = try DumpCommand.run(
            storePath: url.path, modelPath: nil,
            query: DumpQuery(entityName: "Book", sort: try DumpSort.parse("-pages,title"), limit: 3, offset: 1), json: false)
        #expect(text.hasSuffix("3 objects of Book, sorted by pages descending, title, offset 1, limit 3\n"))
    }

    @Test("to-many destinations come along with each streamed row, ordered ones in order")
    func toManyInStream() throws {
        let (url, _) = try TestSupport.demoStore(size: 200)
        let books = try DumpCommand.dump(storePath: url.path, query: DumpQuery(entityName: "Book"))
        for book in books.prefix(20) {
            guard let pk = book.objectID.primaryKey,
                case let .toMany(chapters)? = book.relationships.first(where: { $0.name == "chapters" })?.target,
                case let .toMany(authors)? = book.relationships.first(where: { $0.name == "authors" })?.target
            else {
                Issue.record("no chapters or authors in \(book.objectID)")
                continue
            }
            let expectedChapters = try Self.sqliteKeys(url, "SELECT Z_PK FROM ZCHAPTER WHERE ZBOOK = \(pk) ORDER BY Z_FOK_BOOK")
            #expect(chapters.compactMap(\.primaryKey) == expectedChapters)
            #expect(authors == authors.sorted())
        }
    }

    @Test("--sort values: comma lists, -key, key:desc; a bad direction or an empty key is refused")
    func sortParsing() throws {
        #expect(try DumpSort.parse("title") == [DumpSort(key: "title")])
        #expect(try DumpSort.parse("-pages, title") == [DumpSort(key: "pages", ascending: false), DumpSort(key: "title")])
        #expect(try DumpSort.parse("pages:desc,title:asc") == [DumpSort(key: "pages", ascending: false), DumpSort(key: "title")])
        #expect(throws: StackScopeError.self) { try DumpSort.parse("pages:sideways") }
        #expect(throws: StackScopeError.self) { try DumpSort.parse("title,,pages") }
        #expect(throws: StackScopeError.self) { try DumpSort.parse("-") }
        let (url, _) = try TestSupport.demoStore(size: 40)
        #expect(throws: StackScopeError.self) {
            try DumpCommand.dump(storePath: url.path, query: DumpQuery(entityName: "Book", sort: [DumpSort(key: "nope")]))
        }
        #expect(throws: StackScopeError.self) {
            try DumpCommand.dump(storePath: url.path, query: DumpQuery(entityName: "Book", sort: [], offset: -1))
        }
    }
}
