import Foundation

/// All versions of a model, as an `.xcdatamodeld` bundle holds them, and which one is current.
///
/// ```swift
/// let bundle = try XcodeModelReader.readBundle(at: URL(fileURLWithPath: "Library.xcdatamodeld"))
/// bundle.currentVersion.versionName // "Library 3"
/// bundle.version(named: "Library 2")
/// ```
public struct ManagedObjectModelBundle: Sendable {
    /// The bundle's name (the folder name without `.xcdatamodeld`).
    public let name: String
    /// Every version, in the order the folder lists them (by name).
    public let versions: [ManagedObjectModel]
    /// The current version (from `.xccurrentversion`, or the only one).
    public let currentVersion: ManagedObjectModel

    /// A bundle of model versions; `currentVersion` should be one of `versions`.
    public init(name: String, versions: [ManagedObjectModel], currentVersion: ManagedObjectModel) {
        self.name = name
        self.versions = versions
        self.currentVersion = currentVersion
    }

    /// A bundle of one version.
    public init(model: ManagedObjectModel, name: String? = nil) {
        self.name = name ?? model.versionName ?? "Model"
        self.versions = [model]
        self.currentVersion = model
    }

    /// The version named `name` (the `.xcdatamodel` folder name without extension).
    public func version(named name: String) -> ManagedObjectModel? {
        versions.first { $0.versionName == name }
    }
}
