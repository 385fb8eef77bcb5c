import Foundation
import Testing

@testable import CoreStack

/// Pending changes, typed errors on every path, injection attempts, and parser regressions.
@Suite("Predicates: pending changes, errors, injection, parser regressions")
struct PredicateSafetyTests {
    // MARK: Pending changes

    static let pendingCases: [String] = [
        "pages > 300", "pages < 150", "rating == 4.5", "rating != 4.5", "subtitle == nil", "subtitle != nil",
        "title BEGINSWITH[cd] 'd'", "title CONTAINS 'Pending'", "publisher.name == 'Gallimard'", "publisher == nil",
        "ANY authors.name == 'Émile Zola'", "authors.@count == 0", "ALL authors.country == 'France'",
        "NONE authors.name BEGINSWITH 'F'", "chapters.@count > 0", "chapters.words.@sum > 3000",
        "SUBQUERY(chapters, $c, $c.title CONTAINS 'Pending').@count > 0", "inPrint == YES AND pages > 100",
        "NOT (pages BETWEEN {100, 200})", "price == nil", "title IN {'Dune', 'Solaris', 'Pending Book'}",
    ]

    enum Kind: String, CaseIterable, Sendable { case sqlite, inMemory }

    /// Unsaved insert, update and delete; a fetch that includes them sees what SQL sees after the save.
    @Test("a fetch with pending changes equals the same fetch after saving", arguments: Kind.allCases)
    func pendingChanges(_ kind: Kind) throws {
        let stack = try kind == .sqlite ? PredicateFixture.sqliteStack() : PredicateFixture.inMemoryStack()
        let ctx = stack.context
        let predicates = try Self.pendingCases.map { try Predicate(format: $0) }
        func fetch(_ p: Predicate, _ entity: String = "Book", in c: ManagedObjectContext) throws -> Set<String> {
            try SuiteRunner.fetched(p, entity: entity, in: c)
        }
        let pending: [Set<String>] = try ctx.performAndWait {
            func one(_ entity: String, _ key: String, _ value: String) throws -> ManagedObject {
                var r = FetchRequest<ManagedObject>(entityName: entity)
                r.predicate = .key(key) == .string(value)
                guard let o = try ctx.fetch(r).first else { throw CoreStackError.objectNotFound(value) }
                return o
            }
            // Insert.
            let book = try ctx.insertObject(forEntityName: "Book")
            try book.setAttributeValue("Pending Book", forKey: "title")
            try book.setAttributeValue(333, forKey: "pages")
            try book.setAttributeValue(4.5, forKey: "rating")
            try book.setAttributeValue(true, forKey: "inPrint")
            try book.setObject(try one("Publisher", "name", "Gallimard"), forKey: "publisher")
            try book.setObjects([try one("Author", "name", "Émile Zola")], forKey: "authors")
            let chapter = try ctx.insertObject(forEntityName: "Chapter")
            try chapter.setAttributeValue("Pending chapter", forKey: "title")
            try chapter.setAttributeValue(5000, forKey: "words")
            try book.setObjects([chapter], forKey: "chapters")
            // Update.
            let dune = try one("Book", "title", "Dune")
            try dune.setAttributeValue(120, forKey: "pages")
            try dune.setAttributeValue(.null, forKey: "subtitle")
            try dune.setObjects([], forKey: "authors")
            try dune.setObject(nil, forKey: "publisher")
            let germinal = try one("Book", "title", "Germinal")
            try germinal.setAttributeValue(4.5, forKey: "rating")
            // Delete.
            try ctx.delete(try one("Book", "title", "Solaris"))
            #expect(ctx.hasChanges)
            return try predicates.map { try fetch($0, in: ctx) }
        }
        #expect(pending.contains { $0.contains("Pending Book") })
        try ctx.performAndWait { try ctx.save() }
        let fresh = stack.newContext("after save")
        for (i, p) in predicates.enumerated() {
            let saved = try fetch(p, in: fresh)
            #expect(pending[i] == saved, "\(Self.pendingCases[i])")
        }
        // Chapters through a changed book.
        let chapters = try Predicate(format: "book.title == 'Pending Book' OR book == nil")
        #expect(try fetch(chapters, "Chapter", in: fresh) == ["Pending chapter"])
    }

