import CoreStack
import Foundation

/// The store the browser looks at and the stack it reads through: a `CoreDataStack` over any
/// store (root private context → main-queue context → children), or the demo store in the cache
/// folder through `PersistentStoreManager`.
///
/// ```swift
/// let session = try BrowserSession.open(storePath: "/tmp/library.sqlite", modelPath: nil, readOnly: true)
/// session.mainContext   // the main-queue context the tables are built on
/// ```
public final class BrowserSession: @unchecked Sendable {
    /// Where the store file is (nil for in-memory stores).
    public let storeURL: URL?
    /// The model the store was opened with.
    public let model: ManagedObjectModel
    /// The name of the model version, as the status bar shows it.
    public let modelVersion: String
    /// Whether the store was opened read-only (edits are then refused).
    public let readOnly: Bool
    /// The main-queue context the browser's tables, detail and counts read through (a new one
    /// after a reset).
    public var mainContext: ManagedObjectContext {
        switch backing {
        case let .stack(stack): stack.mainQueueContext
        case let .manager(manager): manager.managedObjectContext
        }
    }
    /// The coordinator of the main context.
    public var coordinator: PersistentStoreCoordinator {
        switch backing {
        case let .stack(stack): stack.persistentStoreCoordinator
        case let .manager(manager): manager.persistentStoreCoordinator
        }
    }
    /// The nested stack, when the store was opened through one.
    public let stack: CoreDataStack?
    /// The shared-manager stack, for the demo store (a new manager after a reset or the corruption demo).
    public var manager: PersistentStoreManager? {
        if case let .manager(m) = backing { m } else { nil }
    }
    /// What the session reads through; replaced when the demo store is reset.
    private(set) var backing: Backing
    /// The store file's device and inode when it was opened, to notice it deleted or replaced.
    private(set) var fileIdentity: StoreFileIdentity?
    /// One-line notes about how the store was opened (the model chosen, why read-only), shown at start.
    public internal(set) var notes: [String] = []
    /// Messages the stack reports by itself (saves it triggered that failed).
    let logSink: LogSink

    /// Collects messages from the stacks' log hooks until the app shows them.
    final class LogSink: @unchecked Sendable {
        private let lock = NSLock()
        private var handler: (@Sendable (String) -> Void)?
        private var pending: [String] = []
        func log(_ message: String) {
            lock.lock()
            let h = handler
            if h == nil { pending.append(message) }
            lock.unlock()
            h?(message)
        }
        func attach(_ h: @escaping @Sendable (String) -> Void) {
            lock.lock()
            handler = h
            let p = pending
            pending = []
            lock.unlock()
            p.forEach(h)
        }
    }

    /// What a session reads through.
    enum Backing {
        case stack(CoreDataStack)
        case manager(PersistentStoreManager)
    }

    init(storeURL: URL?, modelVersion: String, readOnly: Bool, backing: Backing, logSink: LogSink) {
        self.storeURL = storeURL
        self.modelVersion = modelVersion
        self.readOnly = readOnly
        self.logSink = logSink
        fileIdentity = storeURL.flatMap(StoreFileIdentity.init(url:))
        self.backing = backing
        switch backing {
        case let .stack(stack):
            self.stack = stack
            model = stack.model
        case let .manager(manager):
            stack = nil
            model = manager.persistentStoreCoordinator.managedObjectModel
        }
    }

    /// Puts a new shared manager in place of the old one (after the demo store was reset).
    func replaceManager(_ manager: PersistentStoreManager) {
        manager.managedObjectContext.name = "main"
        backing = .manager(manager)
        fileIdentity = storeURL.flatMap(StoreFileIdentity.init(url:))
    }

    /// Names the stack's contexts for the saves pane and notes the store file anew (after a reset).
    func stackReplaced() {
        stack?.privateQueueContext.name = "root"
        stack?.mainQueueContext.name = "main"
        fileIdentity = storeURL.flatMap(StoreFileIdentity.init(url:))
    }

