import Foundation
import TestSupportKit
import Testing
@testable import CoreStack

@Suite("Batch inserts of rows by column list")
struct BatchInsertColumnsTests {
    /// A stack on a new SQLite store, and the store's file.
    static func sqliteStack(_ label: String) throws -> (stack: TestStack, url: URL) {
        let url = try TemporaryRoot.folder(label).appendingPathComponent("Test.sqlite")
        return (try TestStack { try SQLiteStore(url: url, model: $0) }, url)
    }

    /// The store as `sqlite3 .dump` prints it, without `Z_METADATA` (each store has its own UUID).
    static func dump(_ url: URL) throws -> [String] {
        try StoreDamage.sqlite3(url, ".dump").split(separator: "\n").map(String.init).filter { !$0.contains("Z_METADATA") }
    }

    /// A small library written in one multi-request call under reserved IDs, with relationships
    /// both ways (the chapters' `book`, the books' `chapters`, `publisher` and `authors`), as rows
    /// by column list: columns in slot order and not, some attributes left to their defaults,
    /// values that need coercion (a Boolean for an integer, integers for a double) and nulls.
    static func libraryRequests(_ ctx: ManagedObjectContext) throws -> [BatchInsertRequest] {
        let publishers = try ctx.reserveObjectIDs(forEntityName: "Publisher", count: 2)
        let authors = try ctx.reserveObjectIDs(forEntityName: "Author", count: 3)
        let books = try ctx.reserveObjectIDs(forEntityName: "Book", count: 3)
        let novels = try ctx.reserveObjectIDs(forEntityName: "GraphicNovel", count: 1)
        let chapters = try ctx.reserveObjectIDs(forEntityName: "Chapter", count: 5)
        let isbn = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        return [
            BatchInsertRequest(
                entityName: "Chapter", columns: ["title"], rows: [["c2"], ["c1"], ["d1"], ["loose"], ["c3"]],
                relationships: [[:], [:], ["book": [books[1]]]], objectIDs: chapters),
            // Every attribute of Book, in slot order: rows kept as they are, and one coerced.
            BatchInsertRequest(
                entityName: "Book", columns: ["title", "pages", "price", "isbn"],
                rows: [["Atlas", 320, 12.5, .uuid(isbn)], ["Fjord", .bool(true), 9, .null]],
                relationships: [["publisher": [publishers[0]], "authors": [authors[0], authors[2]], "chapters": [chapters[1], chapters[0], chapters[4]]]],
                objectIDs: Array(books[0...1])),
            // Another order, price and isbn left out.
            BatchInsertRequest(
                entityName: "Book", columns: ["pages", "title"], rows: [[48, "Orchard"]],
                relationships: [["publisher": [publishers[1]], "authors": [authors[1]]]], objectIDs: [books[2]]),
            BatchInsertRequest(
                entityName: "GraphicNovel", columns: ["illustrator", "title", "price"], rows: [["Mœbius", "L’Incal", .null]],
                relationships: [["publisher": [publishers[0]], "authors": authors]], objectIDs: novels),
            BatchInsertRequest(
                entityName: "Author", columns: ["born", "name"],
                rows: [[.date(Date(timeIntervalSinceReferenceDate: -86_400 * 365 * 40)), "Zoë"], [.null, "山田 太郎"], [.null, "Søren"]],
                objectIDs: authors),
            BatchInsertRequest(entityName: "Publisher", columns: ["name"], rows: [["Lac"], ["Nordlys"]], objectIDs: publishers),
        ]
    }

    /// The same request with dictionaries (``BatchInsertRequest/objects`` of the rows).
    static func withDictionaries(_ request: BatchInsertRequest) -> BatchInsertRequest {
        BatchInsertRequest(
            entityName: request.entityName, objects: request.objects, relationships: request.relationships, objectIDs: request.objectIDs)
    }

