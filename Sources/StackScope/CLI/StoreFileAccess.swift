import CoreStack
import Foundation

/// How stackscope creates and opens store files: the one place that knows which store class backs
/// a file. Commands take one of these, so tests can run them against in-memory stores.
public protocol StoreFileAccess: Sendable {
    /// Creates a new, empty store at `url` for `model` (the file must not exist yet).
    func createStore(at url: URL, model: ManagedObjectModel) throws -> any PersistentStore
    /// Deletes the store at `url` with its side files (`-wal`, `-shm`).
    func removeStore(at url: URL) throws
    /// Opens an existing store read-only with `model`; throws when the store does not match it.
    func openReadOnly(at url: URL, model: ManagedObjectModel) throws -> any PersistentStore
    /// Opens an existing store read-only with the version of `bundle` it was written with.
    func openReadOnly(at url: URL, bundle: ManagedObjectModelBundle) throws -> any PersistentStore
    /// Reads a store's metadata without opening it with a model.
    func metadata(at url: URL) throws -> StoreMetadata
    /// The model the store carries (Core Data's `Z_MODELCACHE`), or nil when it has none.
    func storedModel(at url: URL) throws -> ManagedObjectModel?
    /// A model inferred from the store's tables, or nil when the store kind cannot tell.
    func inferredModel(at url: URL) throws -> ManagedObjectModel?
    /// `model` with a raw attribute for each column of the store it does not explain (see
    /// `SQLiteStore/readingModel(for:at:)`), for a read-only open.
    ///
    /// ```swift
    /// let model = try files.readingModel(for: stored, at: url)
    /// let store = try files.openReadOnly(at: url, model: model)
    /// ```
    func readingModel(for model: ManagedObjectModel, at url: URL) throws -> ManagedObjectModel
}

extension StoreFileAccess {
    /// Stores without a model of their own: nil.
    public func storedModel(at url: URL) throws -> ManagedObjectModel? { nil }
    /// Stores whose schema tells nothing: nil.
    public func inferredModel(at url: URL) throws -> ManagedObjectModel? { nil }
    /// Stores without columns of their own: the model as it is.
    public func readingModel(for model: ManagedObjectModel, at url: URL) throws -> ManagedObjectModel { model }
}

/// Stores kept in memory, keyed by path: for tests of the command logic without store files.
///
/// ```swift
/// let files = InMemoryStoreFiles()
/// try DemoLibrary.create(at: URL(fileURLWithPath: "/virtual/library"), size: 50, files: files)
/// ```
public final class InMemoryStoreFiles: StoreFileAccess, @unchecked Sendable {
    private let lock = NSLock()
    private var stores: [String: InMemoryStore] = [:]

    /// Creates an empty set of stores.
    public init() {}

    /// Creates an empty `InMemoryStore` for `model` at `url`'s path, replacing any store there.
    public func createStore(at url: URL, model: ManagedObjectModel) throws -> any PersistentStore {
        lock.lock()
        defer { lock.unlock() }
        let store = InMemoryStore(model: model)
        stores[url.standardizedFileURL.path] = store
        return store
    }

    /// Returns the store at `url`; throws when there is none or it was created with another model.
    public func openReadOnly(at url: URL, model: ManagedObjectModel) throws -> any PersistentStore {
        let store = try existing(url)
        guard store.model.entityVersionHashes == model.entityVersionHashes else {
            throw CoreStackError.modelMismatch(path: url.path, differences: ["the store was written with another model"])
        }
        return store
    }

    /// Returns the store at `url`; throws when there is none or no version of `bundle` matches it.
    public func openReadOnly(at url: URL, bundle: ManagedObjectModelBundle) throws -> any PersistentStore {
        let store = try existing(url)
        guard bundle.versions.contains(where: { $0.entityVersionHashes == store.model.entityVersionHashes }) else {
            throw CoreStackError.modelMismatch(path: url.path, differences: ["no version of \(bundle.name) matches the store"])
        }
        return store
    }