    // MARK: Errors

    static let badPredicates: [(String, String, CoreStackError?)] = [
        ("Book", "nope == 1", .unknownKey(entity: "Book", key: "nope")),
        ("Book", "publisher.nme == 'x'", .unknownKey(entity: "Publisher", key: "nme")),
        ("Book", "ANY authors.nmae == 'x'", .unknownKey(entity: "Author", key: "nmae")),
        ("Book", "SUBQUERY(chapters, $c, $c.wordz > 1).@count > 0", .unknownKey(entity: "Chapter", key: "wordz")),
        ("Book", "authors.nope.@sum > 1", .unknownKey(entity: "Author", key: "nope")),
        ("Book", "published == 'yesterday'", nil),
        ("Book", "published < 3", nil),
        ("Book", "title > 3", nil),
        ("Book", "pages BEGINSWITH 'x'", nil),
        ("Book", "pages == 'many'", nil),
        ("Book", "publisher == 'Ace'", nil),
        ("Book", "publisher < nil", nil),
        ("Book", "title.@count == 1", nil),
        ("Book", "authors.@sum > 1", nil),
        ("Book", "authors.name.@avg > 1", nil),
        ("Book", "chapters.@count.words == 1", nil),
        ("Book", "SUBQUERY(chapters, $c, $c.words > 1).@sum > 0", nil),
        ("Book", "pages > $MISSING", nil),
        ("Book", "$x.title == 'a'", nil),
        ("Book", "title.length == 3", nil),
        ("Author", "scratch == 'x'", nil),
        ("Book", "1 == 1", nil),
        ("Book", "pages == authors.name", nil),
        // ANY, ALL and NONE on a key path that reaches one value.
        ("Book", "ANY publisher.name == 'x'", .invalidPredicate(
            "ANY needs a to-many relationship in its key path, but \"publisher.name\" of Book reaches one value "
                + "(publisher.name (Publisher.name, String)); drop ANY or use a to-many key path")),
        ("Book", "ALL publisher == nil", nil),
        ("Book", "NONE title == 'x'", nil),
        ("Book", "ANY pages > 3", nil),
        ("Book", "ALL authors.@count > 1", nil),
        ("Chapter", "ANY book.title == 'Dune'", nil),
        ("Book", "ANY SELF == nil", nil),
        // A to-many relationship compared with nil (as Core Data refuses it: an empty set is not nil).
        ("Book", "authors == nil", .invalidPredicate(
            "\"authors\" of Book is a to-many relationship, never nil: to find Book objects with none, use authors.@count == 0")),
        ("Book", "authors != nil", nil),
        ("Chapter", "book.authors == nil", nil),
    ]

