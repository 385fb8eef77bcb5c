import CoreStack
import Foundation
import StackScope
import Testing

@Suite("dump --predicate")
struct PredicateOptionTests {
    @Test("a predicate narrows the dump to the matching objects, through relationships too")
    func filters() throws {
        let (url, _) = try TestSupport.demoStore()
        func value(_ o: DumpedObject, _ key: String) -> AttributeValue? { o.attributes.first { $0.name == key }?.value }
        let all = try DumpCommand.dump(storePath: url.path, query: DumpQuery(entityName: "Book"))
        let long = try DumpCommand.dump(
            storePath: url.path, query: DumpQuery(entityName: "Book", predicate: try CoreStack.Predicate(format: "pages > %d", 400)))
        // Each dump opens its own session (its own model), so IDs are compared by URI.
        let expected = all.filter { (value($0, "pages")?.integerValue ?? 0) > 400 }.map { $0.objectID.uriRepresentation() }
        #expect(!expected.isEmpty && expected.count < all.count)
        #expect(long.map { $0.objectID.uriRepresentation() } == expected)
        let chapters = try DumpCommand.dump(
            storePath: url.path,
            query: DumpQuery(entityName: "Chapter", predicate: try CoreStack.Predicate(format: "book.pages > 400")))
        let longIDs = Set(expected)
        #expect(!chapters.isEmpty)
        for c in chapters {
            guard case let .toOne(book?) = c.relationships.first(where: { $0.name == "book" })?.target else {
                Issue.record("chapter without a book")
                continue
            }
            #expect(longIDs.contains(book.uriRepresentation()))
        }
    }

    @Test("an unknown key in the predicate is a clear error")
    func unknownKey() throws {
        let (url, _) = try TestSupport.demoStore(size: 40)
        #expect(throws: CoreStackError.unknownKey(entity: "Book", key: "nope")) {
            try DumpCommand.dump(storePath: url.path, query: DumpQuery(entityName: "Book", predicate: try CoreStack.Predicate(format: "nope == 1")))
        }
    }

    @Test("ANY on a to-one is refused before any SQL; IN with 100,000 values runs in the store")
    func toOneModifierAndHugeIn() throws {
        let (url, _) = try TestSupport.demoStore(size: 100)
        do {
            _ = try DumpCommand.dump(
                storePath: url.path, query: DumpQuery(entityName: "Book", predicate: try CoreStack.Predicate(format: "ANY publisher.name == 'x'")))
            Issue.record("ANY on a to-one was accepted")
        } catch let CoreStackError.invalidPredicate(message) {
            #expect(message.hasPrefix("ANY needs a to-many relationship in its key path, but \"publisher.name\" of Book"))
        }
        func pages(_ o: DumpedObject) -> Int64? { o.attributes.first { $0.name == "pages" }?.value.integerValue }
        let all = try DumpCommand.dump(storePath: url.path, query: DumpQuery(entityName: "Book"))
        let evens = (0..<100_000).map { $0 * 2 }
        let expected = all.filter { pages($0).map { $0 >= 0 && $0 < 200_000 && $0 % 2 == 0 } ?? false }.map { $0.objectID.uriRepresentation() }
        #expect(!expected.isEmpty && expected.count < all.count)
        let found = try DumpCommand.dump(
            storePath: url.path, query: DumpQuery(entityName: "Book", predicate: try CoreStack.Predicate(format: "pages IN %@", evens)))
        #expect(found.map { $0.objectID.uriRepresentation() } == expected)
    }

    @Test("stackscope dump --predicate reports malformed predicates with their column, and runs a 5,000-value IN",
          .enabled(if: StackScopeBinary.url != nil, "the stackscope binary was not built"))
    func binaryErrors() throws {
        let (url, _) = try TestSupport.demoStore(size: 40)
        let cases: [(String, String)] = [
            ("title MATCHES \"(\"", "MATCHES needs a valid regular expression (ICU syntax); \"(\" is not one at column 15"),
            ("pages > 1e999999", "the number 1e999999 is out of range"),
            ("lowercase(title) == 'x'", "unknown function \"lowercase\""),
            (String(repeating: "(", count: 100_000), "nested more than"),
        ]
        for (predicate, says) in cases {
            let r = try StackScopeBinary.run(["dump", url.path, "--entity", "Book", "--predicate", predicate])
            #expect(r.status != 0 && r.status < 128, "\(r.status)")
            #expect(r.stderr.contains(says), "\(r.stderr)")
            #expect(r.stderr.count < 400, "\(r.stderr.prefix(400))")
        }
        // A negative limit or offset is a usage error of its own (argument-parser's convention: exit 64).
        for (option, value) in [("--limit", "-1"), ("--offset", "-5")] {
            let r = try StackScopeBinary.run(["dump", url.path, "--entity", "Book", option, value])
            #expect(r.status == 64, "\(option) \(value): \(r.status)")
            #expect(r.stderr.contains("\(option) must be \(option == "--limit" ? 1 : 0) or more, not \(value)"), "\(r.stderr)")
        }
        let list = (0..<5_000).map { String($0 * 2) }.joined(separator: ", ")
        let r = try StackScopeBinary.run(["dump", url.path, "--entity", "Book", "--predicate", "pages IN {\(list)}"])
        #expect(r.status == 0, "\(r.stderr)")
    }
}
