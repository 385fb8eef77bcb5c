import Dispatch
import Foundation
import Testing
@testable import CoreStack

/// The main context saves by itself at the end of the main-queue turn in which models changed, as
/// SwiftData's main context autosaves; a context with autosave off does not.
@Suite("SwiftData's shape: autosave at the end of the main-queue turn")
@MainActor
struct ModelContextAutosaveTests {
    private func endOfTurn() async { await endOfMainQueueTurn() }

    /// Rows in the store, counted by a context of its own (what a save has written).
    private func storedBooks(_ container: ModelContainer) throws -> Int {
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: container.persistentStoreCoordinator)
        return try reader.performAndWait { try reader.count(for: FetchRequest<SDBook>()) }
    }

    @Test("the main context: nothing saved during the turn, saved after it; a later change is saved after its own turn")
    func mainContextAutosaves() async throws {
        let container = try ModelContainer(
            for: SDAuthor.self, SDBook.self, configurations: ModelConfiguration(url: try SwiftDataSupport.newStoreURL()))
        let context = container.mainContext
        #expect(context.autosaveEnabled)
        #expect(container.mainContext === context)
        let book = try context.insert(SDBook.self)
        book.title = "Dune"
        book.pages = 412
        #expect(try storedBooks(container) == 0, "not saved during the turn")
        #expect(context.hasChanges)
        await endOfTurn()
        await endOfTurn()
        #expect(context.hasChanges == false)
        #expect(context.lastAutosaveError == nil)
        #expect(try storedBooks(container) == 1)

        book.pages = 500
        #expect(context.hasChanges)
        await endOfTurn()
        await endOfTurn()
        #expect(context.hasChanges == false)
        let reader = ModelContext(container)
        reader.autosaveEnabled = false
        #expect(try reader.fetch(FetchDescriptor<SDBook>()).map(\.pages) == [500])
    }

    @Test("a context made on the main actor has autosave off (SwiftData's default): nothing is saved until save(); turned on, it saves")
    func madeContextDoesNotAutosave() async throws {
        let container = try ModelContainer(
            for: SDAuthor.self, SDBook.self, configurations: ModelConfiguration(url: try SwiftDataSupport.newStoreURL()))
        let context = ModelContext(container)
        #expect(context.autosaveEnabled == false)
        try context.insert(SDBook.self).title = "Emma"
        await endOfTurn()
        await endOfTurn()
        #expect(context.hasChanges)
        #expect(try storedBooks(container) == 0)
        context.autosaveEnabled = true
        try context.insert(SDBook.self).title = "Persuasion"
        await endOfTurn()
        await endOfTurn()
        #expect(context.hasChanges == false)
        #expect(try storedBooks(container) == 2)
    }

    @Test("an autosave that fails leaves the changes and reports the error; the next change retries")
    func failedAutosaveReported() async throws {
        let container = try ModelContainer(
            for: SDAuthor.self, SDBook.self, configurations: ModelConfiguration(url: try SwiftDataSupport.newStoreURL()))
        let context = container.mainContext
        _ = try context.insert(SDAuthor.self)   // name is required and left empty
        await endOfTurn()
        await endOfTurn()
        #expect(context.lastAutosaveError != nil)
        #expect(context.hasChanges)
        let author = try #require(context.insertedModelsArray.first as? SDAuthor)
        author.name = "Named"
        await endOfTurn()
        await endOfTurn()
        #expect(context.lastAutosaveError == nil)
        #expect(context.hasChanges == false)
    }
}
