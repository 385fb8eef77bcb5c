import Foundation
import Testing
@testable import CoreStack

@Suite("Persistent history")
struct PersistentHistoryTests {
    /// A library store with history tracking and its stack.
    static func libraryStack() throws -> (TestStack, SQLiteStore, URL) {
        let url = try HistoryStack.newURL("Library.sqlite")
        var store: SQLiteStore?
        let stack = try TestStack { model in
            let s = try SQLiteStore(url: url, model: model, options: PersistentStoreOptions(persistentHistoryTracking: true))
            store = s
            return s
        }
        return (stack, try #require(store), url)
    }

    @Test("a save writes one ATRANSACTION row (author, context name, process ID, executable) and its ACHANGE inserts, with Z_PRIMARYKEY kept")
    func insertsRecorded() throws {
        let (stack, _, url) = try Self.libraryStack()
        let context = stack.context
        try context.performAndWait {
            context.transactionAuthor = "importer"
            let p = try Publisher(context: context)
            p.name = "Gollancz"
            for title in ["Dune", "Emma"] {
                let b = try Book(context: context)
                b.title = title
                b.publisher = p
            }
            try context.save()
        }
        let tx = try RawSQLite.run(
            "SELECT t.Z_PK, t.Z_ENT, a.ZNAME AS author, c.ZNAME AS ctx, p.ZNAME AS pid, b.ZNAME AS bundle, t.ZTIMESTAMP FROM ATRANSACTION t "
                + "LEFT JOIN ATRANSACTIONSTRING a ON a.Z_PK = t.ZAUTHORTS LEFT JOIN ATRANSACTIONSTRING c ON c.Z_PK = t.ZCONTEXTNAMETS "
                + "LEFT JOIN ATRANSACTIONSTRING p ON p.Z_PK = t.ZPROCESSIDTS LEFT JOIN ATRANSACTIONSTRING b ON b.Z_PK = t.ZBUNDLEIDTS", in: url)
        #expect(tx.count == 1)
        #expect(tx.first?["Z_ENT"] as? Int == 16002)
        #expect(tx.first?["author"] as? String == "importer")
        #expect(tx.first?["ctx"] as? String == "root")
        #expect(tx.first?["pid"] as? String == String(ProcessInfo.processInfo.processIdentifier))
        #expect(tx.first?["bundle"] as? String == ProcessInfo.processInfo.processName)
        let stamp = try #require(tx.first?["ZTIMESTAMP"] as? Double)
        #expect(abs(stamp - Date().timeIntervalSinceReferenceDate) < 600)
        let changes = try RawSQLite.run(
            "SELECT c.ZCHANGETYPE, k.Z_NAME, c.ZCOLUMNS, c.Z_ENT FROM ACHANGE c JOIN Z_PRIMARYKEY k ON k.Z_ENT = c.ZENTITY ORDER BY c.Z_PK", in: url)
        #expect(changes.map { $0["ZCHANGETYPE"] as? Int } == [0, 0, 0])
        #expect(changes.compactMap { $0["Z_NAME"] as? String }.sorted() == ["Book", "Book", "Publisher"])
        #expect(changes.allSatisfy { $0["ZCOLUMNS"] is NSNull && $0["Z_ENT"] as? Int == 16001 })
        let keys = try RawSQLite.run("SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT", in: url)
        #expect(keys.map { $0["Z_NAME"] as? String } == ["CHANGE", "TRANSACTION", "TRANSACTIONSTRING"])
        #expect(keys.map { $0["Z_MAX"] as? Int } == [3, 1, 4])
        #expect(try RawSQLite.run("PRAGMA integrity_check", in: url).first?["integrity_check"] as? String == "ok")
        // The file opens again in our reader, with and without tracking, and the objects are there.
        for tracking in [false, true] {
            let again = try SQLiteStore(
                url: url, model: stack.model, readOnly: !tracking, options: PersistentStoreOptions(persistentHistoryTracking: tracking))
            #expect(try again.fetch(StoreFetchRequest(entity: try #require(stack.model.entity(named: "Book")))).count == 2)
        }
    }

    @Test("an update records the changed columns as a bit vector and the property names; a to-many change marks both sides")
    func updatesRecorded() throws {
        let (stack, _, url) = try Self.libraryStack()
        let context = stack.context
        let (bookID, authorID) = try context.performAndWait {
            let b = try Book(context: context)
            b.title = "Dune"
            let a = try Author(context: context)
            a.name = "Herbert"
            try context.save()
            return (b.objectID, a.objectID)
        }
        let start = try stack.coordinator.currentPersistentHistoryToken()
        try context.performAndWait {
            let b = try #require(try context.existingObject(with: bookID) as? Book)
            b.pages = 412
            try context.save()
        }
        let afterUpdate = try stack.coordinator.execute(.fetchHistory(after: start)).transactions
        #expect(afterUpdate.count == 1)
        let update = try #require(afterUpdate.first?.changes.first)
        #expect(afterUpdate.first?.changes.count == 1)
        #expect(update.changeType == .update)
        #expect(update.changedObjectID == bookID)
        #expect(update.updatedProperties == ["pages"])
        let pagesSlot = try #require(stack.model.entity(named: "Book")?.allAttributes.firstIndex { $0.name == "pages" })
        #expect(update.updatedColumns == HistoryLayout.columnsData(bits: [pagesSlot], bitCount: 4 + 3))
        let raw = try RawSQLite.run("SELECT hex(ZCOLUMNS) AS h FROM ACHANGE WHERE ZCHANGETYPE = 1", in: url)
        #expect(raw.first?["h"] as? String == update.updatedColumns.map { $0.map { String(format: "%02X", $0) }.joined() })

        let mid = try #require(afterUpdate.last?.token)
        try context.performAndWait {
            let b = try #require(try context.existingObject(with: bookID) as? Book)
            let a = try #require(try context.existingObject(with: authorID) as? Author)
            b.authors.insert(a)
            try context.save()
        }
        let linked = try stack.coordinator.execute(.fetchHistory(after: mid)).transactions
        #expect(linked.count == 1)
        let byID = Dictionary(uniqueKeysWithValues: (linked.first?.changes ?? []).compactMap { c in c.changedObjectID.map { ($0, c) } })
        #expect(byID[bookID]?.changeType == .update)
        #expect(byID[bookID]?.updatedProperties == ["authors"])
        #expect(byID[authorID]?.updatedProperties == ["books"])
    }

    @Test("a delete records a tombstone of the attributes marked to keep one")
    func deleteTombstone() throws {
        let stack = try HistoryStack(url: try HistoryStack.newURL(), model: try NoteModel.make(preserveText: true))
        try stack.insertNotes(["keep me"])
        let token = try #require(try stack.history().last?.token)
        try stack.context.performAndWait {
            for note in try stack.context.fetch(FetchRequest<ManagedObject>(entityName: "Note")) { try stack.context.delete(note) }
            try stack.context.save()
        }
        let deleted = try stack.history(after: token)
        #expect(deleted.count == 1)
        let change = try #require(deleted.first?.changes.first)
        #expect(change.changeType == .delete)
        #expect(change.tombstone == ["text": .string("keep me")])
        #expect(try RawSQLite.run("SELECT ZTOMBSTONE0 FROM ACHANGE WHERE ZCHANGETYPE = 2", in: stack.url).first?["ZTOMBSTONE0"] as? String == "keep me")
    }

    @Test("a write that bypasses contexts (as batch requests do) is recorded too, without author")
    func batchWriteRecorded() throws {
        let (stack, store, _) = try Self.libraryStack()
        try stack.context.performAndWait {
            for t in ["A", "B", "C"] { (try Book(context: stack.context)).title = t }
            try stack.context.save()
        }
        let token = try stack.coordinator.currentPersistentHistoryToken()
        try store.write { db in try db.execute(sql: "UPDATE ZBOOK SET ZPAGES = 7, Z_OPT = Z_OPT + 1") }
        let batch = try stack.coordinator.execute(.fetchHistory(after: token)).transactions
        #expect(batch.count == 1)
        #expect(batch.first?.author == nil)
        #expect(batch.first?.changes.count == 3)
        #expect(batch.first?.changes.allSatisfy { $0.changeType == .update && $0.updatedProperties == ["pages"] } == true)
    }

    @Test("fetch after a token or a date, filter by author and context name, delete before a token")
    func fetchFilterDelete() throws {
        let stack = try HistoryStack(url: try HistoryStack.newURL(), model: try NoteModel.make())
        try stack.insertNotes(["a"], author: "alice")
        try stack.insertNotes(["b"], author: "bob")
        try stack.insertNotes(["c"], author: "alice")
        let all = try stack.history()
        #expect(all.map(\.author) == ["alice", "bob", "alice"])
        #expect(all.map(\.transactionNumber) == [1, 2, 3])
        #expect(try stack.history(after: all[0].token).map(\.transactionNumber) == [2, 3])
        var byAuthor = PersistentHistoryChangeRequest.fetchHistory(after: nil)
        byAuthor.author = "alice"
        #expect(try stack.coordinator.execute(byAuthor).transactions.map(\.transactionNumber) == [1, 3])
        var byContext = PersistentHistoryChangeRequest.fetchHistory(after: nil)
        byContext.contextName = "elsewhere"
        #expect(try stack.coordinator.execute(byContext).transactions.isEmpty)
        byContext.contextName = "main"
        #expect(try stack.coordinator.execute(byContext).transactions.count == 3)
        #expect(try stack.coordinator.execute(.fetchHistory(after: all[1].timestamp)).transactions.map(\.transactionNumber) == [3])
        #expect(try stack.coordinator.execute(.deleteHistory(before: all[1].token)).deletedCount == 2)
        #expect(try stack.history().map(\.transactionNumber) == [3])
        #expect(try RawSQLite.scalar("SELECT COUNT(*) FROM ACHANGE", in: stack.url) == 1)
        // New transactions keep counting up after a delete.
        try stack.insertNotes(["d"])
        #expect(try stack.history().map(\.transactionNumber) == [3, 4])
        let foreign = PersistentHistoryToken(storeIdentifier: "OTHER", transactionNumber: 1)
        #expect(throws: CoreStackError.self) { try stack.coordinator.execute(.fetchHistory(after: foreign)) }
    }

    @Test("a token survives JSON and its text form")
    func tokenCodable() throws {
        let token = PersistentHistoryToken(storeIdentifier: "6A1F-UUID", transactionNumber: 42)
        let data = try JSONEncoder().encode(token)
        #expect(try JSONDecoder().decode(PersistentHistoryToken.self, from: data) == token)
        #expect(PersistentHistoryToken(parsing: token.description, store: "x") == token)
        #expect(PersistentHistoryToken(parsing: "7", store: "S") == PersistentHistoryToken(storeIdentifier: "S", transactionNumber: 7))
        #expect(PersistentHistoryToken(parsing: "x:y", store: "S") == nil)
    }

    @Test("merging a transaction from another coordinator updates a context, its fetched results controller and an entity monitor")
    func mergeTransactionIntoFRC() throws {
        let url = try HistoryStack.newURL()
        let model = try NoteModel.make()
        let writer = try HistoryStack(url: url, model: model, name: "writer")
        try writer.insertNotes(["b"])
        let reader = try HistoryStack(url: url, model: model, name: "reader")
        let log = FRCLog()
        let controller = FetchedResultsController(
            fetchRequest: FetchRequest<ManagedObject>(entityName: "Note", sortDescriptors: [SortDescriptor("text")]), context: reader.context)
        controller.delegate = log
        try reader.context.performAndWait { try controller.performFetch() }
        let token = try #require(try reader.coordinator.currentPersistentHistoryToken())
        try writer.insertNotes(["a", "c"], author: "writer")
        try writer.context.performAndWait {
            let b = try #require(try writer.context.fetch(
                FetchRequest<ManagedObject>(entityName: "Note", predicate: try Predicate(format: "text == 'b'"))).first)
            try b.setValue("bb", forKey: "text")
            try writer.context.save()
        }
        // The reader's cached row of "b" is stale until the merge.
        let transactions = try reader.history(after: token)
        #expect(transactions.count == 2)
        let monitor = try EntityMonitor<ManagedObject>(context: reader.context, entityName: "Note", frequency: .onChange)
        let monitorLog = MonitorLog()
        monitor.delegate = monitorLog
        reader.context.performAndWait { for t in transactions { reader.context.mergeChanges(from: t) } }
        #expect(log.last == ["a", "bb", "c"])
        #expect(monitorLog.inserted == 2)
        #expect(monitorLog.updated == 1)
        reader.context.performAndWait { #expect(controller.fetchedObjects.count == 3) }
    }

