import Foundation
import Testing
@testable import CoreStack

@Suite("SwiftData's shape: ModelContainer, ModelContext and FetchDescriptor over CoreStack's contexts")
@MainActor
struct ModelContextTests {
    private func container(inMemory: Bool = true) throws -> ModelContainer {
        try ModelContainer(
            for: SDAuthor.self, SDBook.self,
            configurations: inMemory ? ModelConfiguration(isStoredInMemoryOnly: true) : ModelConfiguration(url: try SwiftDataSupport.newStoreURL()))
    }

    @Test("insert, save, fetch with #Predicate, sort by key path, limit and offset, count and identifiers")
    func fetchDescriptors() throws {
        let container = try container()
        let context = ModelContext(container)
        #expect(context.hasChanges == false)
        try SwiftDataSupport.fill(context)
        #expect(context.hasChanges == false)

        let minimum = 250
        var descriptor = FetchDescriptor<SDBook>(
            predicate: #Predicate { $0.pages > minimum },
            sortBy: [Foundation.SortDescriptor(\SDBook.pages, order: .reverse)])
        #expect(try context.fetch(descriptor).map(\.pages) == [600, 500, 400, 300])
        #expect(try context.fetchCount(descriptor) == 4)
        descriptor.fetchOffset = 1
        descriptor.fetchLimit = 2
        #expect(try context.fetch(descriptor).map(\.pages) == [500, 400])

        let byAuthor = FetchDescriptor<SDBook>(
            predicate: #Predicate { ($0.author?.name ?? "") == "Herbert" }, sortBy: [Foundation.SortDescriptor(\SDBook.title)])
        #expect(try context.fetch(byAuthor).map(\.title) == ["Herbert 1", "Herbert 2"])

        let ids = try context.fetchIdentifiers(FetchDescriptor<SDAuthor>(sortBy: [Foundation.SortDescriptor(\SDAuthor.name)]))
        #expect(ids.count == 3)
        #expect(ids.allSatisfy { $0.entityName == "Author" && !$0.isTemporary })
        let first = try #require(try context.model(for: ids[0]) as? SDAuthor)
        #expect(first.name == "Austen")
        #expect(first.persistentModelID == ids[0])
        let registered: SDAuthor? = context.registeredModel(for: ids[0])
        #expect(registered === first)
    }

    @Test("pending changes: counted by default, left out with includePendingChanges = false; rollback discards them")
    func pendingChanges() throws {
        let context = ModelContext(try container())
        try SwiftDataSupport.fill(context)
        let book = try context.insert(SDBook.self)
        book.title = "Unsaved"
        book.pages = 50
        #expect(context.hasChanges)
        #expect(context.insertedModelsArray.count == 1)
        var all = FetchDescriptor<SDBook>()
        #expect(try context.fetchCount(all) == 7)
        all.includePendingChanges = false
        #expect(try context.fetch(all).count == 6)
        context.rollback()
        #expect(context.hasChanges == false)
        #expect(try context.fetchCount(FetchDescriptor<SDBook>()) == 6)
    }

    @Test("delete(model:where:) deletes the matches at the next save, with the delete rules (an author's books cascade)")
    func deleteWhere() throws {
        let context = ModelContext(try container())
        try SwiftDataSupport.fill(context)
        try context.delete(model: SDAuthor.self, where: #Predicate { $0.born < 1901 })
        #expect(context.deletedModelsArray.count == 3, "the author and its two books")
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<SDAuthor>()) == 2)
        #expect(try context.fetchCount(FetchDescriptor<SDBook>()) == 4)
        let one = try #require(try context.fetch(FetchDescriptor<SDBook>(predicate: #Predicate { $0.pages == 300 })).first)
        try context.delete(one)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<SDBook>()) == 3)
        try context.delete(model: SDBook.self)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<SDBook>()) == 0)
    }

    @Test("transaction saves what its block did; a block that throws rolls back and rethrows")
    func transaction() throws {
        struct Refused: Error {}
        let container = try container(inMemory: false)
        let context = ModelContext(container)
        try context.transaction {
            let author = try context.insert(SDAuthor.self)
            author.name = "Tolkien"
        }
        #expect(context.hasChanges == false)
        let other = ModelContext(container)
        #expect(try other.fetchCount(FetchDescriptor<SDAuthor>()) == 1, "saved to the store: another context sees it")
        #expect(throws: Refused.self) {
            try context.transaction {
                let author = try context.insert(SDAuthor.self)
                author.name = "Nobody"
                throw Refused()
            }
        }
        #expect(context.hasChanges == false)
        #expect(try other.fetchCount(FetchDescriptor<SDAuthor>()) == 1)
    }

    @Test("a descriptor is translated once: kept for the next fetch, made again after a change")
    func translatedOnce() throws {
        let context = ModelContext(try container())
        try SwiftDataSupport.fill(context)
        var descriptor = FetchDescriptor<SDBook>(predicate: #Predicate { $0.pages > 100 }, sortBy: [Foundation.SortDescriptor(\SDBook.pages)])
        #expect(!descriptor.isTranslated)
        #expect(try context.fetch(descriptor).count == 5)
        #expect(descriptor.isTranslated)
        let copy = descriptor
        descriptor.fetchLimit = 2
        #expect(!descriptor.isTranslated, "a change drops the translation")
        #expect(copy.isTranslated, "the unchanged copy keeps it")
        #expect(try context.fetch(descriptor).map(\.pages) == [200, 300])
        #expect(try context.fetch(copy).count == 5)
    }

    @Test("enumerate walks every match in order, a batch at a time")
    func enumerate() throws {
        let context = ModelContext(try container())
        try SwiftDataSupport.fill(context)
        var pages: [Int] = []
        try context.enumerate(FetchDescriptor<SDBook>(sortBy: [Foundation.SortDescriptor(\SDBook.pages)]), batchSize: 2) { pages.append($0.pages) }
        #expect(pages == [100, 200, 300, 400, 500, 600])
    }

    @Test("prefetching and propertiesToFetch take key paths; a key path that is no model property is a typed error naming it")
    func keyPathsChecked() throws {
        let context = ModelContext(try container())
        try SwiftDataSupport.fill(context)
        var descriptor = FetchDescriptor<SDBook>(sortBy: [Foundation.SortDescriptor(\SDBook.title)])
        descriptor.relationshipKeyPathsForPrefetching = [\SDBook.author]
        descriptor.propertiesToFetch = [\SDBook.title]
        #expect(try descriptor.fetchRequest().relationshipKeyPathsForPrefetching == ["author"])
        let books = try context.fetch(descriptor)
        #expect(books.first?.author?.name == "Austen")
        descriptor.propertiesToFetch = [\SDBook.description]
        #expect(throws: CoreStackError.self) { try context.fetch(descriptor) }
    }

    @Test("configurations CoreStack cannot open are typed errors: two stores, a read-only store that is missing; allowsSave: false refuses saves")
    func configurations() throws {
        let a = ModelConfiguration("a", isStoredInMemoryOnly: true)
        let b = ModelConfiguration("b", isStoredInMemoryOnly: true)
        #expect(throws: SwiftDataError.self) { try ModelContainer(for: SDAuthor.self, SDBook.self, configurations: a, b) }
        let url = try SwiftDataSupport.newStoreURL()
        #expect(throws: CoreStackError.self) {
            try ModelContainer(for: SDAuthor.self, SDBook.self, configurations: ModelConfiguration(url: url, allowsSave: false))
        }
        do {
            let writer = ModelContext(try ModelContainer(for: SDAuthor.self, SDBook.self, configurations: ModelConfiguration(url: url)))
            try SwiftDataSupport.fill(writer)
        }
        let reader = ModelContext(try ModelContainer(for: SDAuthor.self, SDBook.self, configurations: ModelConfiguration(url: url, allowsSave: false)))
        #expect(try reader.fetchCount(FetchDescriptor<SDBook>()) == 6)
        let author = try reader.insert(SDAuthor.self)
        author.name = "Refused"
        #expect(throws: (any Error).self) { try reader.save() }
        #expect(try SwiftDataSupport.sqlite3(url, "SELECT COUNT(*) FROM ZAUTHOR") == [["3"]])
    }

    @Test("a model class outside the schema is refused by name")
    func unknownClass() throws {
        let container = try ModelContainer(for: SDBook.self, SDAuthor.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(container.schema.entities.map(\.name) == ["Author", "Book"])
        final class Stray: ManagedObject, DeclaredEntity {
            static var entityDescription: EntityDescription { EntityDescription("Stray", class: Stray.self) {} }
        }
        #expect(throws: CoreStackError.self) { try ModelContext(container).insert(Stray.self) }
    }
}
