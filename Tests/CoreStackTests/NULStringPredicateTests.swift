import Foundation
import Testing

@testable import CoreStack

/// A string holding a NUL character is saved whole, as text; a predicate comparing a string
/// attribute with such a string finds it. The compiler binds the string as a BLOB (GRDB would bind
/// text only up to the NUL) and compares it as text again; before, `=` and `IN` never matched it.
@Suite struct NULStringPredicateTests {
    static let nul = "a\u{0}b"

    /// A library store with the books "a", "a\0b" and "b".
    static func library() throws -> LibraryStore {
        let lib = try LibraryStore()
        for title in ["a", nul, "b"] { _ = try lib.insert("Book", ["title": .string(title)]) }
        return lib
    }

    static func titles(_ lib: LibraryStore, _ predicate: CoreStack.Predicate) throws -> [String] {
        let book = lib.entity("Book")
        let slot = book.attributeSlots["title"] ?? 0
        return try lib.store.fetch(StoreFetchRequest(entity: book, predicate: predicate)).map { $0.snapshot.values[slot].stringValue ?? "" }
    }

    @Test("== and != with a string holding NUL match the saved string, and only it")
    func equality() throws {
        let lib = try Self.library()
        #expect(try Self.titles(lib, .key("title") == .string(Self.nul)) == [Self.nul])
        #expect(try Self.titles(lib, .key("title") == "a") == ["a"])
        #expect(try Self.titles(lib, .key("title") != .string(Self.nul)) == ["a", "b"])
        #expect(try lib.store.count(StoreFetchRequest(entity: lib.entity("Book"), predicate: .key("title") == .string(Self.nul))) == 1)
    }

    @Test("IN with a string holding NUL matches it, in a short list and in a long one (bound as JSON)")
    func inList() throws {
        let lib = try Self.library()
        #expect(try Self.titles(lib, .key("title").in([.string(Self.nul), "zz"])) == [Self.nul])
        let long: [AttributeValue] = [.string(Self.nul), "b"] + (0..<40).map { .string("x\($0)") }
        #expect(try Self.titles(lib, .key("title").in(long)) == [Self.nul, "b"])
    }
}
