import Foundation
import Testing

@testable import CoreStack

/// A batch update binds its values as a save does (`SQLiteRawBinding`), not through GRDB, whose
/// string binding stops at the first NUL character.
@Suite struct BatchUpdateBindingTests {
    @Test("a batch update keeps a string's bytes after a NUL character, as a save does (before, the column held the part before it)")
    func stringWithNUL() throws {
        let lib = try LibraryStore()
        let id = try lib.insert("Book", ["title": "Dune", "pages": 412])
        let book = lib.entity("Book")
        let title = try #require(book.attributeSlots["title"])
        let pages = try #require(book.attributeSlots["pages"])
        _ = try lib.store.executeBatchUpdate(StoreFetchRequest(entity: book), values: [title: "a\u{0}b", pages: 7])
        let row = try lib.requireRow(id)
        #expect(row.snapshot.values[title] == .string("a\u{0}b"))
        #expect(row.snapshot.values[pages] == .integer(7))
        #expect(row.snapshot.version == 2)
        #expect(try RawSQLite.run("SELECT hex(ZTITLE) AS h FROM ZBOOK", in: lib.url).first?["h"] as? String == "610062")
    }
}