    @Test("rows by column list write exactly the rows dictionaries write: same store, value for value, relationships and reserved IDs included")
    func sameRowsAsDictionaries() throws {
        let (columns, columnsURL) = try Self.sqliteStack("columns")
        let (dictionaries, dictionariesURL) = try Self.sqliteStack("dictionaries")
        let byColumns = try columns.context.performAndWait {
            try columns.context.executeBatchInsert(try Self.libraryRequests(columns.context))
        }
        let byDictionaries = try dictionaries.context.performAndWait {
            let requests = try Self.libraryRequests(dictionaries.context).map(Self.withDictionaries)
            #expect(requests.allSatisfy { $0.columns == nil && $0.rows == nil })
            return try dictionaries.context.executeBatchInsert(requests)
        }
        #expect(byColumns.map { $0.objectIDs.compactMap(\.primaryKey) } == byDictionaries.map { $0.objectIDs.compactMap(\.primaryKey) })
        let dump = try Self.dump(columnsURL)
        #expect(dump.contains { $0.hasPrefix("INSERT INTO ZBOOK") })
        #expect(dump == (try Self.dump(dictionariesURL)))

        // And the values read back as given, defaults where a column was left out.
        let reader = columns.newContext("reader")
        try reader.performAndWait {
            let books = try reader.fetch(FetchRequest<Book>(entityName: "Book", sortDescriptors: [SortDescriptor("title")]))
            #expect(books.map(\.title) == ["Atlas", "Fjord", "L’Incal", "Orchard"])
            #expect(books.map(\.pages) == [320, 1, 0, 48])
            #expect(books.map(\.price) == [12.5, 9, nil, nil])
            #expect(books[0].isbn != nil && books[1].isbn == nil)
            #expect(books[0].chapters.map(\.title) == ["c1", "c2", "c3"] && books[1].chapters.map(\.title) == ["d1"])
            #expect((books[2] as? GraphicNovel)?.illustrator == "Mœbius" && books[2].authors.count == 3)
            #expect(books[3].publisher?.name == "Nordlys" && books[3].authors.map(\.name) == ["山田 太郎"])
        }
    }

    /// The error a request throws, on a fresh stack of `kind`; nil when it does not throw.
    static func error(of request: BatchInsertRequest, on kind: StoreKind) throws -> CoreStackError? {
        let stack = try TestStack(kind)
        return stack.context.performAndWait {
            #expect(throws: CoreStackError.self) { try stack.context.executeBatchInsert(request) }
        }
    }

    @Test("an unknown column, a wrong value, a required value missing: the dictionary form's errors", arguments: StoreKind.allCases)
    func sameErrorsAsDictionaries(kind: StoreKind) throws {
        let refused: [(BatchInsertRequest, CoreStackError)] = [
            (BatchInsertRequest(entityName: "Book", columns: ["title", "nope"], rows: [["a", 1]]), .unknownKey(entity: "Book", key: "nope")),
            (BatchInsertRequest(entityName: "Book", columns: ["title", "pages"], rows: [["a", 1], ["b", "x"]]),
             .typeMismatch(entity: "Book", key: "pages", expected: "Integer 32", got: "a String (x)")),
            // Out of Integer 32's range: refused, not kept as a value of the right case.
            (BatchInsertRequest(entityName: "Book", columns: ["title", "pages"], rows: [["a", .integer(1 << 40)]]),
             .typeMismatch(entity: "Book", key: "pages", expected: "Integer 32", got: "an Integer (1099511627776)")),
            // A required attribute named with no value in one row, or not named at all.
            (BatchInsertRequest(entityName: "Book", columns: ["title", "pages"], rows: [["a", 1], [.null, 2]]),
             .validation(entity: "Book", property: "title", objectID: "batch insert object 1", reason: "a required value is missing")),
            (BatchInsertRequest(entityName: "Book", columns: ["pages"], rows: [[3]]),
             .validation(entity: "Book", property: "title", objectID: "batch insert object 0", reason: "a required value is missing")),
        ]
        for (request, expected) in refused {
            #expect(try Self.error(of: request, on: kind) == expected, "\(request.columns ?? [])")
            #expect(try Self.error(of: Self.withDictionaries(request), on: kind) == expected, "\(request.columns ?? [])")
        }
    }

    @Test("a column named twice and a row of another width are refused, saying which row and the widths", arguments: StoreKind.allCases)
    func columnsAndWidths(kind: StoreKind) throws {
        let twice = try Self.error(of: BatchInsertRequest(entityName: "Book", columns: ["title", "pages", "title"], rows: [["a", 1, "b"]]), on: kind)
        #expect(twice == .invalidFetchRequest("a batch insert of Book names the column title twice"))
        let narrow = try Self.error(of: BatchInsertRequest(entityName: "Book", columns: ["title", "pages"], rows: [["a", 1], ["b"]]), on: kind)
        #expect(narrow == .invalidFetchRequest("row 1 of a batch insert of Book has 1 values for 2 columns"))
        let wide = try Self.error(of: BatchInsertRequest(entityName: "Chapter", columns: ["title"], rows: [["a", "b"]]), on: kind)
        #expect(wide == .invalidFetchRequest("row 0 of a batch insert of Chapter has 2 values for 1 columns"))
        // The request-level checks count rows.
        let links = try Self.error(of: BatchInsertRequest(entityName: "Chapter", columns: ["title"], rows: [["a"]], relationships: [[:], [:]]), on: kind)
        if case .invalidFetchRequest(let message) = links {
            #expect(message.contains("2 relationship dictionaries for 1 objects"))
        } else {
            Issue.record("expected invalidFetchRequest, got \(String(describing: links))")
        }
    }

