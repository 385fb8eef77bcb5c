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
    public let storeURL: URL
    public let metadata: StoreMetadata
    public let model: ManagedObjectModel
    public let coordinator: PersistentStoreCoordinator
    public let context: ManagedObjectContext

    init(storeURL: URL, metadata: StoreMetadata, store: any PersistentStore) throws {
        self.storeURL = storeURL
        self.metadata = metadata
        self.model = store.model
        self.coordinator = PersistentStoreCoordinator(managedObjectModel: store.model)
        try coordinator.addPersistentStore(store)
        self.context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: "stackscope")
    }

    deinit { coordinator.removePersistentStore() }

    /// Opens a store read-only. Without `modelPath` the demo model is used when the store was
    /// written with it; otherwise ``StackScopeError/modelRequired(path:)`` asks for `--model`.
    /// `modelPath` names a `.xcdatamodeld` bundle (the version matching the store is used) or a
    /// single `.xcdatamodel` version.
    public static func open(
        storePath: String, modelPath: String?, files: any StoreFileAccess = StoreFiles.standard
    ) throws -> StoreSession {
        let url = URL(fileURLWithPath: storePath)
        let metadata = try files.metadata(at: url)
        let store: any PersistentStore
        if let modelPath {
            let modelURL = URL(fileURLWithPath: modelPath)
            switch modelURL.pathExtension {
            case "xcdatamodeld":
                store = try files.openReadOnly(at: url, bundle: try XcodeModelReader.readBundle(at: modelURL))
            case "xcdatamodel":
                store = try files.openReadOnly(at: url, model: try XcodeModelReader.readModel(at: modelURL))
            default:
                throw StackScopeError.unsupportedModelPath(path: modelPath)
            }
        } else {
            guard DemoLibrary.matches(metadata) else { throw StackScopeError.modelRequired(path: storePath) }
            store = try files.openReadOnly(at: url, model: try DemoLibrary.model())
        }
        return try StoreSession(storeURL: url, metadata: metadata, store: store)
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
