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
}
