import Foundation
import Testing

@testable import CoreStack

@Suite("Key paths to property names")
struct PropertyKeyPathTests {
    @Test("wrapped attributes and relationships map to their model keys")
    func wrappedProperties() throws {
        #expect(try PropertyKeyPath.name(of: \PBook.title) == "title")
        #expect(try PropertyKeyPath.name(of: \PBook.pages) == "pages")
        #expect(try PropertyKeyPath.name(of: \PBook.tagline) == "subtitle")
        #expect(try PropertyKeyPath.name(of: \PBook.publisher) == "publisher")
        #expect(try PropertyKeyPath.name(of: \PBook.authors) == "authors")
        #expect(try PropertyKeyPath.name(of: \PBook.chapters) == "chapters")
        #expect(try PropertyKeyPath.name(of: \PChapter.number) == "number")
        #expect(try PropertyKeyPath.names(of: [\PAuthor.name, \PAuthor.books]) == ["name", "books"])
    }

    @Test("a computed property, a plain stored property and a path through a relationship are refused, naming the key path")
    func refused() {
        for (keyPath, fragment) in [(\PBook.initial as AnyKeyPath, "read-only"), (\PBook.scratch, "names no property"), (\PBook.publisher?.name, "read-only")] {
            #expect {
                try PropertyKeyPath.name(ofAny: keyPath)
            } throws: { error in
                guard case let CoreStackError.unsupportedPredicate(part, reason) = error else { return false }
                return part.contains("PBook") && reason.contains(fragment)
            }
        }
    }

    @Test("objectID is the object itself")
    func objectID() throws {
        #expect(try PropertyKeyPath.resolve(\PBook.objectID) == .objectID)
    }

    @Test("a class with a key-path table is looked up in it, not probed")
    func table() throws {
        #expect(try PropertyKeyPath.name(of: \TabledNote.body) == "text")
        // A key path the table leaves out is probed.
        #expect(try PropertyKeyPath.name(of: \TabledNote.unlisted) == "unlisted")
    }
}

/// Its table names `body` "text" although the wrapper says "body": the table wins.
final class TabledNote: ManagedObject, PropertyKeyPathTable {
    @Attribute("body") var body: String
    @Attribute("unlisted") var unlisted: String
    static var propertyKeyPaths: [PartialKeyPath<TabledNote>: String] { [\TabledNote.body: "text"] }
}
