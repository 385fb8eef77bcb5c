import Foundation
import Testing
@testable import CoreStack

/// Written as SwiftData's `@ModelActor` writes it.
actor LibraryImporter: ModelActor {
    nonisolated let modelContainer: ModelContainer
    nonisolated let modelExecutor: DefaultSerialModelExecutor

    init(modelContainer: ModelContainer) {
        self.modelContainer = modelContainer
        modelExecutor = DefaultSerialModelExecutor(modelContainer: modelContainer)
    }

    /// Inserts an author with `count` books, saves, and returns the titles read back through the
    /// relationship (a to-one fault fired on the actor, that is on the context's queue).
    func importAuthor(_ name: String, books count: Int) throws -> [String] {
        let author = try modelContext.insert(SDAuthor.self)
        author.name = name
        for i in 0..<count {
            let book = try modelContext.insert(SDBook.self)
            book.title = "\(name) \(i + 1)"
            book.pages = 100 * (i + 1)
            book.author = author
        }
        try modelContext.save()
        modelContext.managedObjectContext.reset()
        let books = try modelContext.fetch(FetchDescriptor<SDBook>(
            predicate: #Predicate { ($0.author?.name ?? "") == name }, sortBy: [Foundation.SortDescriptor(\SDBook.pages)]))
        return books.map { "\($0.author?.name ?? "?"): \($0.title)" }
    }

    func isOnContextQueue() -> Bool { modelContext.managedObjectContext.isOnQueue }
}

@Suite("SwiftData's shape: a model actor works with its context on the context's queue")
struct ModelActorTests {
    @Test("two actors import concurrently into one store; each reads back through relationships on its own queue")
    func concurrentImports() async throws {
        let container = try ModelContainer(
            for: SDAuthor.self, SDBook.self, configurations: ModelConfiguration(url: try SwiftDataSupport.newStoreURL()))
        let a = LibraryImporter(modelContainer: container)
        let b = LibraryImporter(modelContainer: container)
        #expect(await a.isOnContextQueue())
        async let first = a.importAuthor("Le Guin", books: 20)
        async let second = b.importAuthor("Herbert", books: 30)
        let (fromA, fromB) = try await (first, second)
        #expect(fromA.count == 20)
        #expect(fromA.first == "Le Guin: Le Guin 1")
        #expect(fromB.count == 30)
        #expect(fromB.last == "Herbert: Herbert 30")
        let reader = LibraryImporter(modelContainer: container)
        let total = try await reader.importAuthor("Austen", books: 0)
        #expect(total.isEmpty)
        #expect(try SwiftDataSupport.sqlite3(container.configurations[0].url, "SELECT COUNT(*) FROM ZBOOK") == [["50"]])
        #expect(try SwiftDataSupport.sqlite3(container.configurations[0].url, "SELECT COUNT(*) FROM ZAUTHOR") == [["3"]])
    }
}
