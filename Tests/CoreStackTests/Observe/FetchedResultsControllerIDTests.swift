import Foundation
import TestSupportKit
import Testing
@testable import CoreStack

@Suite("FetchedResultsController with fetchBatchSize keeps IDs, not objects")
struct FetchedResultsControllerIDTests {
    @Test("performFetch registers no object; reading a row registers its batch only; IDs are read without registering")
    func noObjectUntilRead() throws {
        let (_, ctx) = try BatchedFetchTests.freshStore(books: 40)
        try ctx.performAndWait {
            let controller = FetchedResultsController(fetchRequest: BatchedFetchTests.byPages(batch: 5), context: ctx)
            try controller.performFetch()
            #expect(controller.count == 40)
            #expect(ctx.registeredObjects.isEmpty)
            #expect(controller.fetchedObjectIDs.count == 40)
            #expect(controller.sectionsOfObjectIDs.map(\.numberOfObjects) == [40])
            #expect(controller.numberOfObjects(inSection: 0) == 40)
            let id = try #require(controller.objectID(at: [0, 12]))
            #expect(controller.indexPath(forObjectID: id) == [0, 12])
            #expect(ctx.registeredObjects.isEmpty)
            let book = try controller.object(at: [0, 12])
            #expect(book.objectID == id)
            // Rows 10..<15, one batch, registered as faults; none read yet.
            #expect(ctx.registeredObjects.count == 5)
            #expect(ctx.registeredObjects.allSatisfy { $0.isFault })
            #expect(book.pages == 12)
            #expect(Set(ctx.registeredObjects.map(\.objectID)) == Set((10..<15).compactMap { controller.objectID(at: [0, $0]) }))
        }
    }

    @Test("changes merged from another context reach rows the context does not hold: moves, deletes, inserts")
    func mergedChangesToUnheldRows() throws {
        let (coordinator, ctx) = try BatchedFetchTests.freshStore(books: 30)
        let writer = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: "writer")
        let controller = FetchedResultsController(fetchRequest: BatchedFetchTests.byPages(batch: 5), context: ctx)
        let recorder = RecordingDelegate()
        controller.delegate = recorder
        try ctx.performAndWait { try controller.performFetch() }
        let before = ctx.performAndWait { controller.fetchedObjectIDs }
        let saved = try writer.performAndWait { () -> SavedObjectIDs in
            var ids = SavedObjectIDs()
            let token = writer.addDidSaveObserver { ids = $0.objectIDs }
            let books = try writer.fetch(BatchedFetchTests.byPages(batch: 0))
            books[3].pages = 100  // moves to the end
            try writer.delete(books[7])
            let b = try Book(context: writer)
            b.title = "New"
            b.pages = 10  // after "Book 010", at row 9 once rows 3 and 7 left
            try writer.save()
            writer.removeObserver(token)
            return ids
        }
        try ctx.performAndWait {
            #expect(ctx.registeredObjects.isEmpty)
            ctx.mergeChanges(from: saved)
            #expect(recorder.batches.count == 1)
            let changes = recorder.allObjectChanges
            #expect(changes.count == 3)
            #expect(changes.contains { if case .move(_, from: [0, 3], to: [0, 29]) = $0 { true } else { false } })
            #expect(changes.contains { if case .delete(_, at: [0, 7]) = $0 { true } else { false } })
            #expect(changes.contains { if case .insert(_, at: [0, 9]) = $0 { true } else { false } })
            // The reported changes turn the old IDs into the new ones, which a fresh fetch gives.
            var ids = before
            ids.remove(at: 7)
            let moved = ids.remove(at: 3)
            let inserted = try #require(saved.inserted.first)
            ids.insert(inserted, at: 9)
            ids.append(moved)
            #expect(controller.fetchedObjectIDs == ids)
            let fresh = FetchedResultsController(fetchRequest: BatchedFetchTests.byPages(batch: 5), context: ctx)
            try fresh.performFetch()
            #expect(fresh.fetchedObjectIDs == controller.fetchedObjectIDs)
        }
    }

    @Test("an object inserted here is filed under its temporary ID, then under its permanent one after the save")
    func temporaryThenPermanent() throws {
        let (_, ctx) = try BatchedFetchTests.freshStore(books: 20)
        try ctx.performAndWait {
            let controller = FetchedResultsController(fetchRequest: BatchedFetchTests.byPages(batch: 5), context: ctx)
            let recorder = RecordingDelegate()
            controller.delegate = recorder
            try controller.performFetch()
            let b = try Book(context: ctx)
            b.title = "New"
            b.pages = 4
            ctx.processPendingChanges()
            #expect(controller.indexPath(for: b) == [0, 5])
            #expect(controller.objectID(at: [0, 5])?.isTemporaryID == true)
            try ctx.save()
            #expect(!b.objectID.isTemporaryID)
            #expect(controller.objectID(at: [0, 5]) == b.objectID)
            #expect(controller.indexPath(for: b) == [0, 5])
            // A change after the save moves the row found under its permanent ID, once.
            b.pages = 50
            ctx.processPendingChanges()
            #expect(controller.count == 21)
            #expect(controller.objectID(at: [0, 20]) == b.objectID)
            #expect(controller.fetchedObjectIDs.filter { $0 == b.objectID }.count == 1)
            try ctx.delete(b)
            ctx.processPendingChanges()
            #expect(controller.count == 20)
            #expect(controller.indexPath(forObjectID: b.objectID) == nil)
        }
    }
}
