import Foundation
import Testing

@testable import CoreStack

/// A save that ends with nothing to write writes nothing: no row (its Z_OPT stays), no history
/// transaction, so no other process hears of a change.
@Suite("a save with nothing to write writes nothing")
struct EmptySaveTests {
    /// One note "a" saved by the stack's context; returns its ID.
    static func note(_ stack: HistoryStack) throws -> ManagedObjectID {
        try stack.insertNotes(["a"])
        return try stack.context.performAndWait {
            try #require(try stack.context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).first).objectID
        }
    }

    static func opt(_ stack: HistoryStack) throws -> Int {
        try RawSQLite.scalar("SELECT Z_OPT FROM ZNOTE", in: stack.url)
    }

    static func transactions(_ stack: HistoryStack) throws -> Int {
        try RawSQLite.scalar("SELECT COUNT(*) FROM ATRANSACTION", in: stack.url)
    }

    @Test("under the rollback policy, a conflict that rolls back every change leaves the row and the history alone")
    func rollbackLeavesNothing() throws {
        let stack = try HistoryStack(url: try HistoryStack.newURL(), model: try NoteModel.make())
        let id = try Self.note(stack)
        let mine = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: stack.coordinator, name: "mine")
        mine.mergePolicy = .rollback
        let held = try mine.performAndWait {
            let o = try mine.existingObject(with: id)
            _ = try o.value(forKey: "text")
            return o
        }
        // Another context saves first: the row is at the next version.
        try stack.context.performAndWait {
            try stack.context.existingObject(with: id).setValue("theirs", forKey: "text")
            try stack.context.save()
        }
        let opt = try Self.opt(stack), count = try Self.transactions(stack)
        try mine.performAndWait {
            try held.setValue("mine", forKey: "text")
            try mine.save()
            #expect(try held.value(forKey: "text") as? String == "theirs")
            #expect(!mine.hasChanges)
        }
        #expect(try Self.opt(stack) == opt)
        #expect(try Self.transactions(stack) == count)
    }

    @Test("an object changed and changed back is not written")
    func unchangedUpdate() throws {
        let stack = try HistoryStack(url: try HistoryStack.newURL(), model: try NoteModel.make())
        let id = try Self.note(stack)
        let opt = try Self.opt(stack), count = try Self.transactions(stack)
        try stack.context.performAndWait {
            let o = try stack.context.existingObject(with: id)
            try o.setValue("b", forKey: "text")
            try o.setValue("a", forKey: "text")
            try stack.context.save()
            #expect(!stack.context.hasChanges)
        }
        #expect(try Self.opt(stack) == opt)
        #expect(try Self.transactions(stack) == count)
        // A real change afterwards still saves, at the next version.
        try stack.context.performAndWait {
            try stack.context.existingObject(with: id).setValue("c", forKey: "text")
            try stack.context.save()
        }
        #expect(try Self.opt(stack) == opt + 1)
        #expect(try Self.transactions(stack) == count + 1)
    }
}
