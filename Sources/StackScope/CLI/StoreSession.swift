import CoreStack
import Foundation

/// A store opened read-only for a command: the model chosen for it, a coordinator and a
/// private-queue context.
///
/// ```swift
/// let session = try StoreSession.open(storePath: "/tmp/library.sqlite", modelPath: nil)
/// let n = try session.context.performAndWait { try session.context.count(for: FetchRequest<ManagedObject>(entityName: "Book")) }
/// ```
public final class StoreSession {
    /// The store file's URL as given (through a symbolic link, the store opens its target).
    public let storeURL: URL
    /// The store's metadata, read before it was opened.
    public let metadata: StoreMetadata
    /// The model the store was opened with.
    public let model: ManagedObjectModel
    /// The coordinator the store was added to (read-only).
    public let coordinator: PersistentStoreCoordinator
    /// A private-queue context on the coordinator; use it inside `perform` or `performAndWait`.
    public let context: ManagedObjectContext
    /// Where the model in use came from, one line: `file Library.xcdatamodeld version Library 2`,
    /// `demo model`, `stored in the store (Z_MODELCACHE)`, `inferred from the schema`.
    public let modelSource: String
    /// One-line notes for the user about the choice of model (e.g. why the store's own model was
    /// used instead of `--model`); empty when the model given or expected was used.
    public let warnings: [String]
    /// What the store file holds that the model does not explain (columns read raw, tables not
    /// read), nil for stores that are not SQLite files.
    ///
    /// ```swift
    /// session.schemaReport?.unexplainedTables  // ["NOTES"]
    /// ```
    public let schemaReport: SQLiteStoreSchemaReport?
    /// ``schemaReport``'s one line, nil when everything was understood.
    ///
    /// ```swift
    /// session.notUnderstood  // "1 column read raw (ZASSET.ZEXTRA); 1 table outside the model (NOTES)"
    /// ```
    public var notUnderstood: String? { schemaReport?.summary }

