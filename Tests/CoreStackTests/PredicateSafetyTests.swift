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
