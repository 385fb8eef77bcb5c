import Foundation

/// The model classes of an app and their version (SwiftData's `Schema`): a ``ManagedObjectModel``
/// made from the classes' declared entities.
///
/// ```swift
/// let schema = try Schema([Book.self, Author.self], version: Schema.Version(1, 0, 0))
/// schema.entities.map(\.name)   // ["Author", "Book"]
/// ```
///
/// Unlike SwiftData's, the initialiser throws: a model the classes declare that is not valid (a
/// relationship whose destination is not among them, say) is a ``CoreStackError/invalidModel(entity:property:reason:)``.
public final class Schema: Sendable, CustomStringConvertible {
    /// The version (the model's version name is its description, `1.0.0`).
    public let version: Version
    /// The model CoreStack's stacks use.
    public let model: ManagedObjectModel
    /// The model classes, in the order given.
    public let types: [any PersistentModel.Type]

    /// A schema of model classes.
    ///
    /// ```swift
    /// let schema = try Schema([Book.self, Author.self])
    /// ```
    public convenience init(_ types: [any PersistentModel.Type], version: Version = Version(1, 0, 0)) throws {
        let model = try ManagedObjectModel(declaring: types, versionName: version.description)
        self.init(types: types, version: version, model: model)
    }

    /// A schema of model classes, listed.
    ///
    /// ```swift
    /// let schema = try Schema(Book.self, Author.self)
    /// ```
    public convenience init(_ types: any PersistentModel.Type..., version: Version = Version(1, 0, 0)) throws {
        try self.init(types, version: version)
    }

    /// The schema of a version of a ``VersionedSchema`` (the same model for every call, so that a
    /// migration plan and a container agree on it).
    ///
    /// ```swift
    /// let schema = try Schema(versionedSchema: LibraryV2.self)
    /// ```
    public convenience init(versionedSchema: any VersionedSchema.Type) throws {
        let model = try VersionedSchemaModels.model(for: versionedSchema)
        self.init(types: versionedSchema.models, version: versionedSchema.versionIdentifier, model: model)
    }

    init(types: [any PersistentModel.Type], version: Version, model: ManagedObjectModel) {
        self.types = types
        self.version = version
        self.model = model
    }

    /// The model's entities.
    public var entities: [EntityDescription] { model.entities }

    /// The version and the entities' names.
    public var description: String {
        "Schema \(version): \(entities.map(\.name).joined(separator: ", "))"
    }
}
