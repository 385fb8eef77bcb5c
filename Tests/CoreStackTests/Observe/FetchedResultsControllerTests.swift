import Foundation
import Testing
@testable import CoreStack

@Suite("FetchedResultsController")
struct FetchedResultsControllerTests {
    /// A fixture stack, a controller of it in sections by initial, and its recording delegate.
    struct Harness {
        let stack: TestStack
        let controller: FetchedResultsController<Book>
        let recorder = RecordingDelegate()
        var context: ManagedObjectContext { stack.context }

        init(predicate: Predicate? = nil) throws {
            stack = try BookFixture.makeStack()
            controller = BookFixture.controller(stack.context, predicate: predicate)
            controller.delegate = recorder
            let c = controller
            try stack.context.performAndWait { try c.performFetch() }
        }

        func book(_ title: String) throws -> Book {
            try context.performAndWait {
                let r = FetchRequest<Book>(entityName: "Book", predicate: .key("title") == .string(title))
                return try #require(try context.fetch(r).first)
            }
        }
    }

    @Test("initial fetch: 100 books in sections by initial, # first")
    func initialFetch() throws {
        let h = try Harness()
        try h.context.performAndWait {
            let c = h.controller
            #expect(c.count == 100)
            #expect(c.fetchedObjects.count == 100)
            #expect(c.sectionCount == 24)
            #expect(c.sections.count == 24)
            #expect(c.sections[0].name == "#")
            #expect(c.sections[0].indexTitle == "#")
            #expect(c.sections[1].name == "A")
            #expect(c.sections[1].indexTitle == "A")
            #expect(c.sections[0].objects.map(\.title) == ["1984", "2001: A Space Odyssey", "’Salem’s Lot"])
            #expect(c.sections[1].numberOfObjects == 7)
            #expect(c.sectionIndexTitles.first == "#")
            #expect(c.sectionIndexTitles.last == "Z")
            #expect(c.section(forSectionIndexTitle: "D") == 4)
            #expect(c.cacheName == "books")
            #expect(h.recorder.fetchCount == 1)
            // Index paths and objects agree everywhere.
            for (s, section) in c.sections.enumerated() {
                for (r, book) in section.objects.enumerated() {
                    #expect(c.indexPath(for: book) == IndexPath(row: r, section: s))
                    #expect(c[IndexPath(row: r, section: s)] === book)
                }
            }
            #expect(try c.object(at: [1, 0]).title == "A Clockwork Orange")
            #expect(c[[99, 0]] == nil)
            #expect(throws: CoreStackError.self) { try c.object(at: [0, 99]) }
            // Within each section, the fetch's order.
            let fetched = try h.context.fetch(BookFixture.byTitle()).map(\.title)
            for section in c.sections {
                #expect(section.objects.map(\.title) == fetched.filter { BookFixture.initial($0) == section.name })
            }
        }
    }

