import Foundation
import Synchronization
import TestSupportKit
import Testing
@testable import CoreStack

@Suite("FetchedResultsController fetches prepared on the queue, run off it, cancelled, applied")
struct PreparedFetchTests {
    @Test("a fetch cancelled during its SQL query throws CancellationError and leaves the controller as it was")
    func cancelledMidQuery() throws {
        let (_, ctx) = try BatchedFetchTests.freshStore(books: 300)
        var request = FetchRequest<Book>(entityName: "Book", sortDescriptors: [SortDescriptor("title", ascending: false)])
        request.fetchBatchSize = 10
        let controller = FetchedResultsController(fetchRequest: request, context: ctx)
        let recorder = RecordingDelegate()
        controller.delegate = recorder
        let before = try ctx.performAndWait { () -> [ManagedObjectID] in
            try controller.performFetch()
            return controller.fetchedObjectIDs
        }
        let steps = Atomic<Int>(0)
        // The test hook cancels at the query's first progress step: SQLite is mid-query (sorting).
        let cancellation = FetchCancellation { c in
            steps.add(1, ordering: .relaxed)
            c.cancel()
        }
        let fetch = try ctx.performAndWait { try controller.prepareFetch(cancellation: cancellation) }
        #expect(fetch.runsOffQueue)
        #expect(throws: CancellationError.self) { _ = try fetch.run() }
        #expect(steps.load(ordering: .relaxed) == 1)
        try ctx.performAndWait {
            #expect(controller.fetchedObjectIDs == before)
            #expect(recorder.fetchCount == 1)
            // The connection serves the next query (its progress handler is gone).
            let again = try controller.prepareFetch()
            try controller.apply(try again.run())
            #expect(controller.fetchedObjectIDs == before)
            #expect(recorder.fetchCount == 2)
        }
    }

    @Test("a result applied after a save made since the query began gives the rows after the save")
    func applyAfterConcurrentSave() throws {
        let (coordinator, ctx) = try BatchedFetchTests.freshStore(books: 20)
        let controller = FetchedResultsController(fetchRequest: BatchedFetchTests.byPages(batch: 5), context: ctx)
        let fetch = try ctx.performAndWait { try controller.prepareFetch() }
        let result = try fetch.run()
        #expect(result.count == 20)
        let writer = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: "writer")
        let newID = try writer.performAndWait { () -> ManagedObjectID in
            let b = try Book(context: writer)
            b.title = "New"
            b.pages = 3
            try writer.save()
            return b.objectID
        }
        try ctx.performAndWait {
            try controller.apply(result)
            #expect(controller.count == 21)
            #expect(controller.objectID(at: [0, 4]) == newID)
            let fresh = FetchedResultsController(fetchRequest: BatchedFetchTests.byPages(batch: 5), context: ctx)
            try fresh.performFetch()
            #expect(controller.fetchedObjectIDs == fresh.fetchedObjectIDs)
        }
    }

    @Test("a result applied with no change in between uses the query's rows: no object registered, changes followed")
    func applyUnchanged() throws {
        let (_, ctx) = try BatchedFetchTests.freshStore(books: 20)
        let controller = FetchedResultsController(fetchRequest: BatchedFetchTests.byPages(batch: 5), context: ctx)
        let recorder = RecordingDelegate()
        controller.delegate = recorder
        let fetch = try ctx.performAndWait { try controller.prepareFetch() }
        let result = try fetch.run()
        try ctx.performAndWait {
            try controller.apply(result)
            #expect(recorder.fetchCount == 1)
            #expect(controller.count == 20)
            #expect(ctx.registeredObjects.isEmpty)
            let b = try Book(context: ctx)
            b.title = "New"
            b.pages = 0
            ctx.processPendingChanges()
            #expect(controller.indexPath(for: b) == [0, 1])
            // A result applied once the context has unsaved changes that matter is fetched again here.
            let again = try controller.prepareFetch().run()
            #expect(again.count == nil)
            try controller.apply(again)
            #expect(controller.count == 21)
        }
    }

    @Test("a fetch cancelled after its query ended is not applied")
    func cancelledBeforeApply() throws {
        let (_, ctx) = try BatchedFetchTests.freshStore(books: 10)
        let controller = FetchedResultsController(fetchRequest: BatchedFetchTests.byPages(batch: 5), context: ctx)
        let fetch = try ctx.performAndWait { try controller.prepareFetch() }
        let result = try fetch.run()
        fetch.cancel()
        let error = ctx.performAndWait { () -> (any Error)? in
            do {
                try controller.apply(result)
                return nil
            } catch {
                return error
            }
        }
        #expect(error is CancellationError)
        #expect(ctx.performAndWait { controller.count } == 0)
    }
}
