import Foundation
import Testing
@testable import CoreStack

@Suite("FetchHelpers on a CoreDataStack: all, findFirst, count, removeAll, removeAll(except:)")
struct FetchHelpersStackTests {
    static let titles = ["Emma", "Dune", "Ubik", "Beloved", "Carrie"]

    /// An in-memory and an SQLite stack, each with 5 saved books.
    static func stackWithFiveBooks(_ kind: StackKind, folder: StackTempFolder) async throws -> CoreDataStack {
        let stack = try await CoreDataStackTests.makeStack(kind, folder: folder)
        let worker = stack.newChildContext()
        try await worker.perform {
            for (i, t) in titles.enumerated() {
                let b = try Book(context: worker)
                b.title = t
                b.pages = (i + 1) * 100
            }
            try worker.save()
        }
        await stack.waitForPendingSaves()
        return stack
    }

    @Test("findFirst, all with a predicate and a sort, count", arguments: StackKind.allCases)
    func reading(kind: StackKind) async throws {
        let folder = try StackTempFolder("fetch")
        let stack = try await Self.stackWithFiveBooks(kind, folder: folder)
        let main = stack.mainQueueContext
        try await main.perform {
            #expect(try Book.findFirst(in: main, predicate: .key("title") == "Ubik")?.pages == 300)
            #expect(try Book.findFirst(in: main, predicate: .key("title") == "Nothing") == nil)
            #expect(try Book.findFirst(in: main, sortedBy: [SortDescriptor("title")])?.title == "Beloved")
            let long = try Book.all(in: main, predicate: .key("pages") > 200, sortedBy: [SortDescriptor("title")])
            #expect(long.map(\.title) == ["Beloved", "Carrie", "Ubik"])
            let all = try Book.all(in: main, sortedBy: [SortDescriptor("pages", ascending: false)])
            #expect(all.map(\.title) == ["Carrie", "Beloved", "Ubik", "Dune", "Emma"])
            #expect(try Book.count(in: main) == 5)
            #expect(try Book.count(in: main, predicate: .key("pages") <= 200) == 2)
            #expect(try Author.count(in: main) == 0)
        }
    }

    @Test("removeAll deletes every book, and the deletion reaches the store", arguments: StackKind.allCases)
    func removeAll(kind: StackKind) async throws {
        let folder = try StackTempFolder("fetch")
        let stack = try await Self.stackWithFiveBooks(kind, folder: folder)
        let worker = stack.newChildContext()
        try await worker.perform {
            try Book.removeAll(in: worker)
            #expect(try Book.count(in: worker) == 0)
            try worker.save()
        }
        await stack.waitForPendingSaves()
        #expect(try await countObjects("Book", in: stack.privateQueueContext) == 0)
    }

    @Test("removeAll(except:) keeps the 3 books given", arguments: StackKind.allCases)
    func removeAllExcept(kind: StackKind) async throws {
        let folder = try StackTempFolder("fetch")
        let stack = try await Self.stackWithFiveBooks(kind, folder: folder)
        let main = stack.mainQueueContext
        try await main.perform {
            let keep = try Book.all(in: main, predicate: .key("pages") >= 300)
            #expect(keep.count == 3)
            try Book.removeAll(in: main, except: keep)
            #expect(try Book.all(in: main, sortedBy: [SortDescriptor("title")]).map(\.title) == ["Beloved", "Carrie", "Ubik"])
            try main.save()
        }
        await stack.waitForPendingSaves()
        let root = stack.privateQueueContext
        let left = try await root.perform { try Book.all(in: root, sortedBy: [SortDescriptor("title")]).map(\.title) }
        #expect(left == ["Beloved", "Carrie", "Ubik"])
    }
}
