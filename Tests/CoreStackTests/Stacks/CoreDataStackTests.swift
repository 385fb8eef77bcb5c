import Foundation
import Testing
@testable import CoreStack

/// Which kind of stack a parameterised test builds.
enum StackKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, inMemory
    var testDescription: String { rawValue }
}

@Suite("CoreDataStack: construction, contexts, bubbling saves, batch context, reset")
struct CoreDataStackTests {
    static func makeStack(_ kind: StackKind, folder: StackTempFolder, log: Recorder<String>? = nil) async throws -> CoreDataStack {
        let model = try LibraryModel.make()
        let options = CoreDataStack.Options(log: { m in log?.append(m) })
        switch kind {
        case .sqlite:
            return try await CoreDataStack.constructSQLiteStack(model: model, at: folder.file("Library.sqlite"), options: options)
        case .inMemory:
            return try CoreDataStack.constructInMemoryStack(model: model, options: options)
        }
    }

    static func insertAuthors(_ names: [String], in context: ManagedObjectContext, save: Bool = true) async throws {
        try await context.perform {
            for n in names {
                let a = try Author(context: context)
                a.name = n
            }
            if save { try context.save() }
        }
    }

    static func authorNames(in context: ManagedObjectContext) async throws -> [String] {
        try await context.perform {
            try Author.all(in: context, sortedBy: [SortDescriptor("name")]).map(\.name)
        }
    }

    // MARK: Construction

    @Test("an SQLite stack at a URL creates the parent folders and the file")
    func sqliteAtURLCreatesFolders() async throws {
        let folder = try StackTempFolder()
        let url = folder.url.appendingPathComponent("a/b/c/Library.sqlite")
        let stack = try await CoreDataStack.constructSQLiteStack(model: try LibraryModel.make(), at: url)
        #expect(FileManager.default.fileExists(atPath: url.path))
        #expect(stack.storeURL == url)
        #expect(stack.storeType == .sqlite(url))
        #expect(stack.persistentStoreCoordinator.persistentStore is SQLiteStore)
    }

    @Test("without a URL the store goes to $XDG_DATA_HOME/<app>/<model>.sqlite, or ~/.local/share/<app>/<model>.sqlite")
    func defaultLocation() async throws {
        let folder = try StackTempFolder()
        let xdg = folder.url.appendingPathComponent("xdg-data")
        let options = CoreDataStack.Options(applicationName: "Shelf", environment: ["XDG_DATA_HOME": xdg.path, "HOME": "/nonexistent"])
        let stack = try await CoreDataStack.constructSQLiteStack(model: try LibraryModel.make(), modelName: "Library", options: options)
        let expected = xdg.appendingPathComponent("Shelf/Library.sqlite")
        #expect(stack.storeURL?.path == expected.path)
        #expect(FileManager.default.fileExists(atPath: expected.path))

        let home = CoreDataStack.defaultStoreURL(
            modelName: "Library", options: .init(applicationName: "Shelf", environment: ["HOME": "/home/ann"]))
        #expect(home.path == "/home/ann/.local/share/Shelf/Library.sqlite")
        // A relative XDG_DATA_HOME is ignored, as the XDG spec says.
        let relative = CoreDataStack.defaultStoreURL(
            modelName: "M", options: .init(applicationName: "A", environment: ["HOME": "/h", "XDG_DATA_HOME": "rel"]))
        #expect(relative.path == "/h/.local/share/A/M.sqlite")
    }

