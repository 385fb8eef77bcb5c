import Foundation
import Testing

@testable import CoreStack

/// The titles of the books `request` fetches, in order.
private func titles(_ context: ManagedObjectContext, _ request: FetchRequest<PBook>) throws -> [String] {
    try context.performAndWait { try context.fetch(request).map(\.title) }
}

@Suite("#Predicate and key paths in requests, controllers, monitors and batch requests")
struct SwiftPredicateRequestTests {
    @Test("unsupported parts are a typed error when the request is made, naming the part")
    func unsupportedParts() {
        let cases: [(Foundation.Predicate<PBook>, String, String)] = [
            (#Predicate { $0.title.count > 5 }, "PredicateExpressions.KeyPath", "length of a string"),
            (#Predicate { $0.pages * 2 > 100 }, "PredicateExpressions.Arithmetic", "no translation"),
            (#Predicate { $0.chapters.first?.title == "War 1.1" }, "PredicateExpressions.KeyPath", "first or last"),
            (#Predicate { $0.initial == "D" }, "key path \\PBook → String", "read-only"),
            (#Predicate { $0.scratch > 0 }, "key path \\PBook → Int", "names no property"),
            (#Predicate { $0.title.starts(with: $0.tagline ?? "") }, "PredicateExpressions.SequenceStartsWith", "not a constant string"),
        ]
        for (predicate, part, reason) in cases {
            #expect {
                _ = try FetchRequest<PBook>(predicate: predicate)
            } throws: { error in
                guard case let CoreStackError.unsupportedPredicate(p, r) = error else { return false }
                return p == part && r.contains(reason) && "\(error)".hasPrefix("#Predicate: `\(part)`")
            }
        }
    }

    @Test("count, and unsaved objects filtered in memory")
    func countAndPendingObjects() throws {
        let stack = try PredicateFixture.sqliteStack(typed: true)
        let context = stack.context
        try context.performAndWait {
            let swift = try FetchRequest<PBook>(predicate: #Predicate { $0.pages > 300 })
            let strings = FetchRequest<PBook>(predicate: .key("pages") > 300)
            #expect(try context.count(for: swift) == context.count(for: strings))
            #expect(try context.count(for: swift) > 0)
            let before = try context.count(for: swift)
            for pages in [100, 400, 500] {
                let book = try PBook(context: context)
                book.title = "Unsaved \(pages)"
                book.pages = pages
            }
            // The two unsaved books over 300 pages count, evaluated in memory.
            #expect(try context.count(for: swift) == before + 2)
            #expect(try context.fetch(swift).filter { $0.title.hasPrefix("Unsaved") }.map(\.pages).sorted() == [400, 500])
        }
    }

    @Test("sort descriptors from key paths order as their string twins")
    func keyPathSort() throws {
        let stack = try PredicateFixture.sqliteStack(typed: true)
        let byKeyPath = FetchRequest<PBook>(sortDescriptors: [try SortDescriptor(\PBook.pages, ascending: false), try SortDescriptor(\PBook.title)])
        let byString = FetchRequest<PBook>(sortDescriptors: [SortDescriptor("pages", ascending: false), SortDescriptor("title")])
        #expect(byKeyPath.sortDescriptors == byString.sortDescriptors)
        let ordered = try titles(stack.context, byKeyPath)
        #expect(ordered == (try titles(stack.context, byString)))
        #expect(ordered.count == PredicateFixture.data.books.count)
        let foundation = try CoreStack.SortDescriptor(Foundation.SortDescriptor(\PBook.title, order: .reverse))
        #expect(foundation == SortDescriptor("title", ascending: false))
        #expect(try CoreStack.SortDescriptor(Foundation.SortDescriptor(\PBook.tagline)) == SortDescriptor("subtitle"))
        #expect(throws: CoreStackError.self) { try CoreStack.SortDescriptor(\PBook.initial) }
    }

    @Test("propertiesToFetch and prefetching from key paths")
    func propertiesAndPrefetching() throws {
        let stack = try PredicateFixture.sqliteStack(typed: true)
        let context = stack.context
        var request = try FetchRequest<PBook>(predicate: #Predicate { $0.title == "Dune" })
        try request.setPropertiesToFetch([\.title, \.pages, \.publisher])
        #expect(request.propertiesToFetch == ["title", "pages", "publisher"])
        let rows = try context.performAndWait { try context.fetchDictionaries(request) }
        #expect(rows.count == 1)
        #expect(rows.first.map { Set($0.keys) } == ["title", "pages", "publisher"])
        #expect(rows.first?["title"] == .string("Dune"))

        var prefetching = try FetchRequest<PBook>(predicate: #Predicate { $0.title == "Dune" })
        try prefetching.setRelationshipKeyPathsForPrefetching([\.authors, \.publisher])
        #expect(prefetching.relationshipKeyPathsForPrefetching == ["authors", "publisher"])
        try context.performAndWait {
            let dune = try #require(try context.fetch(prefetching).first)
            #expect(dune.authors.map(\.name).sorted() == ["Émile Zola", "村上春樹"].sorted())
            #expect(dune.publisher?.name == "Ace")
        }
        #expect(throws: CoreStackError.self) { try prefetching.setRelationshipKeyPathsForPrefetching([\.initial]) }
    }

    @Test("a section key path of a property reads rows; a computed one goes through a closure")
    func sections() throws {
        let stack = try PredicateFixture.sqliteStack(typed: true)
        let context = stack.context
        try context.performAndWait {
            let request = FetchRequest<PBook>(sortDescriptors: [try SortDescriptor(\PBook.inPrint), try SortDescriptor(\PBook.title)])
            let byKeyPath = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: \PBook.inPrint)
            let byString = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: "inPrint")
            try byKeyPath.performFetch()
            try byString.performFetch()
            #expect(byKeyPath.sectionNameKeyPath == "inPrint")
            #expect(byKeyPath.sections.map(\.name) == byString.sections.map(\.name))
            #expect(byKeyPath.sections.map(\.numberOfObjects) == byString.sections.map(\.numberOfObjects))
            #expect(byKeyPath.sections.count == 2)

            let byTitle = FetchRequest<PBook>(sortDescriptors: [try SortDescriptor(\PBook.title)])
            let byInitial = FetchedResultsController(fetchRequest: byTitle, context: context, sectionNameKeyPath: \PBook.initial)
            try byInitial.performFetch()
            #expect(byInitial.sectionNameKeyPath == nil)
            let expected = Set(PredicateFixture.data.books.map { String($0.title.prefix(1)) })
            #expect(Set(byInitial.sections.map(\.name)) == expected)
            for section in byInitial.sections {
                #expect(section.objects.allSatisfy { $0.title.hasPrefix(section.name) })
            }
        }
    }

    @Test("a controller of a #Predicate request follows inserted objects, matched in memory")
    func controllerFollowsChanges() throws {
        let stack = try PredicateFixture.inMemoryStack(typed: true)
        let context = stack.context
        try context.performAndWait {
            let request = try FetchRequest<PBook>(predicate: #Predicate { $0.pages > 500 }, sortDescriptors: [try SortDescriptor(\PBook.title)])
            let controller = FetchedResultsController(fetchRequest: request, context: context)
            try controller.performFetch()
            let before = controller.fetchedObjects.count
            #expect(before == PredicateFixture.data.books.filter { $0.pages > 500 }.count)
            #expect(before > 0)
            let long = try PBook(context: context)
            long.title = "Long"
            long.pages = 900
            let short = try PBook(context: context)
            short.title = "Short"
            short.pages = 10
            context.processPendingChanges()
            #expect(controller.fetchedObjects.count == before + 1)
            #expect(controller.fetchedObjects.contains(long))
            #expect(!controller.fetchedObjects.contains(short))
        }
    }

    @Test("an entity monitor filtered by a #Predicate reports only matching objects")
    func monitor() throws {
        let stack = try PredicateFixture.inMemoryStack(typed: true)
        let context = stack.context
        try context.performAndWait {
            let monitor = try EntityMonitor<PBook>(context: context, frequency: .onChange, filter: #Predicate { $0.pages > 300 && $0.title.contains("New") })
            let recorder = SwiftPredicateMonitorRecorder()
            monitor.delegate = recorder
            for (title, pages) in [("New long", 400), ("New short", 100), ("Old long", 500)] {
                let book = try PBook(context: context)
                book.title = title
                book.pages = pages
            }
            context.processPendingChanges()
            #expect(recorder.inserted == ["New long"])
        }
    }

    @Test("batch update and delete with a #Predicate change what their string twins select")
    func batchRequests() throws {
        let stack = try PredicateFixture.sqliteStack(typed: true)
        let context = stack.context
        try context.performAndWait {
            let longBooks = try context.count(for: FetchRequest<PBook>(predicate: .key("pages") > 400))
            let update = try BatchUpdateRequest(entityName: "Book", predicate: #Predicate<PBook> { $0.pages > 400 }, propertiesToUpdate: ["subtitle": .string("Long")])
            _ = try context.execute(update)
            #expect(longBooks > 0)
            #expect(try context.count(for: FetchRequest<PBook>(predicate: .key("subtitle") == "Long")) == longBooks)

            let wordy = try context.count(for: FetchRequest<PChapter>(predicate: .key("words") > 3000))
            let all = try context.count(for: FetchRequest<PChapter>())
            _ = try context.execute(try BatchDeleteRequest(entityName: "Chapter", predicate: #Predicate<PChapter> { ($0.words ?? 0) > 3000 }))
            #expect(wordy > 0)
            #expect(try context.count(for: FetchRequest<PChapter>()) == all - wordy)
        }
    }
}

/// Records an entity monitor's insertions by title.
private final class SwiftPredicateMonitorRecorder: EntityMonitorDelegate {
    var inserted: Set<String> = []
    func entityMonitor(_ monitor: EntityMonitor<PBook>, didInsert objects: Set<PBook>) {
        inserted.formUnion(objects.map(\.title))
    }
}
