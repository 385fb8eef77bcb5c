import Foundation
import TestSupportKit
import Testing
@testable import CoreStack

final class Author: ManagedObject {
    @Attribute("name") var name: String
    @Attribute("born") var born: Date?
    @ToMany("books") var books: Set<Book>
}

class Book: ManagedObject {
    @Attribute("title") var title: String
    @Attribute("pages") var pages: Int
    @Attribute("price") var price: Double?
    @Attribute("isbn") var isbn: UUID?
    @ToOne("publisher") var publisher: Publisher?
    @ToMany("authors") var authors: Set<Author>
    @OrderedToMany("chapters") var chapters: [Chapter]
}

final class GraphicNovel: Book {
    @Attribute("illustrator") var illustrator: String?
}

final class Publisher: ManagedObject {
    @Attribute("name") var name: String
    @ToMany("books") var books: Set<Book>
}

final class Chapter: ManagedObject {
    @Attribute("title") var title: String
    @ToOne("book") var book: Book?
}

/// A small library model used across the engine tests.
enum LibraryModel {
    static func make() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionName: "Library") {
            EntityDescription("Author", class: Author.self) {
                AttributeDescription("name", .string, isOptional: false, maxValue: 100)
                AttributeDescription("born", .date)
                RelationshipDescription("books", destination: "Book", inverse: "authors", toMany: true)
            }
            EntityDescription("Book", class: Book.self) {
                AttributeDescription("title", .string, isOptional: false)
                AttributeDescription("pages", .integer32, isOptional: false, defaultValue: 0, minValue: 0)
                AttributeDescription("price", .double)
                AttributeDescription("isbn", .uuid)
                RelationshipDescription("publisher", destination: "Publisher", inverse: "books")
                RelationshipDescription("authors", destination: "Author", inverse: "books", toMany: true)
                RelationshipDescription(
                    "chapters", destination: "Chapter", inverse: "book", toMany: true, isOrdered: true, deleteRule: .cascade)
            }
            EntityDescription("GraphicNovel", parent: "Book", class: GraphicNovel.self) {
                AttributeDescription("illustrator", .string)
            }
            EntityDescription("Publisher", class: Publisher.self) {
                AttributeDescription("name", .string, isOptional: false)
                RelationshipDescription("books", destination: "Book", inverse: "publisher", toMany: true, deleteRule: .deny)
            }
            EntityDescription("Chapter", class: Chapter.self) {
                AttributeDescription("title", .string, isOptional: false)
                RelationshipDescription("book", destination: "Book", inverse: "chapters")
            }
        }
    }
}

/// The stores the engine tests run against.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case inMemory
    case sqlite

    var testDescription: String { rawValue }
}

/// A coordinator with one store and a root context.
struct TestStack {
    /// A stack on a fresh store of the given kind (SQLite in a new temporary folder).
    init(_ kind: StoreKind, model: ManagedObjectModel? = nil) throws {
        switch kind {
        case .inMemory:
            try self.init(model: model)
        case .sqlite:
            let dir = try TemporaryRoot.folder("sqlite")
            let url = dir.appendingPathComponent("Test.sqlite")
            try self.init(model: model) { try SQLiteStore(url: url, model: $0) }
        }
    }

    let model: ManagedObjectModel
    let coordinator: PersistentStoreCoordinator
    let context: ManagedObjectContext

    init(model: ManagedObjectModel? = nil, store: ((ManagedObjectModel) throws -> any PersistentStore)? = nil) throws {
        let model = try model ?? LibraryModel.make()
        self.model = model
        coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(try store?(model) ?? InMemoryStore(model: model))
        context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: "root")
    }

    func newContext(_ name: String = "other") -> ManagedObjectContext {
        ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: name)
    }
}
