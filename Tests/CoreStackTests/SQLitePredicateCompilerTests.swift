import Foundation
import Testing

@testable import CoreStack

fileprivate typealias P = CoreStack.Predicate
fileprivate typealias Sort = CoreStack.SortDescriptor
fileprivate typealias CSComparison = CoreStack.Comparison
fileprivate typealias E = CoreStack.Expression

/// Predicates and sort descriptors compiled to SQL and run against a store CoreStack wrote.
@Suite struct SQLitePredicateCompilerTests {
    /// Books: Dune (412 p., 1965, Ace, by Herbert), Émile (300 p., by Rousseau), "éclair" (90 p.),
    /// Maus (GraphicNovel, 296 p., Pantheon, by Spiegelman), Children of Dune (444 p., Ace, by Herbert).
    fileprivate final class Library {
        let lib: LibraryStore
        var ace: ManagedObjectID!
        var dune: ManagedObjectID!
        var maus: ManagedObjectID!
        var herbert: ManagedObjectID!

        init() throws {
            lib = try LibraryStore()
            ace = try lib.insert("Publisher", ["name": "Ace"])
            let pantheon = try lib.insert("Publisher", ["name": "Pantheon"])
            dune = try lib.insert("Book", [
                "title": "Dune", "pages": 412, "published": .date(Date(timeIntervalSinceReferenceDate: -1_136_073_600)),
                "rating": 4.5, "inPrint": true,
            ], toOne: ["publisher": ace])
            let emile = try lib.insert("Book", ["title": "Émile", "pages": 300, "rating": 3.0, "inPrint": false])
            try lib.insert("Book", ["title": "éclair", "pages": 90])
            maus = try lib.insert("GraphicNovel", ["title": "Maus", "pages": 296, "illustrator": "Spiegelman"], toOne: ["publisher": pantheon])
            let children = try lib.insert("Book", ["title": "Children of Dune", "pages": 444, "inPrint": true], toOne: ["publisher": ace])
            herbert = try lib.insert("Author", ["name": "Herbert"])
            let rousseau = try lib.insert("Author", ["name": "Rousseau"])
            let spiegelman = try lib.insert("Author", ["name": "Spiegelman"])
            try lib.insert("Author", ["name": "Nobody"])
            try lib.link(herbert, "books", to: [dune, children])
            try lib.link(rousseau, "books", to: [emile])
            try lib.link(spiegelman, "books", to: [maus])
        }

        func titles(_ p: P?, sort: [Sort] = [Sort("title")], limit: Int = 0, offset: Int = 0) throws -> [String] {
            try lib.titles("Book", p, sort: sort, limit: limit, offset: offset)
        }

        func names(_ p: P?) throws -> [String] {
            try lib.titles("Author", p, key: "name", sort: [Sort("name")])
        }
    }