    /// Returns the metadata of the store at `url`; throws when there is none.
    public func metadata(at url: URL) throws -> StoreMetadata { try existing(url).metadata }

    /// Forgets the store at `url`, if any.
    public func removeStore(at url: URL) throws {
        lock.lock()
        defer { lock.unlock() }
        stores[url.standardizedFileURL.path] = nil
    }

    /// Whether a store was created at `url`.
    public func exists(at url: URL) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return stores[url.standardizedFileURL.path] != nil
    }

    private func existing(_ url: URL) throws -> InMemoryStore {
        lock.lock()
        defer { lock.unlock() }
        guard let store = stores[url.standardizedFileURL.path] else {
            throw StackScopeError.storeNotFound(path: url.path)
        }
        return store
    }
}

/// The store files stackscope uses.
public enum StoreFiles {
    /// SQLite files in Core Data's layout (`SQLiteStore`).
    public static let standard: any StoreFileAccess = SQLiteStoreFiles()
}

/// Store files backed by `SQLiteStore`: created read-write, opened read-only so that inspecting
/// a store never changes it.
public struct SQLiteStoreFiles: StoreFileAccess {
    /// Creates the SQLite store files access.
    public init() {}

    /// Creates a new SQLite store at `url`; throws when a file is already there.
    public func createStore(at url: URL, model: ManagedObjectModel) throws -> any PersistentStore {
        guard !FileManager.default.fileExists(atPath: url.path) else { throw StackScopeError.fileExists(path: url.path) }
        return try SQLiteStore(url: url, model: model)
    }

    /// Opens the SQLite store at `url` read-only with `model`.
    public func openReadOnly(at url: URL, model: ManagedObjectModel) throws -> any PersistentStore {
        try checkFile(url)
        return try SQLiteStore(url: url, model: model, readOnly: true)
    }

    /// Opens the SQLite store at `url` read-only with the version of `bundle` that matches it.
    public func openReadOnly(at url: URL, bundle: ManagedObjectModelBundle) throws -> any PersistentStore {
        try checkFile(url)
        return try SQLiteStore.open(url: url, bundle: bundle, readOnly: true)
    }

    /// Reads the metadata of the SQLite store at `url`.
    public func metadata(at url: URL) throws -> StoreMetadata {
        try checkFile(url)
        return try SQLiteStore.metadata(at: url)
    }

    /// The model stored in the SQLite store at `url`, or nil when it has none.
    public func storedModel(at url: URL) throws -> ManagedObjectModel? {
        try checkFile(url)
        return try SQLiteStore.storedModel(at: url)
    }

    /// A model inferred from the SQLite store's tables at `url`, or nil when it cannot be.
    public func inferredModel(at url: URL) throws -> ManagedObjectModel? {
        try checkFile(url)
        return try SQLiteStore.inferredModel(at: url)
    }

    /// `model` with a raw attribute for each column of the SQLite store at `url` it does not explain.
    ///
    /// ```swift
    /// let model = try SQLiteStoreFiles().readingModel(for: stored, at: url)
    /// ```
    public func readingModel(for model: ManagedObjectModel, at url: URL) throws -> ManagedObjectModel {
        try checkFile(url)
        return try SQLiteStore.readingModel(for: model, at: url)
    }

    /// Deletes the SQLite store at `url` and its `-wal` and `-shm` files, under SQLite's exclusive
    /// lock on the store: refused with `CoreStackError/storeInUse(path:action:)` while another
    /// process has it open.
    public func removeStore(at url: URL) throws {
        try checkFile(url)
        try SQLiteStoreFileLock.withExclusiveLock(on: url, toDo: "delete the store") {
            for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: url.path + suffix) {
                try FileManager.default.removeItem(atPath: url.path + suffix)
            }
            try FileManager.default.removeItem(at: url)
        }
    }

    private func checkFile(_ url: URL) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw StackScopeError.storeNotFound(path: url.path)
        }
        guard !isDirectory.boolValue else { throw StackScopeError.notAFile(path: url.path) }
    }
}