    @Test("Apple-written history in the CoreDataPlus SampleModel2 store is read exactly as sqlite3 lists it")
    func appleHistory() throws {
        for name in ["SampleModel2_V1", "SampleModel2_V2"] {
            let url = try Fixtures.copyStore("stores/alemar11-CoreDataPlus/\(name).sqlite")
            let model = try #require(try SQLiteStore.storedModel(at: url))
            let store = try SQLiteStore(url: url, model: model, readOnly: true)
            #expect(try store.hasPersistentHistory())
            let transactions = try store.execute(.fetchHistory(after: nil)).transactions
            let rawTransactions = try RawSQLite.run(
                "SELECT t.Z_PK, printf('%.6f', t.ZTIMESTAMP) AS stamp, b.ZNAME AS bundle, p.ZNAME AS process FROM ATRANSACTION t LEFT JOIN ATRANSACTIONSTRING b ON b.Z_PK = t.ZBUNDLEIDTS "
                    + "LEFT JOIN ATRANSACTIONSTRING p ON p.Z_PK = t.ZPROCESSIDTS ORDER BY t.Z_PK", in: url)
            #expect(transactions.map(\.transactionNumber) == rawTransactions.compactMap { ($0["Z_PK"] as? NSNumber)?.int64Value })
            #expect(transactions.map(\.bundleID) == rawTransactions.map { $0["bundle"] as? String })
            #expect(transactions.map(\.processID) == rawTransactions.map { $0["process"] as? String })
            #expect(transactions.first?.bundleID == "com.apple.dt.xctest.tool")
            #expect(transactions.first?.processID == "xctest")
            #expect(
                transactions.map { String(format: "%.6f", $0.timestamp.timeIntervalSinceReferenceDate) }
                    == rawTransactions.compactMap { $0["stamp"] as? String })
            #expect(transactions.allSatisfy { $0.author == nil && $0.contextName == nil })
            let rawChanges = try RawSQLite.run(
                "SELECT c.Z_PK, c.ZCHANGETYPE, k.Z_NAME, c.ZENTITYPK, c.ZTRANSACTIONID FROM ACHANGE c JOIN Z_PRIMARYKEY k ON k.Z_ENT = c.ZENTITY ORDER BY c.Z_PK",
                in: url)
            let changes = transactions.flatMap(\.changes)
            #expect(changes.count == rawChanges.count)
            #expect(changes.map(\.changeID) == rawChanges.compactMap { ($0["Z_PK"] as? NSNumber)?.int64Value })
            #expect(changes.map(\.changeType.rawValue) == rawChanges.compactMap { $0["ZCHANGETYPE"] as? Int })
            #expect(changes.map(\.entityName) == rawChanges.compactMap { $0["Z_NAME"] as? String })
            #expect(changes.map(\.primaryKey) == rawChanges.compactMap { ($0["ZENTITYPK"] as? NSNumber)?.int64Value })
            #expect(changes.allSatisfy { $0.changedObjectID?.primaryKey == $0.primaryKey && $0.changedObjectID?.entity.name == $0.entityName })
        }
    }

    @Test("a PersistentContainer whose store description asks for history tracking records its saves")
    func containerOption() async throws {
        let container = PersistentContainer(name: "Notes", model: try NoteModel.make())
        container.storeDescription = .init(url: try HistoryStack.newURL())
        container.storeDescription.options.persistentHistoryTracking = true
        try await container.loadPersistentStores()
        try await container.performBackgroundTask { context in
            context.transactionAuthor = "container"
            try context.insertObject(forEntityName: "Note").setValue("x", forKey: "text")
            try context.save()
        }
        let history = try container.persistentStoreCoordinator.execute(.fetchHistory(after: nil)).transactions
        #expect(history.map(\.author) == ["container"])
        #expect(history.first?.changes.map(\.changeType) == [.insert])
    }

    @Test("history rows holding values of the wrong type are storeCorrupted, naming table, column and row", arguments: [
        ("UPDATE ACHANGE SET ZENTITYPK = 'x'", "ACHANGE.ZENTITYPK"),
        ("UPDATE ACHANGE SET ZCHANGETYPE = 7", "ACHANGE.ZCHANGETYPE"),
        ("UPDATE ATRANSACTION SET ZTIMESTAMP = 'noon'", "ATRANSACTION.ZTIMESTAMP"),
        ("UPDATE ATRANSACTIONSTRING SET ZNAME = CAST(Z_PK AS BLOB) WHERE ZNAME = 'a'", "ATRANSACTION.ZAUTHOR"),
    ])
    func damagedHistory(damage: String, column: String) throws {
        let stack = try HistoryStack(url: try HistoryStack.newURL(), model: try NoteModel.make())
        try stack.insertNotes(["x"], author: "a")
        try stack.store.write { db in try db.execute(sql: damage) }
        do {
            _ = try stack.history()
            Issue.record("no error for \(damage)")
        } catch let CoreStackError.storeCorrupted(_, reason) {
            #expect(reason.contains(column), "\(reason)")
        }
    }

    @Test("the history tables and indexes CoreStack creates are Core Data's, as sqlite_master shows them in the CoreDataPlus store")
    func sameSchemaAsCoreData() throws {
        let stack = try HistoryStack(url: try HistoryStack.newURL(), model: try NoteModel.make())
        try stack.insertNotes(["x"])
        let apple = try Fixtures.copyStore("stores/alemar11-CoreDataPlus/SampleModel2_V2.sqlite")
        let query = "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE tbl_name IN ('ACHANGE', 'ATRANSACTION', 'ATRANSACTIONSTRING') ORDER BY name"
        func rows(_ url: URL) throws -> [String] {
            try RawSQLite.run(query, in: url).map { r in ["type", "name", "tbl_name", "sql"].map { "\(r[$0] ?? "")" }.joined(separator: "|") }
        }
        let ours = try rows(stack.url)
        #expect(ours.count == 11)
        #expect(ours == (try rows(apple)))
        let keys = "SELECT Z_ENT || ' ' || Z_NAME || ' ' || Z_SUPER AS k FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT"
        let ourKeys = try RawSQLite.run(keys, in: stack.url).compactMap { $0["k"] as? String }
        #expect(ourKeys == ["16001 CHANGE 0", "16002 TRANSACTION 0", "16003 TRANSACTIONSTRING 0"])
        #expect(ourKeys == (try RawSQLite.run(keys, in: apple)).compactMap { $0["k"] as? String })
    }
}
