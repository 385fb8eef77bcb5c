import Foundation
import Testing
@testable import CoreStack

/// A context's entry points trap when called off its queue, in every build (issue 19).
@Suite("queue confinement")
struct QueueConfinementTests {
    @Test("fetch from a thread that does not hold a private context's queue ends the process with a message naming the context and its queue")
    func offQueueFetchTraps() async throws {
        let result = try await #require(
            processExitsWith: .failure, observing: [\.standardErrorContent]
        ) {
            let stack = try TestStack(.inMemory)
            let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: stack.coordinator, name: "confined")
            _ = try context.fetch(FetchRequest<Book>(entityName: "Book"))
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("CoreStack concurrency violation: fetch"))
        #expect(message.contains("confined"))
        #expect(message.contains("use perform or performAndWait"))
    }

    @Test("the same fetch inside performAndWait is fine, and observers can be added from another thread")
    func onQueueIsFine() throws {
        let stack = try TestStack(.inMemory)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: stack.coordinator, name: "confined")
        let token = context.addObjectsDidChangeObserver { _ in }
        let count = try context.performAndWait { try context.fetch(FetchRequest<Book>(entityName: "Book")).count }
        #expect(count == 0)
        context.removeObserver(token)
    }
}
