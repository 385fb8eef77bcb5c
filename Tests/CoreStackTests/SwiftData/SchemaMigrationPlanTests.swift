import Foundation
import Testing
@testable import CoreStack

// Three versions of a one-entity model, each class declared as the model macro declares it.

enum ShelfV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Book.self] }

    final class Book: ManagedObject, DeclaredEntity, PropertyKeyPathTable {
        var title: String {
            get { value(ofAttribute: "title") }
            set { setValue(newValue, ofAttribute: "title") }
        }
        var pages: Int {
            get { value(ofAttribute: "pages") }
            set { setValue(newValue, ofAttribute: "pages") }
        }
        static var entityDescription: EntityDescription {
            EntityDescription("Book", class: Book.self) {
                AttributeDescription("title", .string, isOptional: false)
                AttributeDescription("pages", .integer64)
            }
        }
        static var propertyKeyPaths: [PartialKeyPath<Book>: String] { [\Book.title: "title", \Book.pages: "pages"] }
    }
}

/// V2 adds an optional `subtitle`: a lightweight stage.
enum ShelfV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Book.self] }

    final class Book: ManagedObject, DeclaredEntity, PropertyKeyPathTable {
        var title: String {
            get { value(ofAttribute: "title") }
            set { setValue(newValue, ofAttribute: "title") }
        }
        var pages: Int {
            get { value(ofAttribute: "pages") }
            set { setValue(newValue, ofAttribute: "pages") }
        }
        var subtitle: String? {
            get { value(ofAttribute: "subtitle") }
            set { setValue(newValue, ofAttribute: "subtitle") }
        }
        static var entityDescription: EntityDescription {
            EntityDescription("Book", class: Book.self) {
                AttributeDescription("title", .string, isOptional: false)
                AttributeDescription("pages", .integer64)
                AttributeDescription("subtitle", .string)
            }
        }
        static var propertyKeyPaths: [PartialKeyPath<Book>: String] {
            [\Book.title: "title", \Book.pages: "pages", \Book.subtitle: "subtitle"]
        }
    }
}

/// V3 adds a required `slug` without a default: inference cannot fill it, a custom stage does.
enum ShelfV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [Book.self] }

    final class Book: ManagedObject, DeclaredEntity, PropertyKeyPathTable {
        var title: String {
            get { value(ofAttribute: "title") }
            set { setValue(newValue, ofAttribute: "title") }
        }
        var pages: Int {
            get { value(ofAttribute: "pages") }
            set { setValue(newValue, ofAttribute: "pages") }
        }
        var subtitle: String? {
            get { value(ofAttribute: "subtitle") }
            set { setValue(newValue, ofAttribute: "subtitle") }
        }
        var slug: String {
            get { value(ofAttribute: "slug") }
            set { setValue(newValue, ofAttribute: "slug") }
        }
        static var entityDescription: EntityDescription {
            EntityDescription("Book", class: Book.self) {
                AttributeDescription("title", .string, isOptional: false)
                AttributeDescription("pages", .integer64)
                AttributeDescription("subtitle", .string)
                AttributeDescription("slug", .string, isOptional: false)
            }
        }
        static var propertyKeyPaths: [PartialKeyPath<Book>: String] {
            [\Book.title: "title", \Book.pages: "pages", \Book.subtitle: "subtitle", \Book.slug: "slug"]
        }
    }
}

/// What the custom stage's two closures saw (they run on the migration's queue).
final class StageRecord: Sendable {
    private let seen = LockedValue<(before: [String], filled: Int)>(([], 0))
    func read(_ titles: [String]) { seen.withLock { $0.before = titles } }
    func filled(_ n: Int) { seen.withLock { $0.filled = n } }
    var before: [String] { seen.withLock { $0.before } }
    var filledCount: Int { seen.withLock { $0.filled } }
}

enum ShelfPlan: SchemaMigrationPlan {
    static let record = StageRecord()
    static var schemas: [any VersionedSchema.Type] { [ShelfV1.self, ShelfV2.self, ShelfV3.self] }
    static var stages: [MigrationStage] {
        [
            .lightweight(fromVersion: ShelfV1.self, toVersion: ShelfV2.self),
            .custom(
                fromVersion: ShelfV2.self, toVersion: ShelfV3.self,
                willMigrate: { context in
                    let books = try context.fetch(FetchDescriptor<ShelfV2.Book>(sortBy: [Foundation.SortDescriptor(\ShelfV2.Book.title)]))
                    record.read(books.map(\.title))
                },
                didMigrate: { context in
                    let books = try context.fetch(FetchDescriptor<ShelfV3.Book>())
                    for book in books { book.slug = book.title.lowercased().replacingOccurrences(of: " ", with: "-") }
                    record.filled(books.count)
                }),
        ]
    }
}

/// The same versions, with a custom stage whose code fails.
enum FailingShelfPlan: SchemaMigrationPlan {
    struct Refused: Error {}
    static var schemas: [any VersionedSchema.Type] { [ShelfV1.self, ShelfV2.self, ShelfV3.self] }
    static var stages: [MigrationStage] {
        [
            .lightweight(fromVersion: ShelfV1.self, toVersion: ShelfV2.self),
            .custom(fromVersion: ShelfV2.self, toVersion: ShelfV3.self, willMigrate: nil, didMigrate: { _ in throw Refused() }),
        ]
    }
}

