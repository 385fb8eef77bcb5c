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
            // Permanent IDs obtained without a save: the row follows as soon as it is looked up.
            let c = try Book(context: ctx)
            c.title = "Other"
            c.pages = 2
            ctx.processPendingChanges()
            try ctx.obtainPermanentIDs(for: [c])
            #expect(!c.objectID.isTemporaryID)
            #expect(controller.indexPath(for: c) == [0, 3])
            #expect(controller.objectID(at: [0, 3]) == c.objectID)
        }
    }

    @Test(
        "random saves merged into a batched controller keeping IDs: the reported changes turn its old IDs into a fresh fetch's",
        arguments: [3, 11, 99, 2026] as [UInt64])
    func randomMergedSaves(seed: UInt64) throws {
        let stack = try BookFixture.makeStack()
        let writer = stack.context
        let reader = stack.newContext("reader")
        var request = FetchRequest<Book>(
            entityName: "Book", sortDescriptors: [SortDescriptor("title", comparison: .caseInsensitive), SortDescriptor("pages")])
        request.fetchBatchSize = 7
        // No predicate: a merge reports only objects the context holds or the controller keeps, so
        // an object of another context's save that starts to match is not seen (as before, and as
        // in Core Data, whose merges skip updated objects a context has not registered).
        // Sections by raw title: many sections come and go, several compare equal under the sort.
        let controller = FetchedResultsController(fetchRequest: request, context: reader, sectionNameKeyPath: "title")
        let recorder = RecordingDelegate()
        controller.delegate = recorder
        var rng = SplitMix64(seed: seed)
        var usedPages = Set<Int>()
        func freshPages() -> Int {
            while true {
                let p = Int.random(in: 0..<1_000_000, using: &rng)
                if usedPages.insert(p).inserted { return p }
            }
        }
        let all = FetchRequest<Book>(entityName: "Book")
        try writer.performAndWait {
            for b in try writer.fetch(all) { b.pages = freshPages() }
            try writer.save()
        }
        try reader.performAndWait { try controller.performFetch() }
        typealias Sections = [(name: String, ids: [ManagedObjectID])]
        func snapshot(_ c: FetchedResultsController<Book>) -> Sections { c.sectionsOfObjectIDs.map { ($0.name, $0.objects) } }
        func same(_ a: Sections, _ b: Sections) -> Bool { a.map(\.name) == b.map(\.name) && a.map(\.ids) == b.map(\.ids) }
        var reported = 0
        for batch in 0..<30 {
            recorder.reset()
            let old = reader.performAndWait { snapshot(controller) }
            let pool = FetchedResultsControllerRandomTests.pool
            let saved = try writer.performAndWait { () -> SavedObjectIDs in
                var ids = SavedObjectIDs()
                let token = writer.addDidSaveObserver { ids = $0.objectIDs }
                var books = try writer.fetch(all)
                for _ in 0..<Int.random(in: 1...6, using: &rng) {
                    let pick = Int.random(in: 0..<10_000, using: &rng)
                    switch Int.random(in: 0..<5, using: &rng) {
                    case 0:
                        let b = try Book(context: writer)
                        b.title = pool[pick % pool.count]
                        b.pages = freshPages()
                        books.append(b)
                    case 1 where !books.isEmpty:
                        try writer.delete(books.remove(at: pick % books.count))
                    case 2 where !books.isEmpty:
                        books[pick % books.count].title = pool[pick % pool.count]
                    case 3 where !books.isEmpty:
                        books[pick % books.count].pages = freshPages()
                    default:
                        break
                    }
                }
                try writer.save()
                writer.removeObserver(token)
                return ids
            }
            let (now, fresh) = try reader.performAndWait { () -> (Sections, Sections) in
                reader.mergeChanges(from: saved)
                let check = FetchedResultsController(fetchRequest: request, context: reader, sectionNameKeyPath: "title")
                try check.performFetch()
                return (snapshot(controller), snapshot(check))
            }
            #expect(same(now, fresh), "batch \(batch): the controller's results differ from a fresh fetch")
            // The reported changes, applied as a table view applies them, give the new results.
            var applied = old
            for b in recorder.batches {
                var deletes: [IndexPath] = [], inserts: [(IndexPath, ManagedObjectID)] = []
                for c in b.objects {
                    switch c {
                    case let .delete(_, p): deletes.append(p)
                    case let .insert(o, p): inserts.append((p, o.objectID))
                    case let .move(o, from, to):
                        deletes.append(from)
                        inserts.append((to, o.objectID))
                    case .update: break
                    }
                }
                for p in deletes.sorted(by: >) {
                    guard applied.indices.contains(p.section), applied[p.section].ids.indices.contains(p.row) else {
                        Issue.record("batch \(batch): delete at \(p) out of range")
                        return
                    }
                    applied[p.section].ids.remove(at: p.row)
                }
                var sectionDeletes: [Int] = [], sectionInserts: [(Int, String)] = []
                for c in b.sections {
                    switch c {
                    case let .delete(_, i): sectionDeletes.append(i)
                    case let .insert(info, i): sectionInserts.append((i, info.name))
                    }
                }
                for i in sectionDeletes.sorted(by: >) where applied.indices.contains(i) { applied.remove(at: i) }
                for (i, name) in sectionInserts.sorted(by: { $0.0 < $1.0 }) where i <= applied.count { applied.insert((name, []), at: i) }
                for (p, id) in inserts.sorted(by: { $0.0 < $1.0 }) {
                    guard applied.indices.contains(p.section), p.row <= applied[p.section].ids.count else {
                        Issue.record("batch \(batch): insert at \(p) out of range")
                        return
                    }
                    applied[p.section].ids.insert(id, at: p.row)
                }
                reported += b.objects.count
            }
            #expect(same(applied, now), "batch \(batch): the reported changes do not turn the old results into the new")
            if !same(applied, now) || !same(now, fresh) { return }
        }
        #expect(reported > 20)
    }
}
