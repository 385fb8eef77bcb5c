import CoreStackModel
import Foundation
import Testing

/// ModelMacro.md (in the DocC catalog)'s model, declared with the macro.
private enum DocModel {
    @Entity final class Author: ManagedObject {
        @Unique var name: String
        var born: Date?
        @Relationship(inverse: "authors") var books: Set<Book>
    }

    @Entity final class Book: ManagedObject {
        @Indexed var title: String
        @AttributeOptions(minValue: 1, maxValue: 10_000) var pages: Int32? = 100
        @AttributeOptions(externalStorage: true) var cover: Data?
        @Relationship(inverse: \Author.books) var authors: Set<Author>
        @Relationship(inverse: \Chapter.book, deleteRule: .cascade) var chapters: [Chapter]
    }

    @Entity final class Chapter: ManagedObject {
        var title: String
        @Relationship(inverse: "chapters") var book: Book?
    }
}

@Suite("ModelMacro.md: the same model in both styles")
struct ModelMacroDocTests {
    @Test("the macro classes and the builder give the same entities and version hashes")
    func bothStyles() throws {
        let declared = try ManagedObjectModel(declaring: DocModel.Author.self, DocModel.Book.self, DocModel.Chapter.self)
        let built = try ManagedObjectModel {
            EntityDescription("Author", uniquenessConstraints: [["name"]]) {
                AttributeDescription("name", .string, isOptional: false)
                AttributeDescription("born", .date)
                RelationshipDescription("books", destination: "Book", inverse: "authors", toMany: true)
            }
            EntityDescription("Book") {
                AttributeDescription("title", .string, isOptional: false, isIndexed: true)
                AttributeDescription("pages", .integer32, defaultValue: 100, minValue: 1, maxValue: 10_000)
                AttributeDescription("cover", .binaryData, allowsExternalBinaryDataStorage: true)
                RelationshipDescription("authors", destination: "Author", inverse: "books", toMany: true)
                RelationshipDescription(
                    "chapters", destination: "Chapter", inverse: "book", toMany: true, isOrdered: true, deleteRule: .cascade)
            }
            EntityDescription("Chapter") {
                AttributeDescription("title", .string, isOptional: false)
                RelationshipDescription("book", destination: "Book", inverse: "chapters")
            }
        }
        try expectSameEntities(declared, built)
        #expect(declared.entity(forClass: DocModel.Book.self)?.name == "Book")
    }
}
