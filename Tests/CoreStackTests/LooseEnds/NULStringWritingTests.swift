import Foundation
import Testing

@testable import CoreStack

/// Strings holding NUL that the engine writes besides attribute values: history's author and
/// context names, and the default of an attribute a migration adds. GRDB binds a string up to
/// its first NUL, so each is bound whole (as a save binds a value) and read back whole.
@Suite("strings holding NUL: history names and migration defaults")
struct NULStringWritingTests {
    @Test("a history author and context name holding NUL are recorded, read and filtered on whole")
    func historyNames() throws {
        let author = "im\0porter", name = "ctx\0one"
        let stack = try HistoryStack(url: try HistoryStack.newURL(), model: try NoteModel.make(), name: name)
        try stack.insertNotes(["a"], author: author)
        try stack.insertNotes(["b"], author: "im")
        let all = try stack.history()
        #expect(all.map(\.author) == [author, "im"])
        #expect(all.map(\.contextName) == [name, name])
        // Two authors that agree up to the NUL are two strings.
        #expect(try RawSQLite.scalar("SELECT COUNT(*) FROM ATRANSACTIONSTRING WHERE ZNAME LIKE 'im%'", in: stack.url) == 2)
        var byAuthor = PersistentHistoryChangeRequest.fetchHistory(after: nil)
        byAuthor.author = author
        #expect(try stack.coordinator.execute(byAuthor).transactions.map(\.transactionNumber) == [1])
        byAuthor.author = "im"
        #expect(try stack.coordinator.execute(byAuthor).transactions.map(\.transactionNumber) == [2])
        var byContext = PersistentHistoryChangeRequest.fetchHistory(after: nil)
        byContext.contextName = "ctx"
        #expect(try stack.coordinator.execute(byContext).transactions.isEmpty)
        byContext.contextName = name
        #expect(try stack.coordinator.execute(byContext).transactions.count == 2)
    }

    @Test("an attribute a migration adds gets its string default whole, NUL and what follows included")
    func migrationDefault() throws {
        let v1 = try ManagedObjectModel(versionName: "1") {
            EntityDescription("Note") {
                AttributeDescription("text", .string)
                AttributeDescription("stars", .integer16)
            }
        }
        let v2 = try ManagedObjectModel(versionName: "2") {
            EntityDescription("Note") {
                AttributeDescription("text", .string)
                AttributeDescription("stars", .integer16)
                AttributeDescription("tag", .string, isOptional: false, defaultValue: .string("a\0b"))
            }
        }
        let url = try AutomaticMigrationTests.notesStore(v1, count: 2)
        _ = try SQLiteMigration.migrateStore(at: url, from: v1, to: v2)
        #expect(try RawSQLite.scalar("SELECT COUNT(*) FROM ZNOTE WHERE length(CAST(ZTAG AS BLOB)) = 3 AND typeof(ZTAG) = 'text'", in: url) == 2)
        let store = try SQLiteStore(url: url, model: v2, readOnly: true)
        let entity = try #require(v2.entity(named: "Note"))
        let slot = try #require(entity.attributeSlots["tag"])
        let rows = try store.fetch(StoreFetchRequest(entity: entity))
        #expect(rows.map { $0.snapshot.values[slot] } == [.string("a\0b"), .string("a\0b")])
    }
}