    init(
        storeURL: URL, metadata: StoreMetadata, store: any PersistentStore, modelSource: String = "",
        warnings: [String] = []
    ) throws {
        self.storeURL = storeURL
        self.metadata = metadata
        self.model = store.model
        self.modelSource = modelSource
        self.warnings = warnings
        self.schemaReport = try? (store as? SQLiteStore)?.schemaReport()
        self.coordinator = PersistentStoreCoordinator(managedObjectModel: store.model)
        try coordinator.addPersistentStore(store)
        self.context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: "stackscope")
    }

    /// Removes the store from the coordinator and closes it (`SQLiteStore/close()`), so no
    /// `-wal` or `-shm` is left beside the file; the session's context then gets
    /// `CoreStackError/noStore(_:)`. The session closes itself when freed; closing twice does nothing.
    ///
    /// ```swift
    /// let session = try StoreSession.open(storePath: path, modelPath: nil)
    /// defer { session.close() }
    /// ```
    public func close() {
        guard let store = coordinator.persistentStore else { return }
        try? coordinator.remove(store)
        (store as? SQLiteStore)?.close()
    }

    deinit { close() }

    /// Opens a store read-only, choosing its model in this order:
    ///
    /// 1. `modelPath`, when given and it fits the store: a `.xcdatamodeld` bundle or a `.momd`
    ///    folder (the version matching the store is used), a single `.xcdatamodel` or `.mom`;
    /// 2. without `modelPath`, the demo model when the store was written with it;
    /// 3. the model the store carries (`Z_MODELCACHE`, in every store Core Data wrote since
    ///    about 2011), also when `modelPath` does not fit the store, with a warning saying why;
    /// 4. a model inferred from the store's tables when it carries none (or one that cannot be
    ///    read), with a warning;
    /// 5. otherwise ``StackScopeError/modelRequired(path:)``, or the mismatch of `modelPath`.
    ///
    /// ```swift
    /// let session = try StoreSession.open(storePath: "App.sqlite", modelPath: nil)
    /// session.modelSource  // "stored in the store (Z_MODELCACHE)"
    /// ```
    public static func open(
        storePath: String, modelPath: String?, files: any StoreFileAccess = StoreFiles.standard
    ) throws -> StoreSession {
        // Through a symbolic link, SQLiteStore opens (and cleans up beside) the target itself;
        // the session shows the path given.
        let url = URL(fileURLWithPath: storePath)
        let metadata = try files.metadata(at: url)
        if let modelPath {
            let modelURL = URL(fileURLWithPath: modelPath)
            let fileName = modelURL.lastPathComponent
            let store: any PersistentStore
            do {
                switch modelURL.pathExtension {
                case "xcdatamodeld":
                    store = try files.openReadOnly(at: url, bundle: try XcodeModelReader.readBundle(at: modelURL))
                case "xcdatamodel":
                    store = try files.openReadOnly(at: url, model: try XcodeModelReader.readModel(at: modelURL))
                case "momd", "mom":
                    store = try files.openReadOnly(at: url, bundle: try CompiledModelReader.readBundle(at: modelURL))
                default:
                    throw StackScopeError.unsupportedModelPath(path: modelPath)
                }
            } catch let CoreStackError.modelMismatch(path, differences) {
                // The model file is not the one the store was written with: read the store with
                // the model it carries (or one inferred from its tables), and say so.
                guard let (fallback, note) = try? ownModel(of: url, files: files) else {
                    throw CoreStackError.modelMismatch(path: path, differences: differences)
                }
                let why = differences.first.map { " (\($0))" } ?? ""
                return try StoreSession(
                    storeURL: url, metadata: metadata, store: fallback, modelSource: Self.source(of: fallback.model),
                    warnings: ["no version of \(fileName) matches the store\(why); opened with the \(note)"])
            }
            let version = store.model.versionName.map { " version \($0)" } ?? ""
            return try StoreSession(
                storeURL: url, metadata: metadata, store: store, modelSource: "file \(fileName)\(version)")
        }
        if DemoLibrary.matches(metadata) {
            return try StoreSession(
                storeURL: url, metadata: metadata, store: try files.openReadOnly(at: url, model: try DemoLibrary.model()),
                modelSource: "demo model")
        }
        let own: (store: any PersistentStore, note: String)
        do {
            own = try ownModel(of: url, files: files)
        } catch StoreSessionFallback.noModel {
            throw StackScopeError.modelRequired(path: storePath)
        } catch let StoreSessionFallback.unreadable(reasons) {
            throw StackScopeError.noReadableModel(path: storePath, reasons: reasons)
        }
        var warnings: [String] = []
        if own.store.model.origin == .inferredFromSchema {
            warnings.append("opened with a \(own.note)")
        } else if own.note != "model stored in the file" {
            warnings.append("opened with the \(own.note)")
        }
        return try StoreSession(
            storeURL: url, metadata: metadata, store: own.store, modelSource: Self.source(of: own.store.model),
            warnings: warnings)
    }

    /// Why no model of the store's own could be used.
    private enum StoreSessionFallback: Error {
        case noModel
        /// The store's own model and the inferred one both failed, each for the reason given.
        case unreadable([String])
    }

    /// The store opened with the model it carries, else with one inferred from its tables, and a
    /// note naming which (and why inferred). Throws `StoreSessionFallback.noModel` when the store
    /// kind has neither; errors opening the store pass through.
    private static func ownModel(of url: URL, files: any StoreFileAccess) throws -> (store: any PersistentStore, note: String) {
        var cacheProblem = "the store has no model cache (Z_MODELCACHE)"
        do {
            if let stored = try files.storedModel(at: url) {
                // Columns the cached model does not explain are read raw (the open is read-only).
                let model = try files.readingModel(for: stored, at: url)
                let missing = stored.entities.map(\.name).filter { model.entity(named: $0) == nil }
                let columnless = stored.entities.flatMap { e in
                    e.attributes.filter { a in !a.isTransient && model.entity(named: e.name).map { $0.attribute(named: a.name) == nil } == true }
                        .map { "\(e.name).\($0.name)" }
                }
                var note = "model stored in the file"
                if !missing.isEmpty { note += ", without the entities the store does not hold (\(missing.joined(separator: ", ")))" }
                if !columnless.isEmpty { note += ", without the attributes that have no column (\(columnless.joined(separator: ", ")))" }
                do {
                    return (try files.openReadOnly(at: url, model: model), note)
                } catch let CoreStackError.modelMismatch(_, differences) {
                    cacheProblem = "the store's model cache does not fit its tables (\(Self.first(differences)))"
                }
            }
        } catch let error as ModelArchiveError {
            cacheProblem = "the store's model cache cannot be read (\(error.location): \(error.reason))"
        } catch let error as CoreStackError {
            guard case let .invalidModel(entity, property, reason) = error else { throw error }
            let element = property.map { "\(entity).\($0)" } ?? entity
            cacheProblem = "the store's model cache holds a model CoreStack rejects (\(element): \(reason))"
        }
        guard let inferred = try files.inferredModel(at: url) else { throw StoreSessionFallback.noModel }
        let store: any PersistentStore
        do {
            store = try files.openReadOnly(at: url, model: inferred)
        } catch let CoreStackError.modelMismatch(_, differences) {
            // The tables do not say enough, or the store is matched by version hashes (stores
            // CoreStack wrote): a model file is needed. Both reasons are the user's to know.
            throw StoreSessionFallback.unreadable([
                cacheProblem, "the model inferred from its tables does not fit them (\(Self.first(differences)))",
            ])
        }
        return (store, "model inferred from the schema: \(cacheProblem); property names are as the columns give them")
    }

    /// The first three of `differences`, joined, with how many more there are.
    private static func first(_ differences: [String]) -> String {
        differences.prefix(3).joined(separator: "; ") + (differences.count > 3 ? "; and \(differences.count - 3) more" : "")
    }

    /// How ``modelSource`` names a model that did not come from a file the user named.
    static func source(of model: ManagedObjectModel) -> String {
        switch model.origin {
        case .storeModelCache: "stored in the store (Z_MODELCACHE)"
        case .inferredFromSchema: "inferred from the schema"
        default: model.origin.description
        }
    }

    /// A name for the model version in use: its version name, else its first identifier.
    public var modelVersion: String {
        model.versionName ?? model.versionIdentifiers.first ?? "unnamed"
    }

    /// The entity named `name`, or an error listing the model's entities.
    public func entity(named name: String) throws -> EntityDescription {
        guard let e = model.entity(named: name) else {
            throw StackScopeError.unknownEntity(name: name, available: model.entities.map(\.name))
        }
        return e
    }
}
