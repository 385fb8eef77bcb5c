import Foundation
import Testing

@testable import CoreStack

/// Issue 35: moving, replacing or deleting a store's files while another process has the store
/// open is refused ("another process has this store open"), and done under SQLite's own
/// exclusive lock otherwise (``SQLiteStoreFileLock``), which every SQLite connection respects.
/// The other process here is the `sqlite3` shell, holding the store open in WAL mode.
@Suite struct StoreFileLockTests {
    private static let model: ManagedObjectModel = {
        do {
            return try ManagedObjectModel(versionName: "Notes") {
                EntityDescription("Note") { AttributeDescription("text", .string) }
            }
        } catch {
            preconditionFailure("the test model is valid: \(error)")
        }
    }()

    /// A new store with one note, closed (SQLite removed its side files).
    private func makeStore() throws -> URL {
        let folder = try Fixtures.temporaryFolder()
        let url = folder.appendingPathComponent("Notes.sqlite")
        let store = try SQLiteStore(url: url, model: Self.model)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model)
        try coordinator.addPersistentStore(store)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait {
            try context.insertObject(forEntityName: "Note").setValue("kept", forKey: "text")
            try context.save()
        }
        coordinator.removePersistentStore()
        store.close()
        return url
    }

    /// The `sqlite3` shell with the store open (it has read it, so it holds its SHARED lock).
    private final class OtherProcess {
        let process = Process()
        let input = Pipe(), output = Pipe()
        init(_ url: URL) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            process.arguments = [url.path]
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            input.fileHandleForWriting.write(Data("SELECT count(*) FROM ZNOTE;\n".utf8))
            _ = output.fileHandleForReading.availableData
        }
        func quit() throws {
            try input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }

    private func isInUse(_ error: any Error, _ url: URL) -> Bool {
        if case let CoreStackError.storeInUse(path, _) = error { return path == url.resolvingSymlinksInPath().path }
        return false
    }

    private func names(_ url: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path).sorted()
    }

    @Test("destroyStore and quarantineStore refuse while another process has the store open, say so, and leave every file; once it has closed they work")
    func destroyAndQuarantineWaitForOtherProcesses() throws {
        let url = try makeStore()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let other = try OtherProcess(url)
        let before = try names(url)
        #expect(before.contains("Notes.sqlite-shm"), "the other process has the store open in WAL mode")
        #expect { try StoreLocation.destroyStore(at: url) } throws: { isInUse($0, url) }
        #expect { try StoreLocation.quarantineStore(at: url) } throws: { isInUse($0, url) }
        #expect(try names(url) == before)
        let message = CoreStackError.storeInUse(path: url.path, action: "delete the store").description
        #expect(message.hasPrefix("another process has this store open: \(url.path)"))
        try other.quit()
        let moved = try StoreLocation.quarantineStore(at: url)
        #expect(FileManager.default.fileExists(atPath: moved.path))
        #expect(!FileManager.default.fileExists(atPath: url.path))
        try StoreLocation.destroyStore(at: moved)
        #expect(!FileManager.default.fileExists(atPath: moved.path))
    }

    @Test("while the lock is held, another process cannot read the store: SQLite answers 'database is locked'")
    func lockKeepsOtherConnectionsOut() throws {
        let url = try makeStore()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let output = try SQLiteStoreFileLock.withExclusiveLock(on: url, toDo: "test") { () throws -> String in
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            p.arguments = ["-cmd", ".timeout 200", url.path, "SELECT count(*) FROM ZNOTE"]
            let pipe = Pipe()
            p.standardOutput = pipe
            p.standardError = pipe
            try p.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return String(decoding: data, as: UTF8.self)
        }
        #expect(output.contains("database is locked"), "sqlite3 said: \(output)")
        // Released afterwards: the store reads again.
        let store = try SQLiteStore(url: url, model: Self.model, readOnly: true)
        #expect(try store.count(StoreFetchRequest(entity: try #require(Self.model.entitiesByName["Note"]))) == 1)
        store.close()
    }

    @Test("a migration is refused while another process has the store open, and the store stays as it was")
    func migrationWaitsForOtherProcesses() throws {
        let url = try makeStore()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let next = try ManagedObjectModel(versionName: "Notes 2") {
            EntityDescription("Note") {
                AttributeDescription("text", .string)
                AttributeDescription("pinned", .boolean, defaultValue: .bool(false))
            }
        }
        let other = try OtherProcess(url)
        let before = try Data(contentsOf: url)
        #expect { try SQLiteMigration.migrateStore(at: url, from: Self.model, to: next) } throws: { isInUse($0, url) }
        #expect(try Data(contentsOf: url) == before)
        try other.quit()
        _ = try SQLiteMigration.migrateStore(at: url, from: Self.model, to: next)
        let store = try SQLiteStore(url: url, model: next, readOnly: true)
        #expect(try store.count(StoreFetchRequest(entity: try #require(next.entitiesByName["Note"]))) == 1)
        store.close()
    }
}
