import Foundation
import TestSupportKit
import Testing
@testable import CoreStack

/// Several root contexts on several threads save overlapping books in one SQLite file, for a
/// bounded time, under each merge policy; then the file is checked with the `sqlite3` tool.
///
/// The invariant checked after the concurrent phase is the one optimistic locking promises: no
/// lost update. Every successful save of a row claims the version it wrote (the `Z_OPT` its object
/// was settled with); for each row the claims are exactly 2…`Z_OPT` (the insert wrote 1), each
/// once, and the row on disk holds the values of the claim with the highest version. A last round
/// with two contexts in a known order checks the winner of each property under the policy.
///
/// Under `.error` a conflicting save is caught and rolled back; under the other policies every
/// save must succeed, except that contexts on coordinators of their own may lose all four
/// attempts to each other's connections (counted; on one coordinator it must not happen).
@Suite("Merge stress: concurrent saves of overlapping objects under each merge policy")
struct MergeStressTests {
    /// Where the contexts' stores come from.
    enum Layout: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// Every context is a root context of one coordinator (one connection).
        case sharedCoordinator
        /// Every context has a coordinator and an `SQLiteStore` of its own on the same file.
        case coordinatorPerContext

        var testDescription: String { rawValue }
    }

    static let workers = 4
    static let books = 6
    /// How long the concurrent phase of one case runs; each worker also does at least
    /// `minimumRounds` saves, so a starved thread still takes part.
    static let phase: TimeInterval = 1.0
    static let minimumRounds = 5

    /// What a book held after a save, as the store has it.
    struct Row: Equatable, Sendable, CustomStringConvertible {
        var title: String
        var pages: Int
        var price: Double?

        var description: String { "\(title) | \(pages) | \(price.map { "\($0)" } ?? "nil")" }
    }

    /// A successful save's claim on one row: the version it wrote and the values.
    struct Claim: Sendable {
        var primaryKey: Int64
        var version: Int64
        var row: Row
    }

    /// What one worker did.
    struct Log: Sendable {
        var claims: [Claim] = []
        var saves = 0
        var conflicts = 0
        var resolved = 0
        /// Saves under a resolving policy that failed because other connections won every attempt.
        var exhausted = 0
        var unexpected: [String] = []
    }

    static let policies: [MergePolicy] = [.error, .mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .overwrite, .rollback]

    /// Every book, read from the store (not from a cache), by primary key.
    static func fetchFresh(_ ctx: ManagedObjectContext) throws -> [Book] {
        var request = FetchRequest<Book>(entityName: "Book", sortDescriptors: [SortDescriptor("isbn")])
        request.returnsObjectsAsFaults = false
        return try ctx.fetch(request)
    }

    /// The book's values and the version its context last read or wrote.
    static func claim(_ b: Book) -> Claim? {
        guard let pk = b.objectID.primaryKey, let version = b.committed?.version else { return nil }
        return Claim(primaryKey: pk, version: version, row: Row(title: b.title, pages: b.pages, price: b.price))
    }

    /// One worker: until `deadline` (and at least `minimumRounds` times), on the context's
    /// queue, sometimes re-read every book from the store, change one to three of them (title,
    /// pages and price, overlapping with the other workers) and save.
    /// With `tolerateExhaustion` (contexts on coordinators of their own), a resolving policy's
    /// save that still conflicts after its last attempt is counted, not reported.
    static func work(
        _ ctx: ManagedObjectContext, worker: Int, policy: MergePolicy, seed: UInt64, deadline: Date, tolerateExhaustion: Bool
    ) -> Log {
        var log = Log()
        var rng = SplitMix64(seed: seed)  // each worker's edits the same on every run; only the interleaving varies
        var round = 0
        while round < minimumRounds || Date() < deadline {
            round += 1
            ctx.performAndWait {
                do {
                    // Every other round (by the seed) starts from the store; otherwise the
                    // context keeps what it read or wrote before, which others have overwritten.
                    if Bool.random(using: &rng) { ctx.reset() }
                    let all = try fetchFresh(ctx)
                    guard all.count == books else {
                        log.unexpected.append("worker \(worker) fetched \(all.count) books")
                        return
                    }
                    var changed: [Book] = []
                    for _ in 0..<Int.random(in: 1...3, using: &rng) {
                        let b = all[Int.random(in: 0..<books, using: &rng)]
                        let which = Int.random(in: 0..<3, using: &rng)
                        if which != 1 { b.title = "w\(worker)-r\(round)" }
                        if which != 2 { b.pages = worker * 100_000 + round }
                        if which != 0 { b.price = Double(worker * 100_000 + round) + 0.5 }
                        changed.append(b)
                    }
                    do {
                        try ctx.save()
                    } catch let CoreStackError.mergeConflict(conflicts) where policy == .error {
                        log.conflicts += 1
                        guard !conflicts.isEmpty else {
                            log.unexpected.append("worker \(worker): a merge conflict error with no conflicts")
                            return
                        }
                        ctx.rollback()
                        return
                    } catch CoreStackError.mergeConflict(_) where policy != .error && tolerateExhaustion {
                        // Another connection won all four attempts (see the save path in
                        // Sources/CoreStack/CoreStack.docc/Reference/Architecture.md): nothing was written, and nothing is claimed.
                        log.exhausted += 1
                        ctx.rollback()
                        return
                    }
                    log.saves += 1
                    log.resolved += ctx.lastSaveMergeResolutions.count
                    // The did-save's updated objects are the ones changed above (no other
                    // context merges into this one); each was written with a new version, or not
                    // written at all when the policy dropped every change it had (it then holds
                    // the stored row: see checkNoLostUpdate).
                    for b in Set(changed) {
                        guard b.hasChanges == false, let c = claim(b) else {
                            log.unexpected.append("worker \(worker): \(b.objectID) not settled after the save")
                            continue
                        }
                        log.claims.append(c)
                    }
                } catch {
                    log.unexpected.append("worker \(worker) round \(round): \(error)")
                    ctx.rollback()
                }
            }
        }
        return log
    }

    /// Runs each context's worker on a thread of its own until every worker is done.
    static func runConcurrently(
        _ contexts: [ManagedObjectContext], policy: MergePolicy, seed: UInt64, tolerateExhaustion: Bool
    ) -> [Log] {
        let logs = LockedValue<[Int: Log]>([:])
        let group = DispatchGroup()
        let deadline = Date().addingTimeInterval(phase)
        for (i, ctx) in contexts.enumerated() {
            group.enter()
            let thread = Thread {
                let log = work(ctx, worker: i, policy: policy, seed: seed &+ UInt64(i) &* 7919, deadline: deadline,
                    tolerateExhaustion: tolerateExhaustion)
                logs.withLock { $0[i] = log }
                group.leave()
            }
            thread.name = "merge-stress-\(i)"
            thread.start()
        }
        group.wait()
        return logs.withLock { logs in contexts.indices.map { logs[$0] ?? Log() } }
    }

    /// The rows of ZBOOK as the `sqlite3` tool reads them (list mode, `|` between columns): primary key → (Z_OPT, values).
    static func rowsOnDisk(_ url: URL) throws -> [Int64: (version: Int64, row: Row)] {
        let text = try StoreDamage.sqlite3(
            url, "SELECT Z_PK, Z_OPT, ZTITLE, ZPAGES, IFNULL(ZPRICE, 'nil') FROM ZBOOK ORDER BY Z_PK;")
        var out: [Int64: (version: Int64, row: Row)] = [:]
        for line in text.split(separator: "\n") {
            let f = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard f.count == 5, let pk = Int64(f[0]), let version = Int64(f[1]), let pages = Int(f[3]) else {
                throw StoreDamage.ToolFailed(description: "unexpected row from sqlite3: \(line)")
            }
            out[pk] = (version, Row(title: f[2], pages: pages, price: f[4] == "nil" ? nil : Double(f[4])))
        }
        return out
    }

    /// A store file with `books` books, and the contexts of the layout on it (each with the
    /// policy), plus a way to make one more root context on a coordinator of its own.
    struct Fixture {
        let url: URL
        let model: ManagedObjectModel
        let contexts: [ManagedObjectContext]

        init(_ layout: Layout, policy: MergePolicy) throws {
            model = try LibraryModel.make()
            url = try TemporaryRoot.folder("merge-stress").appendingPathComponent("Stress.sqlite")
            let first = PersistentStoreCoordinator(managedObjectModel: model)
            try first.addPersistentStore(try SQLiteStore(url: url, model: model))
            var contexts: [ManagedObjectContext] = []
            for i in 0..<MergeStressTests.workers {
                let coordinator: PersistentStoreCoordinator
                if layout == .sharedCoordinator || i == 0 {
                    coordinator = first
                } else {
                    coordinator = PersistentStoreCoordinator(managedObjectModel: model)
                    try coordinator.addPersistentStore(try SQLiteStore(url: url, model: model))
                }
                let ctx = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: "stress-\(i)")
                ctx.performAndWait { ctx.mergePolicy = policy }
                contexts.append(ctx)
            }
            self.contexts = contexts
            let setup = contexts[0]
            try setup.performAndWait {
                for i in 0..<MergeStressTests.books {
                    let b = try Book(context: setup)
                    b.title = "b\(i)"
                    b.pages = i
                    b.isbn = UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", i))
                }
                try setup.save()
                setup.reset()
            }
        }
    }

    @Test(
        "concurrent saves: integrity_check ok, only expected errors, no lost update (Z_OPT), then the winners of a known conflict",
        arguments: Layout.allCases, policies)
    func stress(layout: Layout, policy: MergePolicy) throws {
        let fixture = try Fixture(layout, policy: policy)
        let seed = UInt64(Self.policies.firstIndex(of: policy) ?? 0) &* 1_000_003 &+ (layout == .sharedCoordinator ? 1 : 2)
        let logs = Self.runConcurrently(
            fixture.contexts, policy: policy, seed: seed, tolerateExhaustion: layout == .coordinatorPerContext)

        #expect(try StoreDamage.sqlite3(fixture.url, "PRAGMA integrity_check;") == "ok")
        let unexpected = logs.flatMap(\.unexpected)
        #expect(unexpected.isEmpty, "\(unexpected.prefix(5).joined(separator: "\n"))")
        #expect(logs.map(\.saves).reduce(0, +) > 0)
        if policy != .error { #expect(logs.map(\.conflicts).reduce(0, +) == 0) }
        // On one coordinator the retries run under its save lock, so a resolving policy never
        // runs out of attempts.
        if layout == .sharedCoordinator { #expect(logs.map(\.exhausted).reduce(0, +) == 0) }

        var claims = logs.flatMap(\.claims)
        try Self.checkNoLostUpdate(claims, url: fixture.url)

        // The known conflict: B reads book 0 from the store, A changes its title and pages and
        // saves, then B changes its title and price and saves under the policy.
        let a = fixture.contexts[1], b = fixture.contexts[Self.workers - 1]
        let (id, read): (ManagedObjectID, Row) = try b.performAndWait {
            b.reset()
            let book = try #require(try Self.fetchFresh(b).first)
            return (book.objectID, Row(title: book.title, pages: book.pages, price: book.price))
        }
        try a.performAndWait {
            a.reset()
            let book = try #require(try Self.fetchFresh(a).first { $0.objectID == id })
            book.title = "A-final"
            book.pages = read.pages + 1_000_000
            try a.save()
            claims.append(try #require(Self.claim(book)))
        }
        let lastWriter: Row? = try b.performAndWait {
            let book = try #require(try b.existingObject(with: id) as? Book)
            book.title = "B-final"
            book.price = 0.25
            do {
                try b.save()
            } catch CoreStackError.mergeConflict(_) where policy == .error {
                b.rollback()
                return nil
            }
            claims.append(try #require(Self.claim(book)))
            return Row(title: book.title, pages: book.pages, price: book.price)
        }
        let fromA = Row(title: "A-final", pages: read.pages + 1_000_000, price: read.price)
        let expected: Row =
            switch policy {
            case .error: fromA
            case .mergeByPropertyObjectTrump: Row(title: "B-final", pages: fromA.pages, price: 0.25)
            case .mergeByPropertyStoreTrump: Row(title: "A-final", pages: fromA.pages, price: 0.25)
            case .overwrite: Row(title: "B-final", pages: read.pages, price: 0.25)
            case .rollback, .custom: fromA
            }
        if policy == .error { #expect(lastWriter == nil) } else { #expect(lastWriter == expected) }
        let disk = try Self.rowsOnDisk(fixture.url)
        #expect(disk[try #require(id.primaryKey)]?.row == expected)
        try Self.checkNoLostUpdate(claims, url: fixture.url)
        #expect(try StoreDamage.sqlite3(fixture.url, "PRAGMA integrity_check;") == "ok")
    }

    /// For each row on disk: the versions successful saves claimed are 2…Z_OPT, none missing,
    /// and the row holds the values of the highest claim. A version claimed twice comes from a
    /// save that wrote nothing (the policy dropped each of its changes, so the object holds the
    /// stored row as another save wrote it): both claims hold the same values.
    static func checkNoLostUpdate(_ claims: [Claim], url: URL) throws {
        let disk = try rowsOnDisk(url)
        #expect(disk.count == books)
        let byRow = Dictionary(grouping: claims, by: \.primaryKey)
        for (pk, stored) in disk.sorted(by: { $0.key < $1.key }) {
            let mine = (byRow[pk] ?? []).sorted { $0.version < $1.version }
            #expect(
                Array(Set(mine.map(\.version))).sorted() == Array(stride(from: Int64(2), through: stored.version, by: 1)),
                "Z_PK \(pk): Z_OPT \(stored.version), versions claimed \(mine.map(\.version))")
            for (version, same) in Dictionary(grouping: mine, by: \.version) where same.count > 1 {
                #expect(same.allSatisfy { $0.row == same[0].row }, "Z_PK \(pk): version \(version) claimed with different values \(same.map(\.row))")
            }
            if let last = mine.last {
                #expect(last.row == stored.row, "Z_PK \(pk): on disk \(stored.row), last save wrote \(last.row)")
            }
        }
    }
}