    /// Merges another root context's save into the stack: the root context first, then the main
    /// context, as an app merges a did-save from a context of its own.
    func mergeIntoStack(_ ids: SavedObjectIDs) {
        if let stack {
            let root = stack.privateQueueContext
            root.performAndWait { root.mergeChanges(from: ids) }
        }
        let main = mainContext
        main.performAndWait { main.mergeChanges(from: ids) }
    }

    /// The contexts of the stack that the saves pane names, root first.
    public var rootContext: ManagedObjectContext { stack?.privateQueueContext ?? mainContext }

    /// Opens a store file through a `CoreDataStack`: any store `stackscope info` opens, with the
    /// same choice of model (``StoreSession/open(storePath:modelPath:files:)``: `modelPath`, the demo
    /// model, the model stored in the file, or one inferred from its tables). `readOnly` opens it
    /// so nothing can write; so does a file or folder that cannot be written, and a model the
    /// browser only found in the file or inferred (so an app's store is never changed by a model
    /// that is not the app's).
    public static func open(storePath: String, modelPath: String?, readOnly: Bool, files: any StoreFileAccess = StoreFiles.standard) throws -> BrowserSession {
        let checked = try StoreSession.open(storePath: storePath, modelPath: modelPath, files: files)
        let url = checked.storeURL
        let model = checked.model
        var notes = checked.warnings
        if let line = checked.notUnderstood { notes.append("not understood: \(line)") }
        let ownModel = model.origin == .storeModelCache || model.origin == .inferredFromSchema
        let writableFile = FileManager.default.isWritableFile(atPath: url.path)
            && FileManager.default.isWritableFile(atPath: url.deletingLastPathComponent().path)
        if !readOnly && ownModel { notes.append("opened read-only: the model is the one \(checked.modelSource), not a model file (--model FILE edits)") }
        if !readOnly && !writableFile { notes.append("opened read-only: the file or its folder cannot be written") }
        let writable = !readOnly && writableFile && !ownModel
        let store: any PersistentStore
        if files is SQLiteStoreFiles {
            // Other processes' saves are noticed (PRAGMA data_version, polled). History is recorded
            // only in a store that keeps it already: the browser adds no tables to a user's store.
            var options = PersistentStoreOptions(remoteChangeNotifications: true)
            var opened = try SQLiteStore(url: url, model: model, readOnly: !writable, options: options)
            if writable, (try? opened.hasPersistentHistory()) == true {
                options.persistentHistoryTracking = true
                opened = try SQLiteStore(url: url, model: model, readOnly: false, options: options)
            }
            store = opened
            // Read without SQLite's usual side files: the status bar says how.
            switch opened.readAccess {
            case .immutable, .snapshot: notes.append(opened.readAccess.summary)
            case .readWrite, .readOnly, .queryOnly: break
            }
        } else {
            store = try files.openReadOnly(at: url, model: model)
        }
        let session = try make(store: store, url: url, readOnly: !writable)
        session.notes = notes
        return session
    }

    static func make(store: any PersistentStore, url: URL?, readOnly: Bool) throws -> BrowserSession {
        let sink = LogSink()
        var options = CoreDataStack.Options()
        options.log = { sink.log($0) }
        let stack = try CoreDataStack.constructStack(store: store, options: options)
        stack.privateQueueContext.name = "root"
        stack.mainQueueContext.name = "main"
        let version = store.model.versionName ?? store.model.versionIdentifiers.first ?? "unnamed"
        return BrowserSession(storeURL: url, modelVersion: version, readOnly: readOnly, backing: .stack(stack), logSink: sink)
    }

    /// A stack over any store (an in-memory one in tests), through a `CoreDataStack`.
    public static func stack(over store: any PersistentStore, url: URL? = nil, readOnly: Bool = false) throws -> BrowserSession {
        try make(store: store, url: url, readOnly: readOnly)
    }

