import CoreStack
import Foundation

/// The demo library: a small model of books, people, publishers, genres and chapters, and a
/// generator that fills a store with deterministic sample data (see ``DemoLibrary/create(at:size:files:progress:)``).
///
/// Entities (Core Data numbering): Book 1, GraphicNovel 2 (< Book), Chapter 3, Genre 4,
/// Person 5 (abstract), Author 6 (< Person), Editor 7 (< Person), Publisher 8.
///
/// ```swift
/// let model = try DemoLibrary.model()
/// model.entity(named: "GraphicNovel")?.superentity?.name // "Book"
/// ```
public enum DemoLibrary {
    /// The version name the demo model carries (and `stackscope info` reports).
    public static let versionName = "DemoLibrary"
    /// The demo model's version identifier.
    public static let versionIdentifier = "1"

    /// Builds the demo model. Each call returns a new model with the same entities and version hashes.
    public static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionName: versionName, versionIdentifiers: [versionIdentifier]) {
            EntityDescription("Book", class: Book.self) {
                AttributeDescription("title", .string, isOptional: false, isIndexed: true)  // the browser and `dump --sort title` sort by it
                AttributeDescription("isbn", .string)
                AttributeDescription("pages", .integer32, defaultValue: 100, minValue: 1, maxValue: 10_000)
                AttributeDescription("wordCount", .integer64, defaultValue: 0)
                AttributeDescription("edition", .integer16, defaultValue: 1, minValue: 1, maxValue: 99)
                AttributeDescription("price", .decimal)
                AttributeDescription("rating", .double, defaultValue: 0.0, minValue: 0.0, maxValue: 5.0)
                AttributeDescription("published", .date)
                AttributeDescription("inPrint", .boolean, defaultValue: true)
                AttributeDescription("uuid", .uuid)
                AttributeDescription("cover", .binaryData)
                AttributeDescription("homepage", .uri)
                RelationshipDescription("publisher", destination: "Publisher", inverse: "books")
                RelationshipDescription("authors", destination: "Author", inverse: "books", toMany: true)
                RelationshipDescription("genres", destination: "Genre", inverse: "books", toMany: true)
                RelationshipDescription("editor", destination: "Editor", inverse: "editedBooks")
                RelationshipDescription(
                    "chapters", destination: "Chapter", inverse: "book", toMany: true, isOrdered: true,
                    deleteRule: .cascade)
            }
            EntityDescription("GraphicNovel", parent: "Book", class: GraphicNovel.self) {
                AttributeDescription("illustrator", .string)
                AttributeDescription("inColour", .boolean, defaultValue: true)
            }
            EntityDescription("Chapter", class: Chapter.self) {
                AttributeDescription("title", .string, isOptional: false)
                AttributeDescription("number", .integer16, defaultValue: 0)
                AttributeDescription("wordCount", .integer32, defaultValue: 0)
                RelationshipDescription("book", destination: "Book", inverse: "chapters")
            }
            EntityDescription("Genre", class: Genre.self) {
                AttributeDescription("name", .string, isOptional: false)
                AttributeDescription("code", .integer16, defaultValue: 0)
                RelationshipDescription("books", destination: "Book", inverse: "genres", toMany: true)
            }
            EntityDescription("Person", isAbstract: true, class: Person.self) {
                AttributeDescription("name", .string, isOptional: false)
                AttributeDescription("born", .date)
                AttributeDescription("email", .string)
            }
            EntityDescription("Author", parent: "Person", class: Author.self) {
                AttributeDescription("website", .uri)
                AttributeDescription("rating", .double, defaultValue: 0.0)
                RelationshipDescription("books", destination: "Book", inverse: "authors", toMany: true)
            }
            EntityDescription("Editor", parent: "Person", class: Editor.self) {
                AttributeDescription("yearsActive", .integer16, defaultValue: 0)
                RelationshipDescription("editedBooks", destination: "Book", inverse: "editor", toMany: true)
            }
            EntityDescription("Publisher", class: Publisher.self) {
                AttributeDescription("name", .string, isOptional: false)
                AttributeDescription("city", .string)
                AttributeDescription("founded", .integer16, defaultValue: 0)
                AttributeDescription("uuid", .uuid)
                RelationshipDescription("books", destination: "Book", inverse: "publisher", toMany: true, deleteRule: .deny)
            }
        }
    }

    /// Whether a store's recorded version hashes are those of the demo model.
    public static func matches(_ metadata: StoreMetadata) -> Bool {
        guard let model = try? model() else { return false }
        return metadata.versionHashes == model.entityVersionHashes
    }

    // MARK: Classes

    /// A book (entity `Book`).
    public class Book: ManagedObject {
        /// The title.
        @Attribute("title") public var title: String
        /// The ISBN, if known.
        @Attribute("isbn") public var isbn: String?
        /// The number of pages.
        @Attribute("pages") public var pages: Int32
        /// The number of words.
        @Attribute("wordCount") public var wordCount: Int64
        /// The edition number.
        @Attribute("edition") public var edition: Int16
        /// The price, if known.
        @Attribute("price") public var price: Decimal?
        /// The rating.
        @Attribute("rating") public var rating: Double
        /// The publication date, if known.
        @Attribute("published") public var published: Date?
        /// Whether the book is in print.
        @Attribute("inPrint") public var inPrint: Bool
        /// A unique identifier, if set.
        @Attribute("uuid") public var uuid: UUID?
        /// The cover image data, if any.
        @Attribute("cover") public var cover: Data?
        /// The book's web page, if any.
        @Attribute("homepage") public var homepage: URL?
        /// The publisher (inverse of `Publisher.books`).
        @ToOne("publisher") public var publisher: Publisher?
        /// The editor (inverse of `Editor.editedBooks`).
        @ToOne("editor") public var editor: Editor?
        /// The authors (inverse of `Author.books`).
        @ToMany("authors") public var authors: Set<Author>
        /// The genres (inverse of `Genre.books`).
        @ToMany("genres") public var genres: Set<Genre>
        /// The chapters, in order (inverse of `Chapter.book`).
        @OrderedToMany("chapters") public var chapters: [Chapter]
    }

    /// A graphic novel (entity `GraphicNovel`, a sub-entity of `Book`).
    public final class GraphicNovel: Book {
        /// The illustrator, if known.
        @Attribute("illustrator") public var illustrator: String?
        /// Whether the pages are in colour.
        @Attribute("inColour") public var inColour: Bool
    }

    /// A chapter of one book (entity `Chapter`), kept in order by `Book.chapters`.
    public final class Chapter: ManagedObject {
        /// The chapter title.
        @Attribute("title") public var title: String
        /// The chapter number.
        @Attribute("number") public var number: Int16
        /// The number of words in the chapter.
        @Attribute("wordCount") public var wordCount: Int32
        /// The book the chapter belongs to (inverse of `Book.chapters`).
        @ToOne("book") public var book: Book?
    }

    /// A genre (entity `Genre`); many-to-many with books.
    public final class Genre: ManagedObject {
        /// The genre name.
        @Attribute("name") public var name: String
        /// A numeric code for the genre.
        @Attribute("code") public var code: Int16
        /// The books of this genre (inverse of `Book.genres`).
        @ToMany("books") public var books: Set<Book>
    }

    /// A person (abstract entity `Person`).
    public class Person: ManagedObject {
        /// The person's name.
        @Attribute("name") public var name: String
        /// The date of birth, if known.
        @Attribute("born") public var born: Date?
        /// The e-mail address, if known.
        @Attribute("email") public var email: String?
    }

    /// An author (entity `Author`, a sub-entity of `Person`); many-to-many with books.
    public final class Author: Person {
        /// The author's web site, if any.
        @Attribute("website") public var website: URL?
        /// The author's rating.
        @Attribute("rating") public var rating: Double
        /// The books by this author (inverse of `Book.authors`).
        @ToMany("books") public var books: Set<Book>
    }

    /// An editor (entity `Editor`, a sub-entity of `Person`); edits many books.
    public final class Editor: Person {
        /// The number of years the editor has worked.
        @Attribute("yearsActive") public var yearsActive: Int16
        /// The books this editor edited (inverse of `Book.editor`).
        @ToMany("editedBooks") public var editedBooks: Set<Book>
    }

    /// A publisher (entity `Publisher`); one-to-many with books.
    public final class Publisher: ManagedObject {
        /// The publisher's name.
        @Attribute("name") public var name: String
        /// The city, if known.
        @Attribute("city") public var city: String?
        /// The year the publisher was founded.
        @Attribute("founded") public var founded: Int16
        /// A unique identifier, if set.
        @Attribute("uuid") public var uuid: UUID?
        /// The books published (inverse of `Book.publisher`).
        @ToMany("books") public var books: Set<Book>
    }
}
