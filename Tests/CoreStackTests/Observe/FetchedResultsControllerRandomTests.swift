import Foundation
import Testing
@testable import CoreStack

@Suite("FetchedResultsController random sequences")
struct FetchedResultsControllerRandomTests {
    /// Titles the random renames and inserts draw from: fixture titles, case variants (equal under
    /// the case-insensitive sort, ordered by pages), titles under "#", and diacritics.
    static let pool: [String] = Array(BookFixture.titles.prefix(30)) + [
        "Dune", "dune", "DUNE", "1111", "’Tis", "007", "Émile", "Zazie dans le métro", "Àlbum", "aaa", "Z", "",
    ]

    @Test(
        "random batches of inserts, deletes, renames and re-sorts turn the old results into a fresh fetch's",
        arguments: [1, 7, 42, 1984, 2024] as [UInt64], [false, true])
    func randomBatches(seed: UInt64, filtered: Bool) throws {
        try Self.run(seed: seed, filtered: filtered, batches: 40, ops: 1...6)
    }

    @Test(
        "bulk batches (dozens of inserts at once, many merged into a section in one pass) turn the old results into a fresh fetch's, retaining and batched controllers",
        arguments: [3, 99, 2718] as [UInt64], [false, true])
    func bulkBatches(seed: UInt64, batched: Bool) throws {
        try Self.run(seed: seed, filtered: seed == 99, batches: 12, ops: 40...120, insertHeavy: true, batched: batched)
    }

    @Test(
        "hundreds of inserts into one section at once (the retaining controller rebuilds its objects in one pass), still as a fresh fetch",
        arguments: [false, true])
    func hundredsIntoOneSection(batched: Bool) throws {
        try Self.run(seed: 5, filtered: false, batches: 3, ops: 600...600, insertHeavy: true, batched: batched, titles: ["Dune", "dune", "DUNE", "Dracula", "Don Quixote", "D"])
    }

    /// A controller of the fixture's books by title in sections by initial (retaining its objects,
    /// or with a batch size), then `batches` random batches of `ops` operations each, checking after
    /// each batch that the results equal a fresh fetch's and that the reported changes turn the old
    /// results into the new.
    static func run(
        seed: UInt64, filtered: Bool, batches: Int, ops: ClosedRange<Int>, insertHeavy: Bool = false, batched: Bool = false,
        titles: [String] = pool
    ) throws {
        let stack = try BookFixture.makeStack()
        let context = stack.context
        let predicate: Predicate? = filtered ? .key("pages") >= 300 : nil
        let controller: FetchedResultsController<Book>
        if batched {
            var request = BookFixture.byTitle(predicate: predicate)
            request.fetchBatchSize = 20
            controller = FetchedResultsController(fetchRequest: request, context: context) { BookFixture.initial($0.title) }
        } else {
            controller = BookFixture.controller(context, predicate: predicate)
        }
        let recorder = RecordingDelegate()
        controller.delegate = recorder
        var rng = SplitMix64(seed: seed)
        var usedPages = Set<Int>()
        func freshPages() -> Int {
            while true {
                let p = Int.random(in: 0..<1_000, using: &rng) * 1_000 + Int.random(in: 0..<1_000, using: &rng)
                if usedPages.insert(p).inserted { return p }
            }
        }
        let all = FetchRequest<Book>(entityName: "Book")
        try context.performAndWait {
            // Distinct pages everywhere, so the order is total.
            for b in try context.fetch(all) { b.pages = freshPages() }
            try context.save()
            try controller.performFetch()
        }
        let author = try context.performAndWait { () -> Author in
            let a = try Author(context: context)
            a.name = "Anonymous"
            try context.save()
            return a
        }
        var reported = 0
        for batch in 0..<batches {
            recorder.reset()
            let old = context.performAndWait { SectionSnapshot.of(controller) }
            let viaChild = Int.random(in: 0..<5, using: &rng) == 0
            let count = Int.random(in: ops, using: &rng)
            var script: [(op: Int, pick: Int, title: String, pages: Int)] = []
            for _ in 0..<count {
                // Insert-heavy batches: seven in ten operations insert.
                let op = insertHeavy ? (Int.random(in: 0..<10, using: &rng) < 7 ? 0 : Int.random(in: 2..<6, using: &rng)) : Int.random(in: 0..<6, using: &rng)
                script.append((op, Int.random(in: 0..<10_000, using: &rng), titles[Int.random(in: 0..<titles.count, using: &rng)], freshPages()))
            }
            let save = Int.random(in: 0..<4, using: &rng) == 0
            let target: ManagedObjectContext = viaChild ? ManagedObjectContext(concurrencyType: .privateQueue, parent: context) : context
            try target.performAndWait {
                var books = try target.fetch(all)
                for step in script {
                    switch step.op {
                    case 0, 1:
                        let b = try Book(context: target)
                        b.title = step.title
                        b.pages = step.pages
                        books.append(b)
                    case 2 where !books.isEmpty:
                        let b = books.remove(at: step.pick % books.count)
                        try target.delete(b)
                    case 3 where !books.isEmpty:
                        books[step.pick % books.count].title = step.title
                    case 4 where !books.isEmpty:
                        books[step.pick % books.count].pages = step.pages
                    case 5 where !books.isEmpty:
                        let a = try target.existingObject(with: author.objectID)
                        try a.add(books[step.pick % books.count], toKey: "books")
                    default:
                        break
                    }
                }
                if viaChild || save { try target.save() }
            }
            if viaChild && save { try context.performAndWait { try context.save() } }
            let (now, fresh) = try context.performAndWait { () -> ([SectionSnapshot], [SectionSnapshot]) in
                let check = BookFixture.controller(context, predicate: predicate)
                try check.performFetch()
                return (SectionSnapshot.of(controller), SectionSnapshot.of(check))
            }
            #expect(now == fresh, "batch \(batch): the controller's results differ from a fresh fetch")
            var applied = old
            for b in recorder.batches {
                switch ChangeApplier.apply(b, to: applied) {
                case let .success(next): applied = next
                case let .failure(f):
                    Issue.record("batch \(batch): \(f)")
                    return
                }
                reported += b.objects.count
            }
            #expect(applied == now, "batch \(batch): the reported changes do not turn the old results into the new")
            #expect(recorder.willCount == recorder.didCount)
            if applied != now || now != fresh { return }
        }
        #expect(reported > batches)
    }
}
