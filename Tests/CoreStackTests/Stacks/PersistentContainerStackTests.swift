import Foundation
import Testing
@testable import CoreStack

@Suite("PersistentContainer (Apple's stack shape)")
struct PersistentContainerStackTests {
    @Test("load, a background task saves, the view context (merging automatically) sees it, a reopened container too")
    func loadAndBackgroundTask() async throws {
        let folder = try StackTempFolder("container")
        let url = folder.url.appendingPathComponent("deep/Library.sqlite")
        do {
            let container = PersistentContainer(name: "Library", model: try LibraryModel.make())
            #expect(container.storeDescription.url?.lastPathComponent == "Library.sqlite")
            container.storeDescription.url = url
            try await container.loadPersistentStores()
            #expect(container.isLoaded)
            #expect(container.viewContext.concurrencyType == .mainQueue)
            #expect(container.viewContext.parent == nil)
            let view = container.viewContext
            view.automaticallyMergesChangesFromParent = true
            let changes = Recorder<Int>()
            let token = view.addObjectsDidChangeObserver { c in changes.append(c.inserted.count) }
            let background = container.newBackgroundContext()
            #expect(background.concurrencyType == .privateQueue)
            #expect(background.persistentStoreCoordinator === container.persistentStoreCoordinator)
            try await container.performBackgroundTask { context in
                let a = try Author(context: context)
                a.name = "Le Guin"
                try context.save()
            }
            #expect(await eventually { changes.values.contains(1) })
            #expect(try await countObjects("Author", in: view) == 1)
            withExtendedLifetime(token) {}
        }
        let again = PersistentContainer(name: "Library", model: try LibraryModel.make())
        again.storeDescription.url = url
        let loaded: Bool = await withCheckedContinuation { c in
            again.loadPersistentStores { description, error in c.resume(returning: error == nil && description.url == url) }
        }
        #expect(loaded)
        #expect(try await countObjects("Author", in: again.viewContext) == 1)
    }

    @Test("in-memory description; default directory; errors reach the completion handler")
    func descriptionsAndErrors() async throws {
        let memory = PersistentContainer(name: "Scratch", model: try LibraryModel.make())
        memory.storeDescription = .init(type: .inMemory)
        try await memory.loadPersistentStores()
        #expect(memory.persistentStoreCoordinator.persistentStore is InMemoryStore)
        #expect(PersistentContainer.defaultDirectoryURL(name: "Lib", environment: ["XDG_DATA_HOME": "/d"]).path == "/d/Lib")

        let notLoaded = PersistentContainer(name: "Nope", model: try LibraryModel.make())
        await #expect(throws: StackError.self) { try await notLoaded.performBackgroundTask { _ in 1 } }

        let folder = try StackTempFolder("container")
        try Data("not a store".utf8).write(to: folder.file("Bad.sqlite"))
        let bad = PersistentContainer(name: "Bad", model: try LibraryModel.make())
        bad.storeDescription.url = folder.file("Bad.sqlite")
        let message: String = await withCheckedContinuation { c in
            bad.loadPersistentStores { _, error in c.resume(returning: error.map { "\($0)" } ?? "") }
        }
        #expect(message.contains("is not a CoreStack/Core Data store"))
        #expect(!bad.isLoaded)
    }
}
