import Foundation
import Synchronization
import Testing
@testable import CoreStack

@Suite("A prepared fetch's query reads on a connection of its own")
struct PreparedFetchReaderTests {
    @Test("while a prepared fetch's query is held mid-way, the store's own connection still answers the context's fetches and saves")
    func queryDoesNotHoldTheStoreConnection() throws {
        let (_, ctx) = try BatchedFetchTests.freshStore(books: 300)
        var request = FetchRequest<Book>(entityName: "Book", sortDescriptors: [SortDescriptor("title", ascending: false)])
        request.fetchBatchSize = 10
        let controller = FetchedResultsController(fetchRequest: request, context: ctx)
        let paused = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let steps = Atomic<Int>(0)
        // The test hook holds the query at its first progress step (SQLite is mid-sort).
        let cancellation = FetchCancellation { _ in
            if steps.add(1, ordering: .relaxed).newValue == 1 {
                paused.signal()
                _ = release.wait(timeout: .now() + 30)
            }
        }
        let fetch = try ctx.performAndWait { try controller.prepareFetch(cancellation: cancellation) }
        #expect(fetch.runsOffQueue)
        let finished = DispatchSemaphore(value: 0)
        let outcome = LockedValue<Int?>(nil)
        DispatchQueue.global().async {
            let n = try? fetch.run().count
            outcome.withLock { $0 = n ?? -1 }
            finished.signal()
        }
        #expect(paused.wait(timeout: .now() + 30) == .success)

        // Meanwhile the context reads and saves through the store's connection.
        let answered = DispatchSemaphore(value: 0)
        let counted = LockedValue<Int?>(nil)
        ctx.perform {
            let n = try? ctx.count(for: FetchRequest<Book>(entityName: "Book"))
            if let b = try? Book(context: ctx) {
                b.title = "Saved meanwhile"
                b.pages = 1
            }
            let saved = (try? ctx.save()) != nil
            counted.withLock { $0 = saved ? n : nil }
            answered.signal()
        }
        let answeredWhileHeld = answered.wait(timeout: .now() + 10) == .success
        release.signal()
        #expect(answeredWhileHeld)
        if !answeredWhileHeld { _ = answered.wait(timeout: .now() + 30) }
        #expect(counted.withLock { $0 } == 300)
        #expect(finished.wait(timeout: .now() + 30) == .success)
        // The query saw the store as it began (300 rows); applying it notices the save and fetches again.
        #expect(outcome.withLock { $0 } == 300)
    }
}
