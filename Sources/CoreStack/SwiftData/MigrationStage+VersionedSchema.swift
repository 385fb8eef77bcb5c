import Foundation

extension MigrationStage {
    /// SwiftData's lightweight stage: from one ``VersionedSchema`` to another, the mapping inferred.
    ///
    /// ```swift
    /// static var stages: [MigrationStage] { [.lightweight(fromVersion: LibraryV1.self, toVersion: LibraryV2.self)] }
    /// ```
    public static func lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type) -> MigrationStage {
        .lightweight(from: [VersionedSchemaModels.stageModel(for: fromVersion)], to: VersionedSchemaModels.stageModel(for: toVersion))
    }

    /// SwiftData's custom stage: `willMigrate` runs on a ``ModelContext`` of the old version (over
    /// a copy of the store), `didMigrate` on one of the new version (over the new file, before it
    /// replaces the store); a property inference cannot carry over starts empty for `didMigrate`
    /// to fill. What they leave unsaved is saved; an error they throw leaves the store as it was.
    ///
    /// ```swift
    /// .custom(fromVersion: LibraryV1.self, toVersion: LibraryV2.self, willMigrate: nil, didMigrate: { context in
    ///     for book in try context.fetch(FetchDescriptor<LibraryV2.Book>()) { book.slug = book.title.lowercased() }
    /// })
    /// ```
    ///
    /// The closures are `@Sendable` (they run on the migration's own queue), unlike SwiftData's.
    public static func custom(
        fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
        willMigrate: (@Sendable (ModelContext) throws -> Void)?, didMigrate: (@Sendable (ModelContext) throws -> Void)?
    ) -> MigrationStage {
        let from = VersionedSchemaModels.stageModel(for: fromVersion)
        let to = VersionedSchemaModels.stageModel(for: toVersion)
        let fromSchema = Schema(types: fromVersion.models, version: fromVersion.versionIdentifier, model: from)
        let toSchema = Schema(types: toVersion.models, version: toVersion.versionIdentifier, model: to)
        var before: Handler?
        if let willMigrate {
            before = { context in try willMigrate(ModelContext(migrating: context, schema: fromSchema)) }
        }
        var after: Handler?
        if let didMigrate {
            after = { context in try didMigrate(ModelContext(migrating: context, schema: toSchema)) }
        }
        return .custom(from: from, to: to, willMigrate: before, didMigrate: after)
    }
}