@Suite("SwiftData's shape: SchemaMigrationPlan's lightweight and custom stages on a real store file",
       .enabled(if: SwiftDataSupport.hasSQLite3, "needs /usr/bin/sqlite3"))
@MainActor
struct SchemaMigrationPlanTests {
    /// A V1 store of five books.
    private func v1Store() throws -> URL {
        let url = try SwiftDataSupport.newStoreURL("Shelf.store")
        let container = try ModelContainer(for: Schema(versionedSchema: ShelfV1.self), configurations: [ModelConfiguration(url: url)])
        let context = ModelContext(container)
        for (i, title) in ["Dune", "Emma", "The Hobbit", "Ulysses", "Middlemarch"].enumerated() {
            let book = try context.insert(ShelfV1.Book.self)
            book.title = title
            book.pages = (i + 1) * 100
        }
        try context.save()
        return url
    }

    @Test("V1 → V2 lightweight (subtitle added), V2 → V3 custom (required slug filled by didMigrate after willMigrate read V2): every row kept")
    func lightweightThenCustom() throws {
        let url = try v1Store()
        let uuid = try SwiftDataSupport.sqlite3(url, "SELECT Z_UUID FROM Z_METADATA")
        let container = try ModelContainer(
            for: Schema(versionedSchema: ShelfV3.self), migrationPlan: ShelfPlan.self, configurations: [ModelConfiguration(url: url)])
        #expect(container.migrationsOnOpen.count == 2)
        #expect(container.schema.version == Schema.Version(3, 0, 0))
        #expect(ShelfPlan.record.before == ["Dune", "Emma", "Middlemarch", "The Hobbit", "Ulysses"], "willMigrate read the V2 store")
        #expect(ShelfPlan.record.filledCount == 5)

        let context = ModelContext(container)
        let books = try context.fetch(FetchDescriptor<ShelfV3.Book>(sortBy: [Foundation.SortDescriptor(\ShelfV3.Book.pages)]))
        #expect(books.map(\.slug) == ["dune", "emma", "the-hobbit", "ulysses", "middlemarch"])
        #expect(books.map(\.pages) == [100, 200, 300, 400, 500])
        #expect(books.allSatisfy { $0.subtitle == nil })
        #expect(try SwiftDataSupport.sqlite3(url, "SELECT ZSLUG FROM ZBOOK ORDER BY ZPAGES").map { $0[0] }
            == ["dune", "emma", "the-hobbit", "ulysses", "middlemarch"])
        #expect(try SwiftDataSupport.sqlite3(url, "SELECT Z_UUID FROM Z_METADATA") == uuid, "the same store: object IDs keep naming the same objects")
        #expect(try SwiftDataSupport.sqlite3(url, "PRAGMA integrity_check") == [["ok"]])

        // Opened again: already at V3, nothing to migrate.
        let again = try ModelContainer(
            for: Schema(versionedSchema: ShelfV3.self), migrationPlan: ShelfPlan.self, configurations: [ModelConfiguration(url: url)])
        #expect(again.migrationsOnOpen.isEmpty)
    }

    @Test("V1 → V2 alone through the plan: only the lightweight stage runs")
    func lightweightOnly() throws {
        let url = try v1Store()
        let container = try ModelContainer(
            for: Schema(versionedSchema: ShelfV2.self), migrationPlan: ShelfPlan.self, configurations: [ModelConfiguration(url: url)])
        #expect(container.migrationsOnOpen.count == 1)
        let books = try ModelContext(container).fetch(FetchDescriptor<ShelfV2.Book>(predicate: #Predicate { $0.subtitle == nil }))
        #expect(books.count == 5)
        #expect(try SwiftDataSupport.sqlite3(url, "SELECT COUNT(*) FROM ZBOOK WHERE ZSUBTITLE IS NULL") == [["5"]])
    }

    @Test("a custom stage whose code throws fails opening, and the store stays as it was before that stage")
    func failingStageLeavesStore() throws {
        let url = try v1Store()
        #expect(throws: (any Error).self) {
            try ModelContainer(
                for: Schema(versionedSchema: ShelfV3.self), migrationPlan: FailingShelfPlan.self, configurations: [ModelConfiguration(url: url)])
        }
        #expect(try SwiftDataSupport.sqlite3(url, "SELECT COUNT(*) FROM ZBOOK") == [["5"]])
        #expect(try SwiftDataSupport.sqlite3(url, "PRAGMA integrity_check") == [["ok"]])
        let columns = try SwiftDataSupport.sqlite3(url, "SELECT name FROM pragma_table_info('ZBOOK')").map { $0[0] }
        #expect(!columns.contains("ZSLUG"), "the failed stage wrote nothing")
        // The stages before it are complete: the store is at V2 and opens as V2.
        let v2 = try ModelContainer(
            for: Schema(versionedSchema: ShelfV2.self), migrationPlan: ShelfPlan.self, configurations: [ModelConfiguration(url: url)])
        #expect(try ModelContext(v2).fetchCount(FetchDescriptor<ShelfV2.Book>()) == 5)
    }

    @Test("a schema the plan does not list is refused by version")
    func schemaNotInPlan() throws {
        let url = try SwiftDataSupport.newStoreURL()
        #expect(throws: SwiftDataError.schemaNotInMigrationPlan(version: "1.0.0")) {
            try ModelContainer(for: Schema([SDAuthor.self, SDBook.self]), migrationPlan: ShelfPlan.self, configurations: [ModelConfiguration(url: url)])
        }
    }
}
