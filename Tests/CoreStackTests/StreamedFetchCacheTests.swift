import Foundation
import Testing
@testable import CoreStack

@Suite("A fetch that fills objects from the rows it reads never shows an older row than the cache holds")
struct StreamedFetchCacheTests {
    /// A store that, once `stale` is set, answers fetches with those rows instead of its own: a
    /// store whose read returned rows older than the coordinator's cache.
    final class StaleReadStore: ForwardingStore, @unchecked Sendable {
        var stale: [StoreRow]?
        override func fetch(_ r: StoreFetchRequest) throws -> [StoreRow] { try stale ?? inner.fetch(r) }
    }

    @Test("objects fetched fully (not as faults) take the cache's later version of a row the store read older")
    func fetchTakesCachedNewerRow() throws {
        let model = try LibraryModel.make()
        let store = StaleReadStore(InMemoryStore(model: model))
        let stack = try TestStack(model: model) { _ in store }
        try stack.context.performAndWait {
            for i in 0..<3 {
                let b = try Book(context: stack.context)
                b.title = "Book \(i)"
            }
            try stack.context.save()
        }
        // The rows as first saved (version 1), then a save of every title (version 2, cached).
        let old = try store.inner.fetch(StoreFetchRequest(entity: try #require(model.entity(named: "Book"))))
        try stack.context.performAndWait {
            for b in try stack.context.fetch(FetchRequest<Book>(entityName: "Book")) { b.title += " (2)" }
            try stack.context.save()
        }
        store.stale = old
        let fresh = stack.newContext("fresh")
        let titles = try fresh.performAndWait {
            var r = FetchRequest<Book>(entityName: "Book", sortDescriptors: [SortDescriptor("title")])
            r.returnsObjectsAsFaults = false
            return try fresh.fetch(r).map(\.title).sorted()
        }
        #expect(titles == ["Book 0 (2)", "Book 1 (2)", "Book 2 (2)"])
        for row in old {
            #expect(stack.coordinator.cachedSnapshot(row.objectID)?.version == 2)
        }
    }
}
