import CoreStack
import Foundation
import Testing
@testable import StackScope

/// `demo create` writes through batch inserts; the content must be what `populate` saves.
@Suite struct DemoBatchWriterTests {
    /// A demo store saved the old way: objects in a context, one save.
    static func populatedStore(size: Int) throws -> URL {
        let url = try TestSupport.temporaryDirectory().appendingPathComponent("populated.sqlite")
        let model = try DemoLibrary.model()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(try StoreFiles.standard.createStore(at: url, model: model))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: "populate")
        _ = try context.performAndWait { try DemoLibrary.populate(context, size: size) }
        coordinator.removePersistentStore()
        return url
    }

    /// Each entity's JSON dump (object URIs without the store UUID).
    static func dumps(_ url: URL) throws -> [String: String] {
        let uuid = try SQLiteStore.metadata(at: url).storeUUID
        var out: [String: String] = [:]
        for entity in TestSupport.demoEntities {
            let dump = try DumpCommand.run(storePath: url.path, modelPath: nil, query: DumpQuery(entityName: entity), json: true)
            out[entity] = TestSupport.withoutStoreUUID(dump, uuid: uuid)
        }
        return out
    }

    @Test("demo create (batch inserts) writes the same objects, keys and links as populate and one save", arguments: [40, 300])
    func sameAsPopulate(size: Int) throws {
        let (created, summary) = try TestSupport.demoStore(size: size)
        let populated = try Self.populatedStore(size: size)
        let a = try Self.dumps(created), b = try Self.dumps(populated)
        for entity in TestSupport.demoEntities {
            #expect((a[entity]?.count ?? 0) > 10)
            #expect(a[entity] == b[entity], "\(entity)")
        }
        let info = try InfoCommand.info(storePath: created.path)
        #expect(info.entities.first { $0.name == "Book" }?.count == (summary.counts["Book"] ?? 0) + (summary.counts["GraphicNovel"] ?? 0))
    }

    /// Per book, in ISBN order: title, entity, publisher, authors, genres, editor, chapter titles in order.
    static func books(_ url: URL) throws -> [String] {
        let session = try StoreSession.open(storePath: url.path, modelPath: nil)
        let context = session.context
        return try context.performAndWait {
            try context.fetch(FetchRequest<DemoLibrary.Book>(entityName: "Book")).map { book in
                [
                    book.isbn ?? "", book.title, book.entity.name, book.publisher?.name ?? "-", book.editor?.email ?? "-",
                    book.authors.map(\.name).sorted().joined(separator: "|"), book.genres.map(\.name).sorted().joined(separator: "|"),
                    book.chapters.map(\.title).joined(separator: "|"),
                ].joined(separator: " / ")
            }.sorted()
        }
    }

    @Test("written in many small chunks, the store holds the same books, links and chapter orders")
    func manyChunks() throws {
        let size = 300
        let (oneChunk, summary) = try TestSupport.demoStore(size: size)
        let url = try TestSupport.temporaryDirectory().appendingPathComponent("chunked.sqlite")
        let model = try DemoLibrary.model()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(try StoreFiles.standard.createStore(at: url, model: model))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: "chunks")
        var reports: [DemoProgress] = []
        let chunked = try context.performAndWait {
            try DemoBatchWriter(context: context, size: size, booksPerChunk: 7, rowsPerRequest: 4).write { reports.append($0) }
        }
        coordinator.removePersistentStore()
        #expect(chunked == summary)
        #expect(try Self.books(url) == Self.books(oneChunk))
        #expect(reports.count > 10)
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.written <= $1.written })
        #expect(reports.dropLast().allSatisfy { !$0.isFinished && $0.written <= $0.expectedTotal })
        #expect(reports.last == DemoProgress(written: summary.total, expectedTotal: summary.total, isFinished: true))
    }

    @Test("demo create reports progress to the caller, ending with every object written")
    func progressReports() throws {
        let url = try TestSupport.temporaryDirectory().appendingPathComponent("progress.sqlite")
        var reports: [DemoProgress] = []
        let line = try DemoCommand.create(path: url.path, size: 300) { reports.append($0) }
        #expect(line.hasPrefix("Created \(url.path): "))
        #expect(reports.last?.isFinished == true)
        #expect(reports.last?.fraction == 1)
        #expect(line.contains("\(reports.last?.written ?? -1) objects"))
    }
}
