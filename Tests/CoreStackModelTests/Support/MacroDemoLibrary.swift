import CoreStackModel
import Foundation

/// The demo library (StackScope's `DemoLibrary`) declared once, with `@Entity`: the same entities,
/// attributes, relationships, inverses and delete rules as `DemoLibrary.model()` and its
/// `.xcdatamodeld` (Tests/Fixtures/models/demo), so the version hashes must match.
///
/// The demo's scalar attributes are optional in the model (Xcode's default), so they are declared
/// optional here too (`Int32?`): a Swift type's optionality is the attribute's. Book names its
/// relationships' inverses by key path; the other side names Book's by name (two key paths naming
/// each other are a circular reference for the compiler). Book and Person have sub-entities, so
/// they are `@ParentEntity` classes.
enum MacroDemoLibrary {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(
            declaring: Book.self, GraphicNovel.self, Chapter.self, Genre.self, Person.self, Author.self, Editor.self, Publisher.self,
            versionName: "DemoLibrary", versionIdentifiers: ["1"])
    }

    @ParentEntity
    class Book: ManagedObject {
        @Indexed var title: String
        var isbn: String?
        @AttributeOptions(minValue: 1, maxValue: 10_000) var pages: Int32? = 100
        var wordCount: Int64? = 0
        @AttributeOptions(minValue: 1, maxValue: 99) var edition: Int16? = 1
        var price: Decimal?
        @AttributeOptions(minValue: 0, maxValue: 5) var rating: Double? = 0
        var published: Date?
        var inPrint: Bool? = true
        var uuid: UUID?
        var cover: Data?
        var homepage: URL?
        @Relationship(inverse: \Publisher.books) var publisher: Publisher?
        @Relationship(inverse: \Author.books) var authors: Set<Author>
        @Relationship(inverse: \Genre.books) var genres: Set<Genre>
        @Relationship(inverse: \Editor.editedBooks) var editor: Editor?
        @Relationship(inverse: \Chapter.book, deleteRule: .cascade) var chapters: [Chapter]
    }

    @Entity
    final class GraphicNovel: Book {
        var illustrator: String?
        var inColour: Bool? = true
    }

    @Entity
    final class Chapter: ManagedObject {
        var title: String
        var number: Int16? = 0
        var wordCount: Int32? = 0
        @Relationship(inverse: "chapters") var book: Book?
    }

    @Entity
    final class Genre: ManagedObject {
        var name: String
        var code: Int16? = 0
        @Relationship(inverse: "genres") var books: Set<Book>
    }

    @ParentEntity(isAbstract: true)
    class Person: ManagedObject {
        var name: String
        var born: Date?
        var email: String?
    }

    @Entity
    final class Author: Person {
        var website: URL?
        var rating: Double? = 0
        @Relationship(inverse: "authors") var books: Set<Book>
    }

    @Entity
    final class Editor: Person {
        var yearsActive: Int16? = 0
        @Relationship(inverse: "editor") var editedBooks: Set<Book>
    }

    @Entity
    final class Publisher: ManagedObject {
        var name: String
        var city: String?
        var founded: Int16? = 0
        var uuid: UUID?
        @Relationship(inverse: "publisher", deleteRule: .deny) var books: Set<Book>
    }
}
