import Foundation
import Testing
@testable import CoreStack

/// A manager subclass that counts saves and runs a configurable clean-up.
final class CountingStoreManager: PersistentStoreManager, @unchecked Sendable {
    let saveErrors = Recorder<String>()
    let cleanUps = Recorder<Int>()
    nonisolated(unsafe) var cleanUp: (ManagedObjectContext) throws -> Void = { _ in }

    override func cleanUpOldObjects(in context: ManagedObjectContext) throws {
        cleanUps.append(1)
        try cleanUp(context)
    }

    override func handleSaveError(_ error: any Error) {
        saveErrors.append("\(error)")
    }
}

/// How a test spoils a store file.
enum SpoiledStore: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case truncated, randomBytes, foreignSQLiteDatabase, storeOfAnotherModel, textInPrimaryKeyMax, overwrittenDataPage
    var testDescription: String { rawValue }
}

@Suite("PersistentStoreManager (the shared stack): cache store, quarantine, child contexts, hooks, termination saves")
struct PersistentStoreManagerStackTests {
    static func configuration(_ url: URL, log: Recorder<String>? = nil) throws -> PersistentStoreManager.Configuration {
        .init(model: try LibraryModel.make(), storeURL: url, savesOnTermination: false, log: { m in log?.append(m) })
    }

    static func authorCount(_ manager: PersistentStoreManager) async throws -> Int {
        try await countObjects("Author", in: manager.managedObjectContext)
    }

    static func addAuthor(_ name: String, to manager: PersistentStoreManager, save: Bool = true) async throws {
        let main = manager.managedObjectContext
        try await main.perform {
            let a = try Author(context: main)
            a.name = name
            if save { try main.save() }
        }
    }

    /// Writes a store with `count` authors and closes it.
    static func writeAuthors(_ count: Int, to url: URL) throws {
        let stack = try TestStack(store: { model in try SQLiteStore(url: url, model: model) })
        try stack.context.performAndWait {
            for i in 0..<count {
                let a = try Author(context: stack.context)
                a.name = "Author \(i) " + String(repeating: "x", count: 80)
            }
            try stack.context.save()
        }
    }

    // MARK: Location and flag

    @Test("the store lives at $XDG_CACHE_HOME/<app>/LocalData.sqlite or ~/.cache/<app>/LocalData.sqlite; created fresh sets the flag, reopening does not")
    func locationAndFlag() async throws {
        let folder = try StackTempFolder("manager")
        let cache = folder.url.appendingPathComponent("xdg-cache")
        let model = try LibraryModel.make()
        let config = PersistentStoreManager.Configuration(
            model: model, applicationName: "Photos", environment: ["XDG_CACHE_HOME": cache.path], savesOnTermination: false, log: { _ in })
        let expected = cache.appendingPathComponent("Photos/LocalData.sqlite")
        #expect(config.resolvedStoreURL.path == expected.path)
        let home = PersistentStoreManager.Configuration(model: model, applicationName: "Photos", environment: ["HOME": "/home/bo"])
        #expect(home.resolvedStoreURL.path == "/home/bo/.cache/Photos/LocalData.sqlite")
        do {
            let manager = try PersistentStoreManager(configuration: config)
            #expect(manager.storeURL.path == expected.path)
            #expect(FileManager.default.fileExists(atPath: expected.path))
            #expect(manager.dataStoreWasResetOrCreatedOnLoad)
            #expect(manager.quarantinedStoreURL == nil)
            #expect(manager.managedObjectContext.concurrencyType == .mainQueue)
            #expect(manager.managedObjectContext.parent == nil)
            #expect(manager.managedObjectContext.mergePolicy == .mergeByPropertyObjectTrump)
            try await Self.addAuthor("Kept", to: manager)
        }
        let again = try PersistentStoreManager(configuration: config)
        #expect(!again.dataStoreWasResetOrCreatedOnLoad)
        #expect(try await Self.authorCount(again) == 1)
    }

    // MARK: Quarantine

