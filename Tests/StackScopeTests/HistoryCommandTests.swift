import CoreStack
import Foundation
import StackScope
import Testing

@Suite("history command")
struct HistoryCommandTests {
    @Test("history --json lists the CoreDataPlus store's Apple-written transaction and changes as sqlite3 shows them")
    func appleHistoryJSON() throws {
        let url = try StoreOwnModelTests.copy(["alemar11-CoreDataPlus/SampleModel2_V2.sqlite"])
        let text = try HistoryCommand.run(storePath: url.path, modelPath: nil, after: nil, author: nil, json: true)
        let json = try #require(try TestSupport.parseJSON(text) as? [String: Any])
        #expect(json["hasHistory"] as? Bool == true)
        let transactions = try #require(json["transactions"] as? [[String: Any]])
        #expect(transactions.count == 1)
        #expect(transactions.first?["processID"] as? String == "xctest")
        #expect(transactions.first?["bundleID"] as? String == "com.apple.dt.xctest.tool")
        let changes = try #require(transactions.first?["changes"] as? [[String: Any]])
        let raw = try StoreOwnModelTests.sqlite3(
            "SELECT c.Z_PK || ' ' || c.ZCHANGETYPE || ' ' || k.Z_NAME || ' ' || c.ZENTITYPK FROM ACHANGE c JOIN Z_PRIMARYKEY k ON k.Z_ENT = c.ZENTITY ORDER BY c.Z_PK",
            url)
        let listed = changes.map { c in
            "\(c["id"] as? Int ?? -1) \(["insert": 0, "update": 1, "delete": 2][c["type"] as? String ?? ""] ?? -1) \(c["entity"] as? String ?? "") \(c["primaryKey"] as? Int ?? -1)"
        }
        #expect(listed == raw)
        #expect(raw.count == 126)
    }

    @Test("history text: --after skips transactions, --author filters, a store without history says so")
    func textAfterAuthor() throws {
        let dir = try TestSupport.temporaryDirectory()
        let url = dir.appendingPathComponent("notes.sqlite")
        let model = try ManagedObjectModel(versionName: "Notes") { EntityDescription("Note") { AttributeDescription("text", .string) } }
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(SQLiteStore(url: url, model: model, options: PersistentStoreOptions(persistentHistoryTracking: true)))
            let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: "cli-test")
            try context.performAndWait {
                for author in ["alice", "bob"] {
                    context.transactionAuthor = author
                    try context.insertObject(forEntityName: "Note").setValue(author, forKey: "text")
                    try context.save()
                }
            }
        }
        let all = try HistoryCommand.run(storePath: url.path, modelPath: nil, after: nil, author: nil, json: false)
        #expect(all.contains("Transaction 1 "))
        #expect(all.contains("Transaction 2 "))
        #expect(all.contains("author alice  context cli-test  process \(ProcessInfo.processInfo.processIdentifier)"))
        let after = try HistoryCommand.run(storePath: url.path, modelPath: nil, after: "1", author: nil, json: false)
        #expect(!after.contains("Transaction 1 ") && after.contains("Transaction 2 "))
        let bob = try HistoryCommand.listing(storePath: url.path, modelPath: nil, after: nil, author: "bob")
        #expect(bob.transactions.map(\.transactionNumber) == [2])
        #expect(bob.transactions.first?.changes.first?.changeType == .insert)
        #expect(throws: StackScopeError.self) {
            try HistoryCommand.run(storePath: url.path, modelPath: nil, after: "soon", author: nil, json: false)
        }
        let plain = try StoreOwnModelTests.copy(["alemar11-CoreDataPlus/SampleModel_V1.sqlite"])
        let none = try HistoryCommand.run(storePath: plain.path, modelPath: nil, after: nil, author: nil, json: false)
        #expect(none.contains("keeps no persistent history"))
    }
}