    /// Opens the demo library in the cache folder through `PersistentStoreManager`, creating and
    /// seeding it on first run (`progress` is told as it goes).
    public static func demo(
        storeURL: URL? = nil, size: Int = 300, environment: [String: String]? = nil, progress: (String) -> Void = { _ in }
    ) throws -> BrowserSession {
        let sink = LogSink()
        let model = try DemoLibrary.model()
        var config = PersistentStoreManager.Configuration(
            model: model, applicationName: "stackscope", storeURL: storeURL, environment: environment,
            savesOnTermination: false, log: { sink.log($0) })
        // The demo store keeps persistent history, so a second stackscope on it sees who saved what.
        // The manager's other options stay as they are: a demo store of an earlier demo model is
        // migrated automatically (keeping the user's edits), not moved aside.
        config.storeOptions.persistentHistoryTracking = true
        config.storeOptions.remoteChangeNotifications = true
        let manager = try PersistentStoreManager(configuration: config)
        let context = manager.managedObjectContext
        let empty = try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Book")) == 0 }
        if empty {
            progress("Creating the demo library in \(manager.storeURL.path) …")
            try context.performAndWait {
                _ = try DemoLibrary.populate(context, size: size)
                try context.save()
            }
            progress("Created.")
        }
        context.name = "main"
        return BrowserSession(
            storeURL: manager.storeURL, modelVersion: DemoLibrary.versionName, readOnly: false, backing: .manager(manager), logSink: sink)
    }

    /// A new child of the main context (a worker, or a scratch pad for editing); its saves reach
    /// the store by themselves in a `CoreDataStack`.
    public func newChildContext(name: String) -> ManagedObjectContext {
        if let stack { return stack.newChildContext(name: name) }
        return ManagedObjectContext(concurrencyType: .privateQueue, parent: mainContext, name: name)
    }

    /// What happened to the store file since it was opened: nil while it is the same file,
    /// otherwise a sentence saying it was deleted or replaced (the open connection keeps reading
    /// the file it opened, as SQLite does).
    public func storeFileChange() -> String? {
        guard let storeURL, let opened = fileIdentity else { return nil }
        guard let now = StoreFileIdentity(url: storeURL) else {
            return "the store file \(storeURL.path) was deleted while open: showing the data read from the file as opened; nothing can be saved to the path"
        }
        return now == opened ? nil : "the store file \(storeURL.path) was replaced by another file while open: still showing the file as opened; restart stackscope to open the new one"
    }

    /// Removes the store from the session's coordinator and closes it (`SQLiteStore/close()`),
    /// so SQLite removes the file's `-wal` and `-shm` (those a read-only store created, or all
    /// of them when no other connection uses the file). Contexts of the session then get
    /// `CoreStackError/noStore(_:)`. Call it last, after ``saveAll()``; closing twice does nothing.
    ///
    /// ```swift
    /// try session.saveAll()
    /// session.close()
    /// ```
    public func close() {
        let coordinator = coordinator
        guard let store = coordinator.persistentStore else { return }
        try? coordinator.remove(store)
        (store as? SQLiteStore)?.close()
    }

    /// Saves the main context and, in a nested stack, the root context, so that nothing pending is
    /// lost when the process ends. Call on the main queue.
    public func saveAll() throws {
        try mainContext.performAndWait { if mainContext.hasChanges { try mainContext.save() } }
        if let stack {
            _ = stack.waitForPendingSaves(timeout: .now() + 5)
            let root = stack.privateQueueContext
            try root.performAndWait { if root.hasChanges { try root.save() } }
        }
    }

    /// Every entity with its live count, as the main context sees it.
    func counts() throws -> [String: Int] {
        var out: [String: Int] = [:]
        for e in model.entities {
            out[e.name] = try mainContext.count(for: FetchRequest<ManagedObject>(entityName: e.name))
        }
        return out
    }
}