    @Test("inserting \"1111\" is reported at (0,0) in one will/did pair")
    func insertAtTop() throws {
        let h = try Harness()
        try h.context.performAndWait {
            let b = try Book(context: h.context)
            b.title = "1111"
            b.pages = 11
        }
        #expect(h.recorder.willCount == 1)
        #expect(h.recorder.didCount == 1)
        #expect(h.recorder.countsAtWill == [100])  // will-change sees the old results
        let changes = h.recorder.allObjectChanges
        #expect(changes.count == 1)
        guard case let .insert(book, at: path)? = changes.first else {
            Issue.record("expected an insert, got \(changes)")
            return
        }
        #expect(book.title == "1111")
        #expect(path == IndexPath(row: 0, section: 0))
        #expect(h.recorder.allSectionChanges.isEmpty)
        h.context.performAndWait { #expect(h.controller.count == 101) }
    }

    @Test("deleting the first book is reported at (0,0)")
    func deleteFirst() throws {
        let h = try Harness()
        let first = try h.book("1984")
        try h.context.performAndWait { try h.context.delete(first) }
        #expect(h.recorder.willCount == 1)
        let changes = h.recorder.allObjectChanges
        #expect(changes.count == 1)
        guard case let .delete(book, at: path)? = changes.first else {
            Issue.record("expected a delete, got \(changes)")
            return
        }
        #expect(book === first)
        #expect(path == IndexPath(row: 0, section: 0))
        h.context.performAndWait {
            #expect(h.controller.count == 99)
            #expect(h.controller.indexPath(for: first) == nil)
            #expect(h.controller.sections[0].objects.first?.title == "2001: A Space Odyssey")
        }
    }

    @Test("a rename across sections is a move; saving it reports nothing more")
    func renameAcrossSections() throws {
        let h = try Harness()
        let dracula = try h.book("Dracula")
        let from = h.context.performAndWait { h.controller.indexPath(for: dracula) }
        #expect(from == IndexPath(row: 3, section: 4))  // David, Death, Don, Dracula
        h.context.performAndWait { dracula.title = "Carmilla" }
        let changes = h.recorder.allObjectChanges
        #expect(changes.count == 1)
        guard case let .move(book, from: old, to: new)? = changes.first else {
            Issue.record("expected a move, got \(changes)")
            return
        }
        #expect(book === dracula)
        #expect(old == IndexPath(row: 3, section: 4))
        #expect(new == IndexPath(row: 0, section: 3))  // Carmilla, Catch-22, …
        #expect(h.recorder.allSectionChanges.isEmpty)
        h.context.performAndWait { #expect(h.controller.indexPath(for: dracula) == new) }
        h.recorder.reset()
        try h.context.performAndWait { try h.context.save() }
        #expect(h.recorder.batches.isEmpty)
    }

    @Test("a rename that keeps the index path is an update")
    func renameInPlace() throws {
        let h = try Harness()
        let dune = try h.book("Dune")
        h.context.performAndWait { dune.title = "Dune Messiah" }
        let changes = h.recorder.allObjectChanges
        #expect(changes.count == 1)
        guard case let .update(book, at: old, newIndexPath: new)? = changes.first else {
            Issue.record("expected an update, got \(changes)")
            return
        }
        #expect(book === dune)
        #expect(old == IndexPath(row: 4, section: 4))
        #expect(new == old)
    }

    @Test("a change through a relationship, or outside the sort keys, is an update")
    func relationshipUpdate() throws {
        let h = try Harness()
        let emma = try h.book("Emma")
        let path = h.context.performAndWait { h.controller.indexPath(for: emma) }
        try h.context.performAndWait {
            let austen = try Author(context: h.context)
            austen.name = "Jane Austen"
            austen.books.insert(emma)  // emma changes through the inverse
        }
        var changes = h.recorder.allObjectChanges
        #expect(changes.count == 1)
        #expect(changes.first.map { if case .update(emma, at: path, newIndexPath: path) = $0 { true } else { false } } == true)
        h.recorder.reset()
        try h.context.performAndWait { try h.context.save() }
        #expect(h.recorder.batches.isEmpty)
        // A publisher set from the publisher's side.
        try h.context.performAndWait {
            let p = try Publisher(context: h.context)
            p.name = "Penguin"
            p.books = [emma]
        }
        changes = h.recorder.allObjectChanges
        #expect(changes.count == 1)
        #expect(changes.first.map { if case .update(emma, _, _) = $0 { true } else { false } } == true)
        h.recorder.reset()
        // Pages are the second sort key, but titles are distinct: the order holds, an update.
        h.context.performAndWait { emma.price = 9.99 }
        #expect(h.recorder.allObjectChanges.count == 1)
        #expect(h.recorder.allObjectChanges.first.map { if case .update = $0 { true } else { false } } == true)
    }

    @Test("a new \"#\" section is inserted, and deleted when its last book goes")
    func sectionInsertAndDelete() throws {
        let h = try Harness()
        let hashBooks = try ["1984", "2001: A Space Odyssey", "’Salem’s Lot"].map { try h.book($0) }
        try h.context.performAndWait { for b in hashBooks { try h.context.delete(b) } }
        #expect(h.recorder.batches.count == 1)
        let deletes = h.recorder.allSectionChanges
        #expect(deletes.count == 1)
        guard case let .delete(info, at: index)? = deletes.first else {
            Issue.record("expected a section delete, got \(deletes)")
            return
        }
        #expect(index == 0)
        #expect(info.name == "#")
        #expect(info.numberOfObjects == 3)
        let deletedPaths = Set(h.recorder.allObjectChanges.compactMap { c -> IndexPath? in if case let .delete(_, p) = c { p } else { nil } })
        #expect(deletedPaths == [IndexPath(row: 0, section: 0), IndexPath(row: 1, section: 0), IndexPath(row: 2, section: 0)])
        h.context.performAndWait {
            #expect(h.controller.sectionCount == 23)
            #expect(h.controller.sections[0].name == "A")
        }
        h.recorder.reset()
        try h.context.performAndWait {
            let b = try Book(context: h.context)
            b.title = "1111"
        }
        let inserts = h.recorder.allSectionChanges
        #expect(inserts.count == 1)
        guard case let .insert(newInfo, at: newIndex)? = inserts.first else {
            Issue.record("expected a section insert, got \(inserts)")
            return
        }
        #expect(newIndex == 0)
        #expect(newInfo.name == "#")
        #expect(newInfo.indexTitle == "#")
        #expect(newInfo.objects.map(\.title) == ["1111"])
        #expect(h.recorder.allObjectChanges.count == 1)
        #expect(h.recorder.allObjectChanges.first.map { if case .insert(_, at: [0, 0]) = $0 { true } else { false } } == true)
    }

    @Test("starting or stopping to match the predicate is an insert or a delete")
    func predicateMembership() throws {
        let h = try Harness(predicate: .key("pages") > 500)
        let (count, inside, outside) = try h.context.performAndWait {
            let all = try h.context.fetch(BookFixture.byTitle())
            let inside = all.first { $0.pages > 500 }
            let outside = all.first { $0.pages <= 500 }
            return (h.controller.count, inside, outside)
        }
        guard let inside, let outside else {
            Issue.record("the fixture has books on both sides of 500 pages")
            return
        }
        #expect(count == 100 - (try h.context.performAndWait {
            try h.context.count(for: FetchRequest<Book>(entityName: "Book", predicate: .key("pages") <= 500))
        }))
        h.context.performAndWait {
            inside.pages = 1
            outside.pages = 999
        }
        #expect(h.recorder.batches.count == 1)
        let changes = h.recorder.allObjectChanges
        #expect(changes.count == 2)
        #expect(changes.contains { if case .delete(inside, _) = $0 { true } else { false } })
        #expect(changes.contains { if case .insert(outside, _) = $0 { true } else { false } })
        h.context.performAndWait {
            #expect(h.controller.indexPath(for: inside) == nil)
            #expect(h.controller.indexPath(for: outside) != nil)
        }
    }

    @Test("with fetchBatchSize objects stay faults until read")
    func batchedFaults() throws {
        let stack = try BookFixture.makeStack()
        let reader = stack.newContext("reader")
        var request = BookFixture.byTitle()
        request.fetchBatchSize = 10
        let controller = FetchedResultsController(fetchRequest: request, context: reader, sectionNameKeyPath: "title")
        try reader.performAndWait {
            try controller.performFetch()
            #expect(controller.count == 100)
            #expect(controller.fetchedObjects.allSatisfy { $0.isFault })
            #expect(controller.sections.first?.name == "1984")
            let book = try controller.object(at: [3, 0])
            #expect(book.isFault)
            #expect(book.title == "A Farewell to Arms")
            // Its batch of ten fired, no more.
            #expect(controller.fetchedObjects.filter { !$0.isFault }.count == 10)
        }
        let plain = FetchedResultsController(fetchRequest: request, context: reader)
        try reader.performAndWait {
            reader.refreshAllObjects()
            try plain.performFetch()
            #expect(plain.sectionCount == 1)
            #expect(plain.sections[0].name == "")
            #expect(plain.fetchedObjects.allSatisfy { $0.isFault })
        }
    }

    @Test("changes merged from another context's save are reported")
    func mergedChanges() throws {
        let h = try Harness()
        let writer = h.stack.newContext("writer")
        let saved = try writer.performAndWait { () -> SavedObjectIDs in
            var ids = SavedObjectIDs()
            let token = writer.addDidSaveObserver { ids = $0.objectIDs }
            let b = try Book(context: writer)
            b.title = "Adam Bede"
            for dune in try writer.fetch(FetchRequest<Book>(entityName: "Book", predicate: .key("title") == "Dune")) {
                dune.title = "Arrakis"
            }
            try writer.save()
            writer.removeObserver(token)
            return ids
        }
        h.context.performAndWait { h.context.mergeChanges(from: saved) }
        let changes = h.recorder.allObjectChanges
        #expect(h.recorder.batches.count == 1)
        #expect(changes.contains { if case let .insert(b, at: [1, 4]) = $0 { b.title == "Adam Bede" } else { false } })
        #expect(changes.contains { if case let .move(b, from: [4, 4], to: [1, 7]) = $0 { b.title == "Arrakis" } else { false } })
    }

    @Test("the event stream carries the delegate's calls with object IDs")
    func eventStream() async throws {
        let h = try Harness()
        let events = h.controller.events()
        let id = try h.context.performAndWait {
            let b = try Book(context: h.context)
            b.title = "1111"
            return b.objectID
        }
        var received: [FetchedResultsEvent] = []
        for await e in events {
            received.append(e)
            if e == .didChangeContent { break }
        }
        #expect(received == [.willChangeContent, .object(.insert(id, at: [0, 0])), .didChangeContent])
    }

    @Test("reset refetches and reports a fetch")
    func resetRefetches() throws {
        let h = try Harness()
        try h.context.performAndWait {
            let b = try Book(context: h.context)
            b.title = "Unsaved"
            h.context.reset()
            #expect(h.controller.count == 100)
            #expect(h.controller.fetchedObjects.allSatisfy { $0.managedObjectContext === h.context })
        }
        #expect(h.recorder.fetchCount == 2)
    }

    @Test("sections by a key path through a relationship follow changes of the related objects")
    func relationshipKeyPathSections() throws {
        let stack = try BookFixture.makeStack()
        let context = stack.context
        let controller = FetchedResultsController(
            fetchRequest: FetchRequest<Book>(
                entityName: "Book", predicate: .key("publisher.name") != nil,
                sortDescriptors: [SortDescriptor("publisher.name"), SortDescriptor("title")]),
            context: context, sectionNameKeyPath: "publisher.name")
        let recorder = RecordingDelegate()
        controller.delegate = recorder
        let (penguin, books) = try context.performAndWait {
            try controller.performFetch()
            #expect(controller.count == 0)
            let p = try Publisher(context: context)
            p.name = "Penguin"
            let books = try context.fetch(BookFixture.byTitle()).prefix(3)
            p.books = Set(books)
            return (p, Array(books))
        }
        #expect(recorder.allSectionChanges.count == 1)
        #expect(recorder.allObjectChanges.count == 3)
        recorder.reset()
        context.performAndWait { penguin.name = "Vintage" }
        #expect(recorder.allSectionChanges.count == 2)  // Penguin goes, Vintage comes
        #expect(recorder.allObjectChanges.count == 3)
        context.performAndWait {
            #expect(controller.sections.map(\.name) == ["Vintage"])
            #expect(controller.sections[0].objects == books.sorted { $0.title < $1.title })
        }
    }
}