    @Test("bad predicates throw the same typed error in SQL, on the in-memory store, and with pending changes")
    func sameErrors() throws {
        let sql = try PredicateFixture.sqliteStack()
        let mem = try PredicateFixture.inMemoryStack()
        let pendingCtx = sql.newContext("pending")
        try pendingCtx.performAndWait {
            let b = try pendingCtx.insertObject(forEntityName: "Book")
            try b.setAttributeValue("Unsaved", forKey: "title")
            let a = try pendingCtx.insertObject(forEntityName: "Author")
            try a.setAttributeValue("Unsaved", forKey: "name")
        }
        for (entity, format, expected) in Self.badPredicates {
            let p = try Predicate(format: format)
            var errors: [CoreStackError] = []
            for ctx in [sql.context, mem.context, pendingCtx] {
                do {
                    _ = try SuiteRunner.fetched(p, entity: entity, in: ctx)
                    Issue.record("\(format) did not throw")
                } catch let e as CoreStackError {
                    errors.append(e)
                }
            }
            do {
                _ = try SuiteRunner.evaluated(p, entity: entity, in: sql.context)
                Issue.record("\(format) did not throw in memory")
            } catch let e as CoreStackError {
                errors.append(e)
            }
            #expect(Set(errors.map { "\($0)" }).count == 1, "\(format): \(errors)")
            if let expected { #expect(errors.first == expected, "\(format)") }
            if case .unknownKey = errors.first {} else if case .invalidPredicate = errors.first {} else {
                Issue.record("\(format): \(String(describing: errors.first))")
            }
        }
    }

    @Test("a type mismatch names the entity, the key and both types")
    func mismatchMessage() throws {
        let stack = try PredicateFixture.sqliteStack()
        let p = try Predicate(format: "published == %@", "yesterday")
        #expect(throws: CoreStackError.invalidPredicate("cannot compare Book.published (Date) with a String (yesterday) using ==")) {
            _ = try SuiteRunner.fetched(p, entity: "Book", in: stack.context)
        }
        let q = try Predicate(format: "publisher.city > %d", 3)
        #expect(throws: CoreStackError.invalidPredicate("cannot compare publisher.city (Publisher.city, String) with an Integer (3) using >")) {
            _ = try SuiteRunner.fetched(q, entity: "Book", in: stack.context)
        }
    }

    @Test("ANY, ALL and NONE still work through a to-many, also behind a to-one")
    func modifiersThroughToMany() throws {
        let stack = try PredicateFixture.sqliteStack()
        let books = PredicateFixture.data.books
        let any = try SuiteRunner.fetched(Predicate(format: "ANY authors.country == 'France'"), entity: "Book", in: stack.context)
        #expect(any == Set(books.filter { $0.authors.contains { $0.country == "France" } }.map(\.title)))
        let chapters = try SuiteRunner.fetched(Predicate(format: "ALL book.authors.country == 'France'"), entity: "Chapter", in: stack.context)
        let expected = books.filter { $0.authors.allSatisfy { $0.country == "France" } }.flatMap(\.chapters).map(\.title)
        #expect(chapters == Set(expected))
    }

    @Test("a regular expression that does not compile, built in code, is rejected on every path")
    func invalidRegexInCode() throws {
        let sql = try PredicateFixture.sqliteStack()
        let mem = try PredicateFixture.inMemoryStack()
        let expected = CoreStackError.invalidPredicate("MATCHES needs a valid regular expression (ICU syntax); \"(\" is not one")
        for p in [Predicate.key("title").matches("("), .key("publisher.name").matches("[a-", options: .caseInsensitive)] {
            for ctx in [sql.context, mem.context] {
                #expect(throws: CoreStackError.self) { try SuiteRunner.fetched(p, entity: "Book", in: ctx) }
            }
            #expect(throws: CoreStackError.self) { try SuiteRunner.evaluated(p, entity: "Book", in: sql.context) }
        }
        #expect(throws: expected) { try SuiteRunner.fetched(.key("title").matches("("), entity: "Book", in: sql.context) }
    }

    // MARK: Malformed input: typed errors at parse time, with the column

    static let malformed: [(format: String, args: [String], column: Int, says: String)] = [
        ("title MATCHES \"(\"", [], 15, "MATCHES needs a valid regular expression (ICU syntax); \"(\" is not one"),
        ("title MATCHES '[a-z' OR pages > 3", [], 15, "MATCHES needs a valid regular expression"),
        ("title MATCHES[c] %@", ["[a-"], 18, "\"[a-\" is not one"),
        ("NOT title MATCHES 'a{2,1}'", [], 19, "MATCHES needs a valid regular expression"),
        ("pages > 1e999999", [], 9, "the number 1e999999 is out of range"),
        ("pages < -1e999999 OR pages > 3", [], 9, "the number 1e999999 is out of range"),
        ("rating == 1" + String(repeating: "0", count: 400) + ".5", [], 11, "is out of range"),
        ("pages == 0x1FFFFFFFFFFFFFFFFF", [], 10, "the number 0x1FFFFFFFFFFFFFFFFF is out of range"),
        ("lowercase(title) == 'x'", [], 1, "unknown function \"lowercase\""),
        ("title == FUNCTION(title, 'uppercase')", [], 10, "unknown function \"FUNCTION\""),
        ("pages > 1 AND publisher.name(1) == 2", [], 25, "unknown function \"name\""),
        ("ANY sum(authors.pages) > 2", [], 5, "unknown function \"sum\""),
        ("#now() > 3", [], 1, "unknown function \"#now\""),
    ]

    @Test("invalid regular expressions, numbers out of range and unknown functions are syntax errors at their column")
    func malformedAtParseTime() throws {
        for (format, args, column, says) in Self.malformed {
            do {
                let p = try Predicate(format: format, argumentArray: args)
                Issue.record("\(format) parsed: \(p)")
            } catch let CoreStackError.predicateSyntax(message, col, input) {
                #expect(col == column, "\(format): \(message)")
                #expect(message.contains(says), "\(format): \(message)")
                #expect(input == format)
            } catch {
                Issue.record("\(format): \(error)")
            }
        }
        // Numbers that fit still parse, as doubles past Int64.
        let huge: Predicate = .key("pages") < .double(1e308)
        let beyondInt64: Predicate = .key("pages") < .double(1e20)
        #expect(try Predicate(format: "pages < 1e308") == huge)
        #expect(try Predicate(format: "pages < 100000000000000000000") == beyondInt64)
        #expect(try Predicate(format: "title MATCHES '[A-Z].*'") == .key("title").matches("[A-Z].*"))
    }

    @Test("errors on a 200 KB predicate quote at most 60 characters around the position")
    func shortWindows() throws {
        let big = 200_000
        let chain = String(repeating: "pages == 1 OR ", count: big / 14)
        let shapes: [String] = [
            chain + "pages ==",
            chain + "pages == 1 OR lowercase(title) == 'x'" + String(repeating: " OR pages == 1", count: big / 14),
            "title == '" + String(repeating: "x", count: big) + "' garbage",
            String(repeating: "a", count: big) + " ==",
            "title MATCHES '(" + String(repeating: "y", count: big) + "'",
            "pages > " + String(repeating: "9", count: big) + "e999999",
            String(repeating: "(", count: big),
            String(repeating: "pages == 1 AND ", count: big / 15) + "pages ~ 3",
            "title == CAST(1, '" + String(repeating: "T", count: big) + "')",
        ]
        for format in shapes {
            #expect(format.count >= big - 100)
            do {
                _ = try Predicate(format: format)
                Issue.record("parsed \(format.prefix(40))…")
            } catch let e as CoreStackError {
                let text = "\(e)"
                #expect(text.count < 400, "\(text.prefix(500))")
                guard case let .predicateSyntax(message, column, _) = e else {
                    Issue.record("\(text.prefix(300))")
                    continue
                }
                let window = PredicateExcerpt.window(of: format, column: column)
                #expect(window.count <= PredicateExcerpt.windowWidth + 2)
                #expect(window.hasPrefix("…") || window.hasSuffix("…"))
                #expect(text.contains("\"\(window)\""))
                #expect(message.count < 300)
            } catch {
                Issue.record("\(error)")
            }
        }
        // Errors found against the model quote long keys and values short too.
        let stack = try PredicateFixture.sqliteStack()
        let checked: [Predicate] = [
            try Predicate(format: String(repeating: "k", count: big) + " == 1"),
            try Predicate(format: "publisher." + String(repeating: "k", count: big) + " == 1"),
            try Predicate(format: "pages == %@", String(repeating: "v", count: big)),
            try Predicate(format: "ANY " + String(repeating: "publisher.books.", count: big / 16) + "@count > 1"),
        ]
        for p in checked {
            do {
                _ = try SuiteRunner.fetched(p, entity: "Book", in: stack.context)
                Issue.record("fetched \(p.predicateFormat.prefix(40))")
            } catch let e as CoreStackError {
                #expect("\(e)".count <= 420, "\("\(e)".prefix(500))")
            }
        }
        // Short input is quoted whole; the window is centred on the column.
        #expect(PredicateExcerpt.window(of: "pages > 1e999999", column: 9) == "pages > 1e999999")
        let long = String(repeating: "pages == 1 OR ", count: 1_000) + "pages =="
        #expect(PredicateExcerpt.window(of: long, column: long.count + 1) == "…s == 1 OR pages == 1 OR pages == 1 OR pages == 1 OR pages ==")
        #expect(PredicateExcerpt.clip(String(repeating: "x", count: 100)) == String(repeating: "x", count: 30) + "…")
        let digits = String((0..<200).map { Character(String($0 % 10)) })
        #expect(PredicateExcerpt.window(of: digits, column: 101) == "…" + String(Array(digits)[70..<130]) + "…")
        #expect(PredicateExcerpt.window(of: digits, column: 1) == String(digits.prefix(60)) + "…")
        #expect(PredicateExcerpt.window(of: digits, column: 500) == "…" + String(digits.suffix(60)))
    }

    @Test("100,000 levels of nesting are a typed error at the documented bound, not a stack overflow")
    func deepNesting() {
        let n = 100_000
        let bound = PredicateParser.maximumNesting
        let shapes: [(String, Int?)] = [
            (String(repeating: "(", count: n) + "a == 1" + String(repeating: ")", count: n), bound + 1),
            (String(repeating: "NOT ", count: n) + "a == 1", nil),
            (String(repeating: "! (", count: n) + "a == 1" + String(repeating: ")", count: n), nil),
            ("a IN " + String(repeating: "{", count: n) + String(repeating: "}", count: n), nil),
            (String(repeating: "SUBQUERY(b, $x, ", count: n) + "a == 1" + String(repeating: ").@count > 0", count: n), nil),
        ]
        for (format, column) in shapes {
            do {
                _ = try Predicate(format: format)
                Issue.record("parsed \(format.prefix(40))…")
            } catch let CoreStackError.predicateSyntax(message, col, _) {
                #expect(message == "the predicate is nested more than \(bound) levels deep")
                if let column { #expect(col == column) }
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    @Test("runs of NOT up to the nesting bound run in SQLite and agree with memory")
    func longNotRuns() throws {
        let stack = try PredicateFixture.sqliteStack()
        for n in [1, 2, 99, 150, PredicateParser.maximumNesting] {
            let p = try Predicate(format: String(repeating: "NOT ", count: n) + "pages > 300")
            let viaSQL = try SuiteRunner.fetched(p, entity: "Book", in: stack.context)
            let expected = Set(PredicateFixture.data.books.filter { ($0.pages > 300) == n.isMultiple(of: 2) }.map(\.title))
            #expect(viaSQL == expected, "\(n)")
            #expect(try SuiteRunner.evaluated(p, entity: "Book", in: stack.context) == expected, "\(n)")
        }
    }

    @Test("nesting SQLite's parser cannot hold is an invalidPredicate on the SQLite store; memory still evaluates it")
    func nestingBeyondSQLite() throws {
        let stack = try PredicateFixture.sqliteStack()
        let mem = try PredicateFixture.inMemoryStack()
        let n = 60
        let format = String(repeating: "pages > 100 AND (pages > 120 OR NOT (", count: n) + "pages > 3" + String(repeating: "))", count: n)
        let p = try Predicate(format: format)
        do {
            _ = try SuiteRunner.fetched(p, entity: "Book", in: stack.context)
            Issue.record("SQLite ran \(n) levels")
        } catch let CoreStackError.invalidPredicate(message) {
            #expect(message.contains("nested too deeply for SQLite"), "\(message)")
        }
        let expected = Set(PredicateFixture.data.books.filter { $0.pages > 100 }.map(\.title))
        #expect(try SuiteRunner.fetched(p, entity: "Book", in: mem.context) == expected)
        #expect(try SuiteRunner.evaluated(p, entity: "Book", in: stack.context) == expected)
        // Shallower nesting runs in SQLite and agrees.
        let shallow = try Predicate(format: String(repeating: "pages > 100 AND (pages > 120 OR NOT (", count: 8) + "pages > 3" + String(repeating: "))", count: 8))
        #expect(try SuiteRunner.fetched(shallow, entity: "Book", in: stack.context) == expected)
    }

    // MARK: Injection

    @Test("values cannot change the SQL; quoted key names are unknown keys")
    func injection() throws {
        let stack = try PredicateFixture.sqliteStack()
        let evil = ["'); DROP TABLE ZBOOK; --", "\"; DROP TABLE ZBOOK; --", "x' OR '1'='1", "%' OR 1=1 --", "\0'); DELETE FROM ZBOOK; --"]
        for v in evil {
            for format in [
                "title == %@", "title CONTAINS[cd] %@", "title LIKE %@", "title MATCHES %@", "title IN %@",
                "ANY authors.name BEGINSWITH %@", "SUBQUERY(chapters, $c, $c.title ENDSWITH[c] %@).@count > 0",
                "%@ IN authors.name", "publisher.name != %@",
            ] {
                let arg: Any? = format.contains("IN %@") ? [v, v] as [Any?] : v
                if format.contains("MATCHES"), !PredicateParser.isValidRegex(v) {
                    // Not a regular expression at all: a syntax error at the %@, before any SQL.
                    #expect(throws: CoreStackError.predicateSyntax(
                        message: "MATCHES needs a valid regular expression (ICU syntax); \"\(PredicateExcerpt.clip(v))\" is not one",
                        column: 15, format: format)) { try Predicate(format: format, arg) }
                    continue
                }
                let p = try Predicate(format: format, arg)
                let found = try SuiteRunner.fetched(p, entity: "Book", in: stack.context)
                #expect(found.count == (format.contains("!=") ? PredicateFixture.data.books.count : 0), "\(format) \(v)")
            }
        }
        for key in ["title' OR 1=1 --", "ZTITLE", "title\"; DROP TABLE ZBOOK; --", "Z_PK", "t0.ZTITLE", "title) OR (1"] {
            let p = try Predicate(format: "%K == %@", key, "x")
            #expect(throws: CoreStackError.self) { _ = try SuiteRunner.fetched(p, entity: "Book", in: stack.context) }
        }
        #expect(throws: CoreStackError.unknownKey(entity: "Book", key: "title' OR 1=1 --")) {
            _ = try SuiteRunner.fetched(try Predicate(format: "%K == 1", "title' OR 1=1 --"), entity: "Book", in: stack.context)
        }
        // The table is still there, whole.
        let all = try SuiteRunner.fetched(.alwaysTrue, entity: "Book", in: stack.newContext())
        #expect(all.count == PredicateFixture.data.books.count)
    }

    // MARK: Parser regressions

    @Test("every line of predicate-regressions.txt parses or throws a CoreStackError")
    func regressions() throws {
        let data = try Data(contentsOf: Fixtures.url("predicate-regressions.txt"))
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count >= 40)
        let argumentSets: [[Any?]] = [[], ["x"], [1, "title", 2.5], [nil, ["a", "b"]]]
        for line in lines {
            for args in argumentSets {
                do {
                    let p = try Predicate(format: line, argumentArray: args)
                    _ = try? Predicate(format: p.predicateFormat)
                } catch is CoreStackError {
                } catch {
                    Issue.record("\(line.debugDescription): \(error)")
                }
            }
        }
        // Generated extremes: deep nesting must fail with a typed error, not overflow the stack.
        let deep = 10_000
        let shapes = [
            String(repeating: "(", count: deep) + "a == 1" + String(repeating: ")", count: deep),
            String(repeating: "NOT ", count: deep) + "a == 1",
            String(repeating: "!", count: deep) + "a == 1",
            "a IN " + String(repeating: "{", count: deep) + String(repeating: "}", count: deep),
            String(repeating: "SUBQUERY(b, $x, ", count: deep) + "a == 1" + String(repeating: ").@count > 0", count: deep),
            String(repeating: "(", count: deep),
            String(repeating: "a == 1 AND ", count: deep) + "a == 1",
        ]
        for s in shapes {
            do {
                _ = try Predicate(format: s)
            } catch let e as CoreStackError {
                if case .predicateSyntax = e {} else { Issue.record("\(e)") }
            }
        }
        #expect(throws: CoreStackError.self) {
            try Predicate(format: String(repeating: "(", count: 201) + "a == 1" + String(repeating: ")", count: 201))
        }
        #expect(try Predicate(format: String(repeating: "(", count: 150) + "a == 1" + String(repeating: ")", count: 150))
            == Predicate(format: "a == 1"))
    }
}