    @Test("a request refused in a multi-request call, at its last row, writes nothing of any request", arguments: StoreKind.allCases)
    func refusedRowWritesNothing(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ctx = stack.context
        try ctx.performAndWait {
            let books = try ctx.reserveObjectIDs(forEntityName: "Book", count: 2)
            let chapters = try ctx.reserveObjectIDs(forEntityName: "Chapter", count: 1)
            #expect(throws: CoreStackError.invalidFetchRequest("row 2 of a batch insert of Publisher has 3 values for 1 columns")) {
                try ctx.executeBatchInsert([
                    BatchInsertRequest(entityName: "Chapter", columns: ["title"], rows: [["c"]], objectIDs: chapters),
                    BatchInsertRequest(
                        entityName: "Book", columns: ["title"], rows: [["a"], ["b"]], relationships: [["chapters": chapters]], objectIDs: books),
                    BatchInsertRequest(entityName: "Publisher", columns: ["name"], rows: [["P"], ["Q"], ["R", "S", "T"]]),
                ])
            }
            #expect(try ctx.count(for: FetchRequest<Book>(entityName: "Book")) == 0)
            #expect(try ctx.count(for: FetchRequest<Chapter>(entityName: "Chapter")) == 0)
            #expect(try ctx.count(for: FetchRequest<Publisher>(entityName: "Publisher")) == 0)
            // The same call with the row fixed writes everything.
            try ctx.executeBatchInsert([
                BatchInsertRequest(entityName: "Chapter", columns: ["title"], rows: [["c"]], objectIDs: chapters),
                BatchInsertRequest(
                    entityName: "Book", columns: ["title"], rows: [["a"], ["b"]], relationships: [["chapters": chapters]], objectIDs: books),
                BatchInsertRequest(entityName: "Publisher", columns: ["name"], rows: [["P"], ["Q"], ["R"]]),
            ])
            #expect(try ctx.count(for: FetchRequest<Book>(entityName: "Book")) == 2)
            #expect(try ctx.count(for: FetchRequest<Publisher>(entityName: "Publisher")) == 3)
        }
    }

    @Test("objects, columns, rows and objectCount of both forms; setting objects turns a request into dictionaries")
    func payloadAccessors() {
        var request = BatchInsertRequest(entityName: "Book", columns: ["title", "pages"], rows: [["a", 1], ["b", .null]])
        #expect(request.columns == ["title", "pages"] && request.rows == [["a", 1], ["b", .null]] && request.objectCount == 2)
        #expect(request.objects == [["title": "a", "pages": 1], ["title": "b", "pages": .null]])
        request.objects.append(["title": "c"])
        #expect(request.columns == nil && request.rows == nil && request.objectCount == 3)
        #expect(request.objects.last == ["title": "c"])
        let empty = BatchInsertRequest(entityName: "Book", columns: ["title"], rows: [])
        #expect(empty.objectCount == 0 && empty.objects.isEmpty && empty.columns == ["title"])
    }

    @Test("a value counted canonical for a type is what coercion returns for it")
    func canonicalMeansUnchanged() throws {
        let values: [AttributeValue] = [
            .null, .integer(0), .integer(1), .integer(40_000), .integer(1 << 40), .integer(.min), .double(0.1), .double(2),
            .string("s"), .bool(true), .date(Date(timeIntervalSinceReferenceDate: 0)), .data(Data([1])), .uuid(UUID()),
            .decimal(Decimal(string: "1.25") ?? 0), .url(try #require(URL(string: "https://example.org"))),
        ]
        for type in AttributeType.allCases {
            for value in values where AttributeCoercion.isCanonical(value, for: type) {
                #expect(AttributeCoercion.coerce(value, to: type) == value, "\(value) for \(type)")
            }
        }
        #expect(AttributeCoercion.isCanonical(.integer(40_000), for: .integer32) && !AttributeCoercion.isCanonical(.integer(40_000), for: .integer16))
        #expect(!AttributeCoercion.isCanonical(.double(0.1), for: .float) && !AttributeCoercion.isCanonical(.integer(1), for: .double))
    }
}