@Suite("FetchedResultsController at scale")
struct FetchedResultsControllerScaleTests {
    @Test("a change to one object among 100,000 reads one object's keys: a search and a move, no refetch")
    func oneChangeAmongMany() throws {
        let stack = try TestStack()
        let context = stack.context
        let n = 100_000
        try context.performAndWait {
            for i in 0..<n {
                let b = try Book(context: context)
                b.title = String(format: "Book %06d", i)
                b.pages = i
            }
            try context.save()
        }
        let reader = stack.newContext("reader")
        var request = FetchRequest<Book>(entityName: "Book", sortDescriptors: [SortDescriptor("title")])
        request.fetchBatchSize = 50
        let controller = FetchedResultsController(fetchRequest: request, context: reader, sectionNameKeyPath: "pages")
        let recorder = RecordingDelegate()
        controller.delegate = recorder
        try reader.performAndWait {
            try controller.performFetch()
            #expect(controller.count == n)
            #expect(controller.sectionCount == n)
            #expect(controller.fetchedObjects.allSatisfy { $0.isFault })
            let before = controller.keyReadCount
            let book = try controller.object(at: [10, 0])
            book.title = "Book 999999"  // from section 10 … the sections follow pages, so it stays there
            book.pages = n + 1  // … until its pages move it to the end
            reader.processPendingChanges()
            #expect(controller.keyReadCount == before + 1)
            #expect(recorder.allObjectChanges.count == 1)
            #expect(recorder.allSectionChanges.count == 2)
            #expect(controller.indexPath(for: book) == IndexPath(row: 0, section: n - 1))
            #expect(controller.fetchedObjects.filter { !$0.isFault }.count == 50)
        }
    }
}