    @Test("a location under a regular file, in /proc, or in a read-only folder fails with storeLocationUnavailable")
    func unwritableLocations() async throws {
        let folder = try StackTempFolder()
        let model = try LibraryModel.make()
        let regular = folder.file("plain.txt")
        try Data("x".utf8).write(to: regular)
        var bad = [regular.appendingPathComponent("sub/Library.sqlite"), URL(fileURLWithPath: "/proc/corestack-\(UUID().uuidString)/Library.sqlite")]
        if getuid() != 0 {
            // Root writes into read-only folders, so this case only means something for other users.
            let ro = folder.url.appendingPathComponent("readonly")
            try FileManager.default.createDirectory(at: ro, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: ro.path)
            bad.append(ro.appendingPathComponent("Library.sqlite"))
        }
        for url in bad {
            await #expect {
                _ = try await CoreDataStack.constructSQLiteStack(model: model, at: url)
            } throws: { error in
                guard case let StackError.storeLocationUnavailable(path, _) = error else { return false }
                return path == url.path
            }
        }
    }

    @Test("the completion-handler variant calls back on the queue the caller picked, with success or failure")
    func callbackVariant() async throws {
        let folder = try StackTempFolder()
        let model = try LibraryModel.make()
        let queue = DispatchQueue(label: "callback-queue")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 42)
        let good: (Bool, Bool) = await withCheckedContinuation { c in
            CoreDataStack.constructSQLiteStack(model: model, at: folder.file("L.sqlite"), callbackQueue: queue) { result in
                c.resume(returning: (DispatchQueue.getSpecific(key: key) == 42, (try? result.get()) != nil))
            }
        }
        #expect(good.0)
        #expect(good.1)
        try Data("x".utf8).write(to: folder.file("file"))
        let bad: (Bool, String) = await withCheckedContinuation { c in
            CoreDataStack.constructSQLiteStack(model: model, at: folder.file("file/L.sqlite"), callbackQueue: queue) { result in
                var message = ""
                if case let .failure(e) = result { message = "\(e)" }
                c.resume(returning: (DispatchQueue.getSpecific(key: key) == 42, message))
            }
        }
        #expect(bad.0)
        #expect(bad.1.contains("cannot keep a store"))
    }

    @Test("a stack built from a model file name reads the .xcdatamodeld and creates the store")
    func fromModelName() async throws {
        let folder = try StackTempFolder()
        let models = Fixtures.url("models/bnr-CoreDataStack")
        let stack = try await CoreDataStack.constructSQLiteStack(modelName: "Sample", modelFolder: models, at: folder.file("Sample.sqlite"))
        #expect(stack.model.entity(named: "Author") != nil)
        #expect(stack.model.entity(named: "Book") != nil)
        let main = stack.mainQueueContext
        try await main.perform {
            let a = try main.insertObject(forEntityName: "Author")
            try a.setValue("Ada", forKey: "firstName")
        }
        try await main.saveContextToStore()
        await #expect(throws: StackError.self) {
            _ = try await CoreDataStack.constructSQLiteStack(modelName: "NoSuchModel", modelFolder: models, at: folder.file("x.sqlite"))
        }
    }

    @Test("contexts: a private root on the coordinator, a main-queue child, children of the main context of the type asked for", arguments: StackKind.allCases)
    func contextShapes(kind: StackKind) async throws {
        let folder = try StackTempFolder()
        let stack = try await Self.makeStack(kind, folder: folder)
        let root = stack.privateQueueContext
        let main = stack.mainQueueContext
        #expect(root.concurrencyType == .privateQueue)
        #expect(root.parent == nil)
        #expect(root.persistentStoreCoordinator === stack.persistentStoreCoordinator)
        #expect(main.concurrencyType == .mainQueue)
        #expect(main.parent === root)
        #expect(root.mergePolicy == .mergeByPropertyStoreTrump)
        #expect(main.mergePolicy == .mergeByPropertyStoreTrump)
        let worker = stack.newChildContext()
        #expect(worker.concurrencyType == .privateQueue)
        #expect(worker.parent === main)
        let scratch = stack.newChildContext(concurrency: .mainQueue, name: "scratch")
        #expect(scratch.concurrencyType == .mainQueue)
        #expect(scratch.parent === main)
        #expect(scratch.name == "scratch")
        // Blocks of the main context run on the main queue (which Swift Testing drains from
        // another thread on Linux), and the context knows it is on its queue there.
        let onQueue = try await main.perform { main.isOnQueue && !root.isOnQueue }
        #expect(onQueue)
        #expect(main.performAndWait { main.isOnQueue })
        #expect(!main.isOnQueue)
    }

    // MARK: Saving

    @Test("5 authors saved from a worker reach the worker, main and private contexts with nothing left unsaved, and survive a rebuild from the file")
    func fiveAuthorsFromWorker() async throws {
        let folder = try StackTempFolder()
        let names = ["Austen", "Borges", "Calvino", "Dickens", "Eco"]
        do {
            let stack = try await Self.makeStack(.sqlite, folder: folder)
            let worker = stack.newChildContext()
            try await Self.insertAuthors(names, in: worker)
            await stack.waitForPendingSaves()
            for context in [worker, stack.mainQueueContext, stack.privateQueueContext] {
                #expect(try await Self.authorNames(in: context) == names)
                let dirty = try await context.perform { context.hasChanges }
                #expect(!dirty, "\(context) still has changes")
            }
        }
        // A new stack over the same file sees them: they reached the disk by themselves.
        let again = try await Self.makeStack(.sqlite, folder: folder)
        #expect(try await Self.authorNames(in: again.mainQueueContext) == names)
        #expect(try await Self.authorNames(in: again.privateQueueContext) == names)
    }

    @Test("saving a worker notifies the main context's did-save, then the private context's")
    func workerSaveNotifiesMain() async throws {
        let folder = try StackTempFolder()
        let stack = try await Self.makeStack(.sqlite, folder: folder)
        let saves = Recorder<String>()
        let main = stack.mainQueueContext
        let root = stack.privateQueueContext
        let t1 = main.addDidSaveObserver { s in saves.append("main:\(s.objectIDs.inserted.count)") }
        let t2 = root.addDidSaveObserver { s in saves.append("private:\(s.objectIDs.inserted.count)") }
        let worker = stack.newChildContext()
        try await Self.insertAuthors(["Woolf"], in: worker)
        #expect(await eventually { saves.count == 2 })
        #expect(saves.values == ["main:1", "private:1"])
        withExtendedLifetime((t1, t2)) {}
    }

    @Test("the parent's save waits until every did-save observer of the child has run")
    func bubblingFollowsEveryObserver() async throws {
        let folder = try StackTempFolder()
        let stack = try await Self.makeStack(.sqlite, folder: folder)
        let saves = Recorder<String>()
        let main = stack.mainQueueContext
        let root = stack.privateQueueContext
        // A slow observer registered after the stack's own: the root must not save meanwhile.
        let t1 = main.addDidSaveObserver { _ in
            Thread.sleep(forTimeInterval: 0.3)
            saves.append("main observer done")
        }
        let t2 = root.addDidSaveObserver { _ in saves.append("private saved") }
        let worker = stack.newChildContext()
        try await Self.insertAuthors(["Woolf"], in: worker)
        #expect(await eventually { saves.count == 2 })
        #expect(saves.values == ["main observer done", "private saved"])
        withExtendedLifetime((t1, t2)) {}
    }

    @Test("saveContextAndWait, saveContext(completion:) and saveContextToStore", arguments: StackKind.allCases)
    func saveHelpers(kind: StackKind) async throws {
        let folder = try StackTempFolder()
        let stack = try await Self.makeStack(kind, folder: folder)
        let worker = stack.newChildContext()
        try await Self.insertAuthors(["A"], in: worker, save: false)
        try worker.saveContextAndWait()
        #expect(try await worker.perform { worker.hasChanges } == false)

        try await Self.insertAuthors(["B"], in: worker, save: false)
        let outcome: Bool = await withCheckedContinuation { c in
            worker.saveContext { result in c.resume(returning: (try? result.get()) != nil) }
        }
        #expect(outcome)

        try await Self.insertAuthors(["C"], in: worker, save: false)
        try await worker.saveContextToStore()
        // On disk now: a context of another coordinator over the same store reads all three.
        let reader = try stack.newBatchOperationContext()
        #expect(try await Self.authorNames(in: reader) == ["A", "B", "C"])
        await stack.waitForPendingSaves()
    }

    @Test("an automatic save that fails is logged, not lost silently")
    func bubblingErrorsAreLogged() async throws {
        let folder = try StackTempFolder()
        let log = Recorder<String>()
        let stack = try await Self.makeStack(.sqlite, folder: folder, log: log)
        let worker = stack.newChildContext()
        try await Self.insertAuthors(["Original"], in: worker)
        await stack.waitForPendingSaves()
        // Remove the store from the private context's coordinator: the next bubbled save fails.
        stack.persistentStoreCoordinator.removePersistentStore()
        try await Self.insertAuthors(["Lost"], in: worker)
        #expect(await eventually { !log.values.isEmpty })
        #expect(log.values.first?.contains("no store") == true)
    }

    // MARK: Batch context

    @Test("a 10,000-object import through the batch context is visible to the main context after a refetch", arguments: StackKind.allCases)
    func batchImport(kind: StackKind) async throws {
        let folder = try StackTempFolder()
        let stack = try await Self.makeStack(kind, folder: folder)
        let main = stack.mainQueueContext
        #expect(try await countObjects("Book", in: main) == 0)
        let batch = try stack.newBatchOperationContext()
        #expect(batch.parent == nil)
        #expect(batch.persistentStoreCoordinator !== stack.persistentStoreCoordinator)
        try await batch.perform {
            for i in 0..<10_000 {
                let b = try Book(context: batch)
                b.title = "Book \(i)"
                b.pages = i
            }
            try batch.save()
        }
        let (count, last) = try await main.perform {
            main.refreshAllObjects()
            let books = try Book.all(in: main, sortedBy: [SortDescriptor("pages", ascending: false)])
            return (books.count, books.first?.title)
        }
        #expect(count == 10_000)
        #expect(last == "Book 9999")
    }

    // MARK: Reset

    @Test("reset waits for pending saves, destroys the store, and a new child can insert and save afterwards", arguments: StackKind.allCases)
    func resetStore(kind: StackKind) async throws {
        let folder = try StackTempFolder()
        let stack = try await Self.makeStack(kind, folder: folder)
        let oldRoot = stack.privateQueueContext
        let oldMain = stack.mainQueueContext
        let reachedStore = Recorder<Int>()
        let token = oldRoot.addDidSaveObserver { s in reachedStore.append(s.objectIDs.inserted.count) }
        let resets = Recorder<Bool>()
        stack.addResetObserver { s in resets.append(s.mainQueueContext !== oldMain) }
        let note = Recorder<Bool>()
        let observer = NotificationCenter.default.addObserver(forName: CoreDataStack.didResetNotification, object: stack, queue: nil) { n in
            note.append(n.userInfo?["mainQueueContext"] is ManagedObjectContext)
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        let worker = stack.newChildContext()
        try await Self.insertAuthors(["Pending"], in: worker)  // its parents' saves are only scheduled
        try await stack.resetStore()
        // The save that was on its way reached the old store before it was destroyed.
        #expect(reachedStore.values == [1])
        #expect(resets.values == [true])
        #expect(note.values == [true])
        if let url = stack.storeURL { #expect(FileManager.default.fileExists(atPath: url.path)) }
        #expect(stack.privateQueueContext !== oldRoot)
        #expect(stack.mainQueueContext !== oldMain)
        #expect(stack.mainQueueContext.parent === stack.privateQueueContext)
        #expect(try await countObjects("Author", in: stack.mainQueueContext) == 0)
        #expect(try await countObjects("Author", in: stack.privateQueueContext) == 0)

        // Old contexts are stale: they no longer reach a store.
        await #expect(throws: CoreStackError.self) {
            try await oldRoot.perform {
                let a = try Author(context: oldRoot)
                a.name = "Stale"
                try oldRoot.save()
            }
        }

        let fresh = stack.newChildContext()
        try await Self.insertAuthors(["After reset"], in: fresh)
        await stack.waitForPendingSaves()
        #expect(try await Self.authorNames(in: stack.privateQueueContext) == ["After reset"])
        if kind == .sqlite {
            let again = try await Self.makeStack(.sqlite, folder: folder)
            #expect(try await Self.authorNames(in: again.mainQueueContext) == ["After reset"])
        }
        withExtendedLifetime(token) {}
    }

    @Test("resetStore with a completion handler calls back on the queue given")
    func resetCallback() async throws {
        let folder = try StackTempFolder()
        let stack = try await Self.makeStack(.sqlite, folder: folder)
        let queue = DispatchQueue(label: "reset-callback")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let ok: Bool = await withCheckedContinuation { c in
            stack.resetStore(callbackQueue: queue) { result in
                c.resume(returning: DispatchQueue.getSpecific(key: key) == 7 && (try? result.get()) != nil)
            }
        }
        #expect(ok)
    }

    @Test("resetStore with a completion handler finishes while every thread of the cooperative pool is blocked")
    func resetCallbackWithPoolBlocked() async throws {
        let stack = try CoreDataStack.constructInMemoryStack(model: try LibraryModel.make())
        let release = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        // More blockers than the pool has threads (one per core): every thread of it waits.
        let blockers = 2 * ProcessInfo.processInfo.activeProcessorCount
        let started = Recorder<Int>()
        for i in 0..<blockers {
            Task.detached {
                started.append(i)
                _ = release.wait(timeout: .now() + 30)
            }
        }
        // Measured on a thread of its own: this test's task is suspended meanwhile.
        let finished: Bool = await withCheckedContinuation { c in
            Thread.detachNewThread {
                // Give the blockers a moment to take the pool's threads.
                Thread.sleep(forTimeInterval: 0.3)
                stack.resetStore(callbackQueue: .global()) { _ in done.signal() }
                let ok = done.wait(timeout: .now() + 10) == .success
                for _ in 0..<blockers { release.signal() }
                c.resume(returning: ok)
            }
        }
        #expect(!started.values.isEmpty)
        #expect(finished, "the reset waited for the cooperative pool")
    }

    @Test("reset removes the store file and its -wal and -shm files (hard links to them are left with one name)")
    func resetRemovesSideFiles() async throws {
        let folder = try StackTempFolder()
        let stack = try await Self.makeStack(.sqlite, folder: folder)
        let url = try #require(stack.storeURL)
        try await Self.insertAuthors(["X"], in: stack.newChildContext())
        await stack.waitForPendingSaves()
        _ = try stack.newBatchOperationContext()  // a second connection, detached by the reset too
        var links: [String] = []
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: url.path + suffix) {
            let keep = folder.file("keep\(suffix)").path
            #expect(link(url.path + suffix, keep) == 0)
            links.append(keep)
        }
        #expect(links.count == 3, "WAL mode keeps -wal and -shm files next to an open store")
        try await stack.resetStore()
        for keep in links {
            var st = stat()
            #expect(stat(keep, &st) == 0)
            #expect(st.st_nlink == 1, "\(keep): the original name still points at the old file")
        }
        let fresh = try await Self.makeStack(.sqlite, folder: folder)
        #expect(try await countObjects("Author", in: fresh.privateQueueContext) == 0)
    }
}