    @Test func comparisonsAndTypes() throws {
        let l = try Library()
        #expect(try l.titles(.key("pages") > 300) == ["Children of Dune", "Dune"])
        #expect(try l.titles(.key("pages") <= 296) == ["Maus", "éclair"])
        #expect(try l.titles(.key("pages") != 412) == ["Children of Dune", "Maus", "Émile", "éclair"])
        #expect(try l.titles(E.key("pages").in([90, 296])) == ["Maus", "éclair"])
        #expect(try l.titles(E.key("pages").between(290, 310)) == ["Maus", "Émile"])
        #expect(try l.titles(.key("rating") >= 3.0) == ["Dune", "Émile"])
        #expect(try l.titles(.key("inPrint") == true) == ["Children of Dune", "Dune"])
        #expect(try l.titles(.key("inPrint") == false) == ["Émile"])
        #expect(try l.titles(.key("rating") == nil) == ["Children of Dune", "Maus", "éclair"])
        #expect(try l.titles(.key("rating") != nil) == ["Dune", "Émile"])
        #expect(try l.titles(.key("published") < .date(Date(timeIntervalSinceReferenceDate: 0))) == ["Dune"])
        #expect(try l.titles(!(.key("pages") > 300) && .key("title") != "Maus") == ["Émile", "éclair"])
        #expect(try l.titles(.key("pages") == 412 || .key("title") == "Maus") == ["Dune", "Maus"])
        #expect(try l.titles(.alwaysFalse) == [])
        #expect(try l.titles(.alwaysTrue).count == 5)
        // != includes rows whose value is nil, as in-memory evaluation does.
        #expect(try l.titles(.key("rating") != 4.5) == ["Children of Dune", "Maus", "Émile", "éclair"])
        #expect(throws: CoreStackError.self) { try l.titles(.key("published") == "yesterday") }
        #expect {
            try l.titles(.key("published") == "yesterday")
        } throws: { error in
            guard case let CoreStackError.invalidPredicate(message) = error else { return false }
            return message.contains("published") && message.contains("Date") && message.contains("String")
        }
        #expect(throws: CoreStackError.self) { try l.titles(.key("title") > 3) }
        #expect(throws: CoreStackError.self) { try l.titles(E.key("pages").beginsWith("4")) }
    }

    @Test func uuidsBindAsBlobsAndDatesAsReferenceSeconds() throws {
        let lib = try LibraryStore()
        let isbn = UUID()
        let day = Date(timeIntervalSinceReferenceDate: 86_400)
        try lib.insert("Book", ["title": "A", "isbn": .uuid(isbn), "published": .date(day)])
        try lib.insert("Book", ["title": "B", "isbn": .uuid(UUID()), "published": .date(day.addingTimeInterval(1))])
        #expect(try lib.titles("Book", .key("isbn") == .uuid(isbn)) == ["A"])
        #expect(try lib.titles("Book", .key("published") == .date(day)) == ["A"])
        #expect(try lib.titles("Book", E.key("published").between(.date(day), .date(day.addingTimeInterval(5))), sort: [Sort("title")]) == ["A", "B"])
        var compiler = SQLitePredicateCompiler(schema: lib.store.schema)
        _ = try compiler.compile(.key("isbn") == .uuid(isbn) && .key("published") > .date(day), entity: lib.entity("Book"), alias: "t0")
        #expect(compiler.arguments.first?.storage == .blob(SQLiteValueCodec.uuidData(isbn)))
        #expect(compiler.arguments.last?.storage == .double(86_400))
        #expect(throws: CoreStackError.self) { try lib.titles("Book", .key("isbn") == .string(isbn.uuidString)) }
    }

    @Test func stringOperatorsWithOptions() throws {
        let l = try Library()
        #expect(try l.titles(E.key("title").beginsWith("Du")) == ["Dune"])
        #expect(try l.titles(E.key("title").beginsWith("du")) == [])
        #expect(try l.titles(E.key("title").beginsWith("du", options: .caseInsensitive)) == ["Dune"])
        #expect(try l.titles(E.key("title").beginsWith("e", options: .caseInsensitive)) == [])
        #expect(try l.titles(E.key("title").beginsWith("e", options: [.caseInsensitive, .diacriticInsensitive])) == ["Émile", "éclair"])
        #expect(try l.titles(E.key("title").endsWith("UNE", options: .caseInsensitive)) == ["Children of Dune", "Dune"])
        #expect(try l.titles(E.key("title").contains("of")) == ["Children of Dune"])
        #expect(try l.titles(E.key("title").like("?aus")) == ["Maus"])
        #expect(try l.titles(E.key("title").like("*dune", options: .caseInsensitive)) == ["Children of Dune", "Dune"])
        #expect(try l.titles(E.key("title").matches("[DM].*")) == ["Dune", "Maus"])
        #expect(try l.titles(E.key("title").equals("EMILE", options: [.caseInsensitive, .diacriticInsensitive])) == ["Émile"])
        #expect(try l.titles(.comparison(CSComparison(.key("title"), .in, .list([.constant("dune"), .constant("maus")]), options: .caseInsensitive))) == ["Dune", "Maus"])
        // SQL and in-memory string matching agree: same function.
        for title in ["Dune", "Émile", "éclair", "Maus", "Children of Dune"] {
            let inMemory = StringMatching.beginsWith(title, "e", options: [.caseInsensitive, .diacriticInsensitive])
            let sql = try l.titles(E.key("title").beginsWith("e", options: [.caseInsensitive, .diacriticInsensitive])).contains(title)
            #expect(inMemory == sql)
        }
    }

    @Test func injectionAttemptsAreJustValuesOrUnknownKeys() throws {
        let l = try Library()
        let evil = "'); DROP TABLE ZBOOK; --"
        #expect(try l.titles(.key("title") == .string(evil)) == [])
        #expect(try l.titles(E.key("title").contains(evil)) == [])
        #expect(try l.titles(E.key("title").like(evil, options: .caseInsensitive)) == [])
        #expect(try l.titles(nil).count == 5)
        for key in ["title' OR 1=1 --", "title\"", "ZTITLE", "Z_PK", "publisher.name); DROP TABLE ZBOOK; --"] {
            #expect(throws: CoreStackError.self) { try l.titles(.key(key) == "x") }
        }
        #expect(throws: CoreStackError.unknownKey(entity: "Book", key: "title' OR 1=1 --")) {
            try l.titles(.key("title' OR 1=1 --") == "x")
        }
        #expect(throws: CoreStackError.unknownKey(entity: "Publisher", key: "nme")) {
            try l.titles(.key("publisher.nme") == "x")
        }
        #expect(throws: CoreStackError.unknownKey(entity: "Book", key: "nope")) {
            try l.titles(nil, sort: [Sort("nope")])
        }
        #expect(try RawSQLite.scalar("SELECT COUNT(*) FROM ZBOOK", in: l.lib.url) == 5)
    }

    @Test func relationshipKeyPaths() throws {
        let l = try Library()
        #expect(try l.titles(.key("publisher.name") == "Ace") == ["Children of Dune", "Dune"])
        #expect(try l.titles(E.key("publisher.name").beginsWith("pan", options: .caseInsensitive)) == ["Maus"])
        #expect(try l.titles(.key("publisher") == nil) == ["Émile", "éclair"])
        #expect(try l.titles(.key("publisher") == l.ace) == ["Children of Dune", "Dune"])
        #expect(try l.titles(.key("publisher.name") != "Ace") == ["Maus", "Émile", "éclair"])
        #expect(try l.titles(.comparison(CSComparison(.evaluatedObject, .equal, .object(l.dune)))) == ["Dune"])
        // To-many: ANY (default), ALL, @count; and through a to-many then a to-one.
        #expect(try l.names(.comparison(CSComparison(.key("books.title"), .beginsWith, .constant("Dune"), modifier: .any))) == ["Herbert"])
        #expect(try l.names(.comparison(CSComparison(.key("books.title"), .contains, .constant("Dune"), modifier: .all))) == ["Herbert", "Nobody"])
        #expect(try l.names(.key("books.@count") > 1) == ["Herbert"])
        #expect(try l.names(.key("books.@count") == 0) == ["Nobody"])
        #expect(try l.names(.comparison(CSComparison(.key("books.publisher.name"), .equal, .constant("Pantheon"), modifier: .any))) == ["Spiegelman"])
        #expect(try l.names(.comparison(CSComparison(.key("books"), .equal, .object(l.maus), modifier: .any))) == ["Spiegelman"])
        #expect(try l.titles(.comparison(CSComparison(.key("authors.name"), .equal, .constant("Herbert"), modifier: .any))) == ["Children of Dune", "Dune"])
        #expect(try l.titles(.key("authors.@count") == 0) == ["éclair"])
        #expect(throws: CoreStackError.self) { try l.titles(.key("publisher") == "Ace") }
        #expect(throws: CoreStackError.self) { try l.titles(.key("publisher") == l.herbert) }
        #expect(throws: CoreStackError.self) { try l.titles(.key("title.length") == 3) }
        #expect(throws: CoreStackError.self) { try l.titles(.comparison(CSComparison(.key("pages"), .equal, .variable("X")))) }
    }

    @Test func sortingLimitsOffsetsAndEntities() throws {
        let l = try Library()
        #expect(try l.titles(nil, sort: [Sort("pages", ascending: false)]) == ["Children of Dune", "Dune", "Émile", "Maus", "éclair"])
        #expect(try l.titles(nil, sort: [Sort("pages")], limit: 2, offset: 1) == ["Maus", "Émile"])
        #expect(try l.titles(nil, sort: [Sort("pages")], limit: 0, offset: 3) == ["Dune", "Children of Dune"])
        // Code-point order puts "é" after "M"; case- and diacritic-insensitive order does not.
        #expect(try l.titles(nil, sort: [Sort("title")]) == ["Children of Dune", "Dune", "Maus", "Émile", "éclair"])
        #expect(try l.titles(nil, sort: [Sort("title", comparison: .caseAndDiacriticInsensitive)]) == ["Children of Dune", "Dune", "éclair", "Émile", "Maus"])
        #expect(try l.titles(nil, sort: [Sort("publisher.name", ascending: false), Sort("title")]) == ["Maus", "Children of Dune", "Dune", "Émile", "éclair"])
        #expect(throws: CoreStackError.self) { try l.titles(nil, sort: [Sort("authors.name")]) }
        let book = l.lib.entity("Book"), novel = l.lib.entity("GraphicNovel")
        #expect(try l.lib.store.count(StoreFetchRequest(entity: book)) == 5)
        #expect(try l.lib.store.count(StoreFetchRequest(entity: book, includesSubentities: false)) == 4)
        #expect(try l.lib.store.count(StoreFetchRequest(entity: novel)) == 1)
        #expect(try l.lib.store.count(StoreFetchRequest(entity: book, fetchLimit: 2, fetchOffset: 4)) == 1)
        #expect(try l.lib.titles("GraphicNovel", .key("illustrator") == "Spiegelman") == ["Maus"])
        let rows = try l.lib.store.fetch(StoreFetchRequest(entity: book, predicate: .key("title") == "Maus"))
        #expect(rows.first?.objectID.entity === novel)
    }

    @Test func unsupportedConstructsThrowInsteadOfCrashing() throws {
        let l = try Library()
        let bad: [P] = [
            .comparison(CSComparison(.list([]), .equal, .constant(1))),
            .comparison(CSComparison(.constant(1), .equal, .constant(1))),
            .comparison(CSComparison(.key(""), .equal, .constant(1))),
            .comparison(CSComparison(.key("title."), .equal, .constant("x"))),
            .comparison(CSComparison(.key("@count"), .equal, .constant(1))),
            .comparison(CSComparison(.key("authors.@count.name"), .equal, .constant(1))),
            .comparison(CSComparison(.key("pages"), .in, .constant(3))),
            .comparison(CSComparison(.key("pages"), .between, .list([.constant(1), .constant(2), .constant(3)]))),
            .comparison(CSComparison(.key("authors"), .equal, .constant("x"))),
            .comparison(CSComparison(.key("authors.name"), .equal, .keyPath("authors.name"))),
            .comparison(CSComparison(.key("publisher"), .lessThan, .object(l.ace))),
            .comparison(CSComparison(.evaluatedObject, .equal, .constant(3))),
            .comparison(CSComparison(.key("title"), .equal, .evaluatedObject)),
            .comparison(CSComparison(.key("blurb"), .beginsWith, .constant("x"))),
            .comparison(CSComparison(.variable("x"), .equal, .constant(1))),
        ]
        for p in bad {
            #expect(throws: CoreStackError.self, "\(p)") { try l.titles(p) }
        }
        // An invalid regular expression is a typed error (it used to match nothing); comparing two key paths works.
        #expect(throws: CoreStackError.invalidPredicate("MATCHES needs a valid regular expression (ICU syntax); \"[\" is not one")) {
            try l.titles(E.key("title").matches("["))
        }
        #expect(try l.titles(.comparison(CSComparison(.key("pages"), .greaterThan, .keyPath("rating")))).count == 2)
        #expect(try l.titles(.comparison(CSComparison(.constant(300), .lessThan, .keyPath("pages")))) == ["Children of Dune", "Dune"])
        #expect(try l.titles(.comparison(CSComparison(.constant("Dune"), .in, .keyPath("title")))) == ["Dune"])
    }

    @Test func compiledSQLBindsEveryValue() throws {
        let lib = try LibraryStore()
        var compiler = SQLitePredicateCompiler(schema: lib.store.schema)
        let sql = try compiler.compile(
            E.key("title").beginsWith("x'y", options: .caseInsensitive) && .key("publisher.name") == "Ace" && .key("pages") > 3,
            entity: lib.entity("Book"), alias: "t0")
        #expect(!sql.contains("x'y") && !sql.contains("Ace"))
        #expect(compiler.arguments.count == 3)
        #expect(sql.contains("cs_match('beginswith', t0.ZTITLE, ?, 1)"))
    }
    /// A SUBQUERY count binds its own values; `IN` repeats its left side once per term (`IS NULL`,
    /// the list, each BLOB-bound string), so each repetition needs the left side's values again,
    /// in the order the `?` come in the SQL, for short lists and long (JSON-bound) ones alike.
    @Test("IN with a left side that binds values (a SUBQUERY count) and nil in the list, short and long")
    func inListAfterBindingLeftSide() throws {
        let l = try Library()
        let duneCount = E.aggregate("@count", of: .subquery(collection: "books", variable: "b", predicate: .key("$b.title") == "Dune"))
        let short = P.comparison(CSComparison(duneCount, .in, .list([.constant(.null), .constant(1)])))
        #expect(try l.names(short) == ["Herbert"])
        let long = P.comparison(CSComparison(
            duneCount, .in, .list([.constant(.null), .constant(1)] + (100..<140).map { .constant(.integer(Int64($0))) })))
        #expect(try l.names(long) == ["Herbert"])
        // Every `?` has its value: the SQL's parameters and the arguments agree in number.
        var compiler = SQLitePredicateCompiler(schema: l.lib.store.schema)
        let sql = try compiler.compile(long, entity: l.lib.entity("Author"), alias: "t0")
        #expect(sql.filter { $0 == "?" }.count == compiler.arguments.count)
    }

    /// A long `IN` list mixing bound constants, a BLOB-bound string (holding NUL) and key paths:
    /// the arguments follow the `?` in SQL order, folded or not.
    @Test("a long IN list of constants, a string holding NUL and key paths keeps its arguments in SQL order")
    func longInListWithExpressions() throws {
        let l = try Library()
        let fillers: [E] = (0..<40).map { .constant(.string("filler \($0)")) }
        let items: [E] = [.constant("Dune"), .constant("Ma\0us"), .keyPath("publisher.name")] + fillers
        #expect(try l.titles(.comparison(CSComparison(.key("title"), .in, .list(items)))) == ["Dune"])
        #expect(try l.titles(.comparison(CSComparison(.key("title"), .in, .list(items), options: .caseInsensitive))) == ["Dune"])
        // A key path in the list compares with each row's own value: Ace's books by their publisher.
        let byPublisher: [E] = [.keyPath("publisher.name"), .constant("Dune")] + fillers
        var compiler = SQLitePredicateCompiler(schema: l.lib.store.schema)
        let sql = try compiler.compile(.comparison(CSComparison(.key("title"), .in, .list(byPublisher))), entity: l.lib.entity("Book"), alias: "t0")
        #expect(sql.filter { $0 == "?" }.count == compiler.arguments.count)
        let withSubquery = P.comparison(CSComparison(
            .key("publisher.name"), .in, .list([.constant("Pantheon"), .constant("Nobody\0")] + fillers)))
        #expect(try l.titles(withSubquery) == ["Maus"])
    }
}
