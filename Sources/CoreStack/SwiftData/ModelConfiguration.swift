import Foundation

/// Where and how a container keeps its store (SwiftData's `ModelConfiguration`).
///
/// ```swift
/// let onDisk = ModelConfiguration(url: URL(fileURLWithPath: "/tmp/Library.store"))
/// let scratch = ModelConfiguration(isStoredInMemoryOnly: true)
/// let reader = ModelConfiguration(url: url, allowsSave: false)   // opened read-only
/// ```
///
/// The default store is `default.store` in the process's data folder
/// (`$XDG_DATA_HOME/<process name>` or `~/.local/share/<process name>`), where SwiftData uses the
/// app's Application Support folder. CloudKit and group containers are not offered.
public struct ModelConfiguration: Sendable {
    /// The configuration's name (`default` unless given).
    public let name: String
    /// The schema, when the configuration names one (the container's otherwise).
    public let schema: Schema?
    /// The SQLite file (unused for an in-memory store).
    public let url: URL
    /// Whether the store lives in memory only.
    public let isStoredInMemoryOnly: Bool
    /// Whether saves are allowed; `false` opens the store read-only.
    public let allowsSave: Bool

    /// A configuration with the default store file, or in memory.
    ///
    /// ```swift
    /// let config = ModelConfiguration(isStoredInMemoryOnly: true)
    /// ```
    public init(_ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true) {
        let folder = StoreLocation.dataFolder(applicationName: ProcessInfo.processInfo.processName)
        self.init(
            name: name ?? "default", schema: schema, url: folder.appendingPathComponent("default.store"),
            isStoredInMemoryOnly: isStoredInMemoryOnly, allowsSave: allowsSave)
    }

    /// A configuration with a store file.
    ///
    /// ```swift
    /// let config = ModelConfiguration(url: URL(fileURLWithPath: "/tmp/Library.store"))
    /// ```
    public init(_ name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true) {
        self.init(name: name ?? "default", schema: schema, url: url, isStoredInMemoryOnly: false, allowsSave: allowsSave)
    }

    private init(name: String, schema: Schema?, url: URL, isStoredInMemoryOnly: Bool, allowsSave: Bool) {
        self.name = name
        self.schema = schema
        self.url = url
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
    }
}
