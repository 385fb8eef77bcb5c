import Foundation

/// One Core Data or SwiftData store that ``StoreFinder`` found: the file, what its metadata says,
/// its model's source, and its counts.
///
/// ```swift
/// let store = try StoreFinder().search(["."]).stores[0]
/// print(store.path, store.model, store.objectCount ?? 0)   // ./App.sqlite stored 1200
/// ```
public struct FoundStore: Sendable, Equatable {
    /// Where the store's model came from when it was read.
    public enum ModelSource: String, Sendable, Equatable {
        /// The model the store carries (`Z_MODELCACHE`; CoreStack's demo stores carry theirs too).
        case stored
        /// A model inferred from the store's tables (the store carries none, or one that cannot be read).
        case inferred
        /// No model could be had: the counts are missing, ``FoundStore/problem`` says why.
        case none
    }

    /// The path as found under the folder searched (through links as they were met).
    public var path: String
    /// The size of the store file in bytes (its `-wal` not included).
    public var size: Int64
    /// When the store file was last modified.
    public var modified: Date
    /// The store's UUID from its metadata; nil when the metadata cannot be read.
    public var storeUUID: String?
    /// `NSPersistenceFrameworkVersion` from the metadata (hundreds for Apple's Core Data, 1 for CoreStack).
    public var frameworkVersion: Int?
    /// Where the model came from.
    public var model: ModelSource
    /// The model's entities; for a store with no model, the entities its `Z_PRIMARYKEY` lists.
    public var entityCount: Int?
    /// Objects of every entity (nil when no model could be had).
    public var objectCount: Int?
    /// Whether the store keeps persistent history (`ATRANSACTION`); nil when unknown.
    public var hasHistory: Bool?
    /// The size in bytes of the `-wal` file beside the store (0 when there is none or it is empty):
    /// changes not yet in the store file, which a copy of the file alone would lose.
    public var walSize: Int64
    /// Why some fields are missing (one line), nil when nothing went wrong.
    public var problem: String?

    /// Whether a `-wal` with content is beside the store.
    public var hasWAL: Bool { walSize > 0 }

    /// A found store from its fields.
    ///
    /// ```swift
    /// let store = FoundStore(path: "App.sqlite", size: 4096, modified: Date(), model: .stored, objectCount: 12)
    /// ```
    public init(
        path: String, size: Int64, modified: Date, storeUUID: String? = nil, frameworkVersion: Int? = nil,
        model: ModelSource, entityCount: Int? = nil, objectCount: Int? = nil, hasHistory: Bool? = nil,
        walSize: Int64 = 0, problem: String? = nil
    ) {
        self.path = path
        self.size = size
        self.modified = modified
        self.storeUUID = storeUUID
        self.frameworkVersion = frameworkVersion
        self.model = model
        self.entityCount = entityCount
        self.objectCount = objectCount
        self.hasHistory = hasHistory
        self.walSize = walSize
        self.problem = problem
    }
}
