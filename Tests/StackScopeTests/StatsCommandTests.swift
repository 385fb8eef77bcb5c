import CoreStack
import Foundation
import StackScope
import Testing

/// `stackscope stats`: a column's figures on the demo store, agreeing with counts made by fetches.
@Suite struct StatsCommandTests {
    @Test("stats of Book.pages agree with fetch counts (objects, nil), the text shows the sections and the JSON parses with the same figures")
    func pagesAgreeWithFetches() throws {
        let (url, _) = try TestSupport.demoStore(size: 60)
        let stats = try StatsCommand.statistics(storePath: url.path, modelPath: nil, entity: "Book", property: "pages")
        let session = try StoreSession.open(storePath: url.path, modelPath: nil)
        defer { session.close() }
        let context = session.context
        let (all, none) = try context.performAndWait {
            (try context.count(for: FetchRequest<ManagedObject>(entityName: "Book")),
             try context.count(for: FetchRequest<ManagedObject>(entityName: "Book", predicate: try Predicate(format: "pages == nil"))))
        }
        #expect(stats.rowCount == all)
        #expect(stats.nullCount == none)
        #expect(stats.histogram.map(\.count).reduce(0, +) == all - none)
        let text = StatsCommand.renderText(stats)
        #expect(text.hasPrefix("Book.pages\nObjects:   \(all)\n"))
        #expect(text.contains("Most common") && text.contains("Histogram"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(StatsCommand.renderJSON(stats).utf8)) as? [String: Any])
        #expect(json["objects"] as? Int == all)
        #expect((json["histogram"] as? [Any])?.count == 10)
    }

    @Test("--predicate narrows the objects; an unknown entity or property is a clear error")
    func predicateAndErrors() throws {
        let (url, _) = try TestSupport.demoStore(size: 60)
        let all = try StatsCommand.statistics(storePath: url.path, modelPath: nil, entity: "Book", property: "pages")
        let some = try StatsCommand.statistics(
            storePath: url.path, modelPath: nil, entity: "Book", property: "pages", predicate: try Predicate(format: "pages > 500"))
        #expect(some.rowCount < all.rowCount)
        if case let .attribute(.integer(low))? = some.minimum { #expect(low > 500) } else { Issue.record("no minimum: \(some)") }
        #expect(throws: StackScopeError.self) { try StatsCommand.run(storePath: url.path, modelPath: nil, entity: "Nope", property: "x") }
        #expect(throws: CoreStackError.unknownKey(entity: "Book", key: "nope")) {
            try StatsCommand.run(storePath: url.path, modelPath: nil, entity: "Book", property: "nope")
        }
    }
}
