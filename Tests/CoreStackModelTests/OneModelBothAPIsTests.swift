import CoreStackModel
import Foundation
import TestSupportKit
import Testing

/// An app's model written once, as `@Model` classes: nothing else describes it.
private enum Shelf {
    @Model final class Writer: ManagedObject {
        @Unique var name: String
        @Relationship(inverse: "writer") var novels: Set<Novel>
    }

    @Model final class Novel: ManagedObject {
        @Indexed var title: String
        var pages: Int32 = 0
        var finished: Date?
        @Relationship(inverse: \Writer.novels) var writer: Writer?
    }
}

@Suite("one model, declared once with @Model, through the SwiftData-shaped and the Core Data-shaped API")
@MainActor
struct OneModelBothAPIsTests {
    @Test("written with ModelContext and fetched with #Predicate there; the same file fetched with FetchRequest, #Predicate and key paths")
    func bothAPIs() throws {
        let url = try TemporaryRoot.folder("one-model").appendingPathComponent("Shelf.store")

        // SwiftData's shape: a container for the classes, a context, FetchDescriptor.
        do {
            let container = try ModelContainer(
                for: Shelf.Writer.self, Shelf.Novel.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            let leGuin = try context.insert(Shelf.Writer.self)
            leGuin.name = "Le Guin"
            let herbert = try context.insert(Shelf.Writer.self)
            herbert.name = "Herbert"
            for (title, pages, writer) in [("The Dispossessed", 387, leGuin), ("The Lathe of Heaven", 184, leGuin),
                                           ("Dune", 612, herbert), ("The Dosadi Experiment", 320, herbert)] {
                let novel = try context.insert(Shelf.Novel.self)
                novel.title = title
                novel.pages = Int32(pages)
                novel.writer = writer
            }
            try context.save()

            let long = FetchDescriptor<Shelf.Novel>(
                predicate: #Predicate { $0.pages > 300 && $0.writer?.name == "Le Guin" },
                sortBy: [Foundation.SortDescriptor(\Shelf.Novel.title)])
            #expect(try context.fetch(long).map { $0.title } == ["The Dispossessed"])
            #expect(try context.fetchCount(FetchDescriptor<Shelf.Novel>(predicate: #Predicate { $0.pages > 300 })) == 3)
        }

        // Core Data's shape, on the same file and the same classes: a coordinator, a context,
        // FetchRequest with #Predicate, key-path sort descriptors and prefetching.
        let model = try ManagedObjectModel(declaring: Shelf.Writer.self, Shelf.Novel.self)
        let context = try storeContext(model, try SQLiteStore(url: url, model: model), name: "core-data")
        try context.performAndWait {
            var request = try FetchRequest<Shelf.Novel>(
                predicate: #Predicate { $0.pages > 300 },
                sortDescriptors: [try CoreStack.SortDescriptor(\Shelf.Novel.pages, ascending: false)])
            try request.setRelationshipKeyPathsForPrefetching([\Shelf.Novel.writer])
            let novels = try context.fetch(request)
            #expect(novels.map { $0.title } == ["Dune", "The Dispossessed", "The Dosadi Experiment"])
            #expect(novels.map { $0.writer?.name } == ["Herbert", "Le Guin", "Herbert"])

            let writers = try context.fetch(try FetchRequest<Shelf.Writer>(
                predicate: #Predicate { $0.novels.contains { $0.pages < 200 } },
                sortDescriptors: [try CoreStack.SortDescriptor(\Shelf.Writer.name)]))
            #expect(writers.map { $0.name } == ["Le Guin"])
            #expect(writers.first?.novels.count == 2)

            // The string language on the same data selects the same objects.
            let byString = try context.fetch(FetchRequest<Shelf.Novel>(
                predicate: try CoreStack.Predicate(format: "pages > 300"), sortDescriptors: [CoreStack.SortDescriptor("pages", ascending: false)]))
            #expect(byString.map { $0.objectID } == novels.map { $0.objectID })

            // An edit through the Core Data-shaped API...
            novels[0].finished = Date(timeIntervalSince1970: 0)
            try context.save()
        }

        // ...is read back through the SwiftData-shaped one.
        let container = try ModelContainer(for: Shelf.Writer.self, Shelf.Novel.self, configurations: ModelConfiguration(url: url))
        let reader = ModelContext(container)
        let finished = try reader.fetch(FetchDescriptor<Shelf.Novel>(predicate: #Predicate { $0.finished != nil }))
        #expect(finished.map { $0.title } == ["Dune"])
    }
}
