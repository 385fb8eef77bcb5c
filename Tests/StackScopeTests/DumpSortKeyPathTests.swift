import CoreStack
import Foundation
import StackScope
import Testing

/// `dump --sort` with a key path through to-one relationships (`author.alias`), as a Core Data
/// sort descriptor allows, on an Apple-written store opened with the model it carries.
@Suite("dump --sort key paths")
struct DumpSortKeyPathTests {
    static let store = "alemar11-CoreDataPlus/SampleModel2_V1.sqlite"

    @Test("--sort author.alias,title orders the books by their author's alias, as sqlite3 does")
    func sortsThroughToOne() throws {
        let url = try StoreOwnModelTests.copy([Self.store])
        let objects = try DumpCommand.dump(
            storePath: url.path,
            query: DumpQuery(entityName: "Book", sort: try DumpSort.parse("-author.alias,title"), limit: 6))
        let expected = try StoreOwnModelTests.sqlite3(
            "SELECT b.Z_PK FROM ZBOOK b LEFT JOIN ZWRITER w ON b.ZAUTHOR = w.Z_PK ORDER BY w.ZALIAS DESC, b.ZTITLE, b.Z_PK LIMIT 6", url)
        #expect(objects.compactMap { $0.objectID.primaryKey.map(String.init) } == expected)
        #expect(DumpCommand.renderText(objects, query: DumpQuery(entityName: "Book", sort: try DumpSort.parse("-author.alias")))
            .hasSuffix("sorted by author.alias descending"))
    }

    @Test("a key path through a to-many relationship or an unknown step is refused, naming the step")
    func badKeyPaths() throws {
        let url = try StoreOwnModelTests.copy([Self.store])
        func message(_ sort: String) -> String {
            let error = #expect(throws: StackScopeError.self) {
                try DumpCommand.dump(storePath: url.path, query: DumpQuery(entityName: "Book", sort: try DumpSort.parse(sort)))
            }
            return error.map { StackScopeErrorMessage.line(for: $0) } ?? ""
        }
        let toMany = message("pages.number")
        #expect(toMany.contains("\"pages.number\"") && toMany.contains("pages") && toMany.contains("to-many"))
        let unknown = message("author.nope")
        #expect(unknown.contains("\"author.nope\"") && unknown.contains("no attribute named \"nope\"") && unknown.contains("alias"))
        let endsOnRelationship = message("author.books")
        #expect(endsOnRelationship.contains("books") && endsOnRelationship.contains("to-many"))
        let throughUnknown = message("writer.alias")
        #expect(throughUnknown.contains("no to-one relationship named \"writer\"") && throughUnknown.contains("author"))
    }
}