    @Test("a store that cannot be opened is quarantined next to it, a fresh store replaces it, the flag is set and the reason logged", arguments: SpoiledStore.allCases)
    func corruptionRecovery(spoiled: SpoiledStore) async throws {
        let folder = try StackTempFolder("quarantine")
        let url = folder.file("LocalData.sqlite")
        switch spoiled {
        case .truncated:
            try Self.writeAuthors(200, to: url)
            // Fold the WAL into the file, then cut the file short (mid-page).
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            p.arguments = [url.path, "PRAGMA wal_checkpoint(TRUNCATE);"]
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            p.waitUntilExit()
            let data = try Data(contentsOf: url)
            #expect(data.count > 8192)
            try data.prefix(data.count / 3 + 100).write(to: url)
            try? FileManager.default.removeItem(atPath: url.path + "-wal")
            try? FileManager.default.removeItem(atPath: url.path + "-shm")
        case .randomBytes:
            var bytes = [UInt8](repeating: 0, count: 8192)
            for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255) }
            try Data(bytes).write(to: url)
        case .foreignSQLiteDatabase:
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            p.arguments = [url.path, "CREATE TABLE photos (id INTEGER PRIMARY KEY, url TEXT); INSERT INTO photos (url) VALUES ('a');"]
            try p.run()
            p.waitUntilExit()
            #expect(p.terminationStatus == 0)
        case .storeOfAnotherModel:
            let other = try ManagedObjectModel(versionName: "Other") {
                EntityDescription("Photo") { AttributeDescription("url", .string) }
            }
            _ = try SQLiteStore(url: url, model: other)
        case .textInPrimaryKeyMax:
            // Once crashed every launch (a trapping read of Z_MAX): now quarantined.
            try Self.writeAuthors(3, to: url)
            try StoreDamage.foldWAL(url)
            try StoreDamage.sqlite3(url, "UPDATE Z_PRIMARYKEY SET Z_MAX = 'x' WHERE Z_NAME = 'Author'")
        case .overwrittenDataPage:
            // Only a read of the page finds it: the quick check at open does.
            try Self.writeAuthors(200, to: url)
            try StoreDamage.overwriteRootPage(of: "ZAUTHOR", in: url)
            #expect(throws: Never.self) { try SQLiteStore(url: url, model: try LibraryModel.make()) }
        }
        let original = try Data(contentsOf: url)
        let log = Recorder<String>()
        let manager = try PersistentStoreManager(configuration: Self.configuration(url, log: log))
        #expect(manager.dataStoreWasResetOrCreatedOnLoad)
        let moved = try #require(manager.quarantinedStoreURL)
        #expect(moved.deletingLastPathComponent().path == folder.url.path)
        #expect(moved.lastPathComponent.hasPrefix("LocalData.quarantined-"))
        #expect(moved.pathExtension == "sqlite")
        #expect(try Data(contentsOf: moved) == original, "the quarantined copy is the file as it was")
        #expect(manager.resetReason != nil)
        #expect(log.values.contains { $0.contains("could not be opened") && $0.contains(moved.lastPathComponent) })
        // The fresh store works and is the one at the usual place.
        try await Self.addAuthor("Fresh", to: manager)
        let check = try SQLiteStore(url: url, model: try LibraryModel.make())
        #expect(check.model.entity(named: "Author") != nil)
        #expect(try await Self.authorCount(manager) == 1)
    }

    @Test("when even a fresh store cannot be created the error reaches the caller")
    func freshStoreFailureThrows() throws {
        let folder = try StackTempFolder("manager")
        let file = folder.file("plain")
        try Data("x".utf8).write(to: file)
        let url = file.appendingPathComponent("LocalData.sqlite")
        #expect(throws: StackError.self) {
            _ = try PersistentStoreManager(configuration: Self.configuration(url))
        }
    }

    @Test("a folder (or a dangling link) where the store file belongs is moved aside like any damage: fresh store, flag set, reason logged", arguments: ["", "-wal"])
    func folderWhereTheStoreBelongs(suffix: String) async throws {
        let folder = try StackTempFolder("manager")
        let url = folder.file("LocalData.sqlite")
        let dir = URL(fileURLWithPath: url.path + suffix, isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Data("keep me".utf8).write(to: dir.appendingPathComponent("inside.txt"))
        let log = Recorder<String>()
        let manager = try PersistentStoreManager(configuration: Self.configuration(url, log: log))
        #expect(manager.dataStoreWasResetOrCreatedOnLoad)
        let moved = try #require(manager.quarantinedStoreURL)
        #expect(moved.lastPathComponent.hasPrefix("LocalData.quarantined-"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: moved.path + suffix).appendingPathComponent("inside.txt")) == Data("keep me".utf8))
        #expect(manager.resetReason == "LocalData.sqlite\(suffix) is a folder, not a file")
        #expect(log.values.contains { $0.contains("is a folder") })
        try await Self.addAuthor("Fresh", to: manager)
        #expect(try await Self.authorCount(manager) == 1)

        // A symbolic link that leads nowhere.
        let other = try StackTempFolder("manager")
        let linked = other.file("LocalData.sqlite")
        try FileManager.default.createSymbolicLink(atPath: linked.path, withDestinationPath: other.file("gone/nowhere.sqlite").path)
        let second = try PersistentStoreManager(configuration: Self.configuration(linked))
        #expect(second.dataStoreWasResetOrCreatedOnLoad)
        #expect(second.quarantinedStoreURL != nil)
        #expect(second.resetReason == "LocalData.sqlite is a symbolic link that leads nowhere, not a file")
    }

    @Test("the quick check at open is bounded by quickCheckSizeLimit (32 MiB)")
    func quickCheckBound() {
        #expect(PersistentStoreManager.quickCheckSizeLimit == 32 * 1024 * 1024)
    }

    @Test("quarantining moves the -wal and -shm files too, under the same timestamped name")
    func quarantineMovesSideFiles() throws {
        let folder = try StackTempFolder("manager")
        let url = folder.file("LocalData.sqlite")
        for suffix in StoreLocation.fileSuffixes { try Data("junk\(suffix)".utf8).write(to: URL(fileURLWithPath: url.path + suffix)) }
        let moved = try StoreLocation.quarantineStore(at: url)
        for suffix in StoreLocation.fileSuffixes {
            #expect(!FileManager.default.fileExists(atPath: url.path + suffix))
            #expect(FileManager.default.contents(atPath: moved.path + suffix) == Data("junk\(suffix)".utf8))
        }
        // A second quarantine in the same millisecond does not overwrite the first.
        for suffix in StoreLocation.fileSuffixes { try Data("again".utf8).write(to: URL(fileURLWithPath: url.path + suffix)) }
        let date = Date()
        let a = try StoreLocation.quarantineStore(at: url, date: date)
        try Data("third".utf8).write(to: url)
        let b = try StoreLocation.quarantineStore(at: url, date: date)
        #expect(a != b)
        #expect(FileManager.default.contents(atPath: a.path) == Data("again".utf8))
        #expect(FileManager.default.contents(atPath: b.path) == Data("third".utf8))
    }

    // MARK: Child contexts

    @Test("performBlockOnChildContext runs the block on a private child's queue, saves it into the main context, synchronously")
    func childContextBlock() async throws {
        let folder = try StackTempFolder("manager")
        let manager = try PersistentStoreManager(configuration: Self.configuration(folder.file("LocalData.sqlite")))
        let main = manager.managedObjectContext
        var seen: (onQueue: Bool, isChild: Bool, type: ManagedObjectContext.ConcurrencyType?, descriptor: String) = (false, false, nil, "")
        let result = manager.performBlockOnChildContext({ context, descriptor in
            seen = (context.isOnQueue, context.parent === main, context.concurrencyType, descriptor)
            let a = try Author(context: context)
            a.name = "From child"
        }, loggingDescriptor: "fetching of photo objects")
        #expect((try? result.get()) != nil)
        #expect(seen.onQueue)
        #expect(seen.isChild)
        #expect(seen.type == .privateQueue)
        #expect(seen.descriptor == "fetching of photo objects")
        // Merged into the main context (not yet on disk).
        let (names, dirty) = try await main.perform {
            (try Author.all(in: main).map(\.name), main.hasChanges)
        }
        #expect(names == ["From child"])
        #expect(dirty)

        // Called from the main context's own queue, it neither deadlocks nor runs on the caller's thread.
        let fromMain = try await main.perform {
            manager.performBlockOnChildContext({ context, _ in
                let a = try Author(context: context)
                a.name = "From main queue"
            }, loggingDescriptor: "nested call")
            return try Author.count(in: main)
        }
        #expect(fromMain == 2)
    }

    @Test("errors in the block or in the child's save are reported with the descriptor, in the log and the result; async variant too")
    func childContextErrors() async throws {
        let folder = try StackTempFolder("manager")
        let log = Recorder<String>()
        let manager = try PersistentStoreManager(configuration: Self.configuration(folder.file("LocalData.sqlite"), log: log))
        struct Boom: Error, CustomStringConvertible { var description: String { "network gone" } }
        let thrown = manager.performBlockOnChildContext({ _, _ in throw Boom() }, loggingDescriptor: "fetching of photo objects")
        guard case let .failure(e) = thrown else { Issue.record("expected a failure"); return }
        #expect(e == .childContextFailed(descriptor: "fetching of photo objects", reason: "network gone"))
        #expect(log.values.contains("Error saving context during the fetching of photo objects: network gone"))

        // An Author without a name fails validation when the child saves.
        let invalid = manager.performBlockOnChildContext({ context, _ in
            _ = try Author(context: context)
        }, loggingDescriptor: "import of authors")
        #expect((try? invalid.get()) == nil)
        #expect(log.values.contains { $0.hasPrefix("Error saving context during the import of authors: validation failed") })
        #expect(try await Self.authorCount(manager) == 0)

        await #expect(throws: StackError.self) {
            try await manager.performBlockOnChildContext(loggingDescriptor: "async import") { _, _ in throw Boom() }
        }
        #expect(log.values.contains("Error saving context during the async import: network gone"))
        try await manager.performBlockOnChildContext(loggingDescriptor: "async import") { context, _ in
            let a = try Author(context: context)
            a.name = "Async"
        }
        #expect(try await Self.authorCount(manager) == 1)
    }

    // MARK: Hooks

    @Test("saveContextAndCleanUpOldObjects saves, calls the hook, and saves a second time only when the hook changed something")
    func cleanUpSecondSaveOnlyWhenChanged() async throws {
        let folder = try StackTempFolder("manager")
        let manager = try CountingStoreManager(configuration: Self.configuration(folder.file("LocalData.sqlite")))
        let main = manager.managedObjectContext
        let saves = Recorder<Int>()
        let token = main.addDidSaveObserver { s in saves.append(s.objectIDs.inserted.count + s.objectIDs.deleted.count) }

        // Nothing to save, a hook that changes nothing: no save at all.
        manager.saveContextAndCleanUpOldObjects()
        #expect(saves.values.isEmpty)
        #expect(manager.cleanUps.count == 1)

        // Changes, a hook that changes nothing: one save.
        try await Self.addAuthor("Old", to: manager, save: false)
        try await Self.addAuthor("New", to: manager, save: false)
        manager.saveContextAndCleanUpOldObjects()
        #expect(saves.values == [2])

        // A hook that deletes: the second save happens.
        manager.cleanUp = { context in
            if let old = try Author.findFirst(in: context, predicate: .key("name") == "Old") { try context.delete(old) }
        }
        manager.saveContextAndCleanUpOldObjects()
        #expect(saves.values == [2, 1])
        #expect(try await Self.authorCount(manager) == 1)

        // Nothing left to delete: again no save.
        manager.saveContextAndCleanUpOldObjects()
        #expect(saves.values == [2, 1])
        #expect(manager.cleanUps.count == 4)
        withExtendedLifetime(token) {}
    }

    @Test("save errors go to handleSaveError (a subclass hook), and the hook's own errors too")
    func saveErrorsGoToHook() async throws {
        let folder = try StackTempFolder("manager")
        let manager = try CountingStoreManager(configuration: Self.configuration(folder.file("LocalData.sqlite")))
        let main = manager.managedObjectContext
        try await main.perform { _ = try Author(context: main) }  // no name: invalid
        manager.cleanUp = { _ in throw CoreStackError.objectNotFound("clean-up failed") }
        manager.saveContextAndCleanUpOldObjects()
        let errors = manager.saveErrors.values
        #expect(errors.count == 3)  // first save, hook, second save
        #expect(errors.first?.contains("validation failed") == true)
        #expect(errors.contains { $0.contains("clean-up failed") })
    }

    /// The shared manager is process-wide and can be configured once: every check of it lives in
    /// this one test.
    @Test("the shared manager: configured once before first use, with a subclass; built outside its lock on first use, so its init and log may read `shared` (and get an error, not a deadlock) while other threads wait for it; configuring again fails")
    func sharedManager() throws {
        let folder = try StackTempFolder("shared")
        #expect(throws: StackError.notConfigured) { _ = try PersistentStoreManager.shared }
        let url = folder.file("LocalData.sqlite")
        // Not a store: opening it quarantines it, which calls the configuration's log.
        try Data(repeating: 0x5A, count: 8192).write(to: url)
        let logged = Recorder<String>()
        var configuration = try Self.configuration(url)
        configuration.log = { message in logged.append("\(message) | shared: \(SelfReadingStoreManager.readShared())") }
        try PersistentStoreManager.configureShared(configuration, managerType: SelfReadingStoreManager.self)

        // On a thread of its own with a timeout: a regression deadlocks that thread, not the suite.
        let done = DispatchSemaphore(value: 0)
        let first = Recorder<PersistentStoreManager>()
        Thread {
            if let m = try? PersistentStoreManager.shared { first.append(m) }
            done.signal()
        }.start()
        try #require(done.wait(timeout: .now() + 20) == .success, "reading `shared` from the manager's own init or log deadlocked")
        let a = try #require(first.values.first)
        let b = try PersistentStoreManager.shared
        #expect(a === b)
        #expect(a is SelfReadingStoreManager)
        #expect(a.dataStoreWasResetOrCreatedOnLoad)
        #expect(a.quarantinedStoreURL != nil)
        // The init and the log ran on the building thread: `shared` told them it is being created.
        let busy = "shared: \(StackError.sharedManagerBeingCreated)"
        #expect(SelfReadingStoreManager.readsInInit.values == [busy])
        #expect(!logged.values.isEmpty && logged.values.allSatisfy { $0.hasSuffix(busy) })
        // The thread the init started waited for the manager instead of building another one.
        #expect(SelfReadingStoreManager.otherThreadDone.wait(timeout: .now() + 20) == .success)
        #expect(SelfReadingStoreManager.otherThreadGot.values.count == 1)
        #expect(SelfReadingStoreManager.otherThreadGot.values.first === a)
        #expect(throws: StackError.alreadyConfigured) {
            try PersistentStoreManager.configureShared(Self.configuration(folder.file("Other.sqlite")))
        }
    }
}

/// A manager whose init reads ``PersistentStoreManager/shared`` (the manager it is becoming) on
/// its own thread and starts another thread reading it while the init is still running.
final class SelfReadingStoreManager: PersistentStoreManager, @unchecked Sendable {
    static let readsInInit = Recorder<String>()
    static let otherThreadGot = Recorder<PersistentStoreManager>()
    static let otherThreadDone = DispatchSemaphore(value: 0)

    required init(configuration: Configuration) throws {
        Self.readsInInit.append("shared: \(Self.readShared())")
        Thread {
            if let m = try? PersistentStoreManager.shared { Self.otherThreadGot.append(m) }
            Self.otherThreadDone.signal()
        }.start()
        // Gives that thread time to ask while the manager is still being built.
        Thread.sleep(forTimeInterval: 0.2)
        try super.init(configuration: configuration)
    }

    /// What reading `shared` gives: a manager, or the error.
    static func readShared() -> String {
        do {
            _ = try PersistentStoreManager.shared
            return "a manager"
        } catch {
            return "\(error)"
        }
    }
}
