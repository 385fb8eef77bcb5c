import CoreStack
import Foundation
import StackScope
import Testing

/// Filtering an Apple-written store by a UUID or a date from the command line: the predicate
/// format has no literal for either, so the error says what to write, and that works.
@Suite("predicate hints for UUIDs and dates")
struct PredicateHintTests {
    static let store = "alemar11-CoreDataPlus/SampleModel2_V1.sqlite"

    func dump(_ url: URL, _ entity: String, _ format: String) throws -> [DumpedObject] {
        try DumpCommand.dump(storePath: url.path, query: DumpQuery(entityName: entity, predicate: try CoreStack.Predicate(format: format)))
    }

    @Test("a UUID attribute compared with a UUID string: the error gives the CAST, and the CAST finds the book")
    func uuid() throws {
        let url = try StoreOwnModelTests.copy([Self.store])
        let id = "3AF36E86-52CC-45E2-A6CB-9CB6C9C45306"
        #expect(throws: StackScopeError.predicateNeedsCast(key: "uniqueID", type: "UUID", value: id, cast: "CAST(\"\(id)\", \"UUID\")")) {
            try dump(url, "Book", "uniqueID == \"\(id)\"")
        }
        // Through a relationship, and in an IN list, too.
        #expect(throws: StackScopeError.self) { try dump(url, "Page", "book.uniqueID IN {\"\(id)\"}") }
        let found = try dump(url, "Book", "uniqueID == CAST(\"\(id)\", \"UUID\")")
        #expect(found.map(\.objectID.primaryKey) == [11])
        // A string that is not a UUID is left to the predicate's own check.
        let other = #expect(throws: CoreStackError.self) { try dump(url, "Book", "uniqueID == \"abc\"") }
        #expect(other.map { "\($0)" }?.contains("cannot compare") == true)
    }

    @Test("a Date attribute compared with an ISO 8601 string: the error gives the seconds since 2001, and they work")
    func date() throws {
        let url = try StoreOwnModelTests.copy([Self.store])
        let error = #expect(throws: StackScopeError.self) { try dump(url, "Book", "publishedAt > \"2024-05-10T18:14:06.85Z\"") }
        let line = error.map { StackScopeErrorMessage.line(for: $0) } ?? ""
        #expect(line.contains("publishedAt is a Date") && line.contains("CAST(737057646.85, \"NSDate\")"), "\(line)")
        let later = try dump(url, "Book", "publishedAt > CAST(737057646.85, \"NSDate\")")
        let expected = try StoreOwnModelTests.sqlite3("SELECT count(*) FROM ZBOOK WHERE ZPUBLISHEDAT > 737057646.85", url)
        #expect([String(later.count)] == expected)
        #expect(throws: StackScopeError.predicateNeedsCast(
            key: "publishedAt", type: "Date", value: "2024-05-10", cast: "CAST(736992000, \"NSDate\")")) {
            try dump(url, "Book", "publishedAt >= \"2024-05-10\"")
        }
    }

    @Test("the browser's filter says the same in place")
    func browserFilter() throws {
        let url = try StoreOwnModelTests.copy([Self.store])
        let session = try BrowserSession.open(storePath: url.path, modelPath: nil, readOnly: true)
        // Wide enough for the status line to hold the whole message.
        let h = try BrowserHarness(session: session, size: Size(width: 300, height: 30), open: "Book")
        h.press("f")
        h.type("uniqueID == \"3AF36E86-52CC-45E2-A6CB-9CB6C9C45306\"")
        h.press("Enter")
        let status = h.screen.split(separator: "\n").filter { $0.contains("Filter") || $0.contains("UUID") }.joined(separator: " | ")
        #expect(status.contains("write CAST("), "\(status)")
    }
}
