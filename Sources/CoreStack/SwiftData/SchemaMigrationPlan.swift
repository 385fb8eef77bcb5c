import Foundation

/// How a store moves through the versions of a model (SwiftData's `SchemaMigrationPlan`): the
/// versions, oldest first, and the stages between them, run by CoreStack's staged migration
/// (``StagedMigrationManager``) when ``ModelContainer`` opens a store of an earlier version.
///
/// ```swift
/// enum LibraryPlan: SchemaMigrationPlan {
///     static var schemas: [any VersionedSchema.Type] { [LibraryV1.self, LibraryV2.self] }
///     static var stages: [MigrationStage] {
///         [.lightweight(fromVersion: LibraryV1.self, toVersion: LibraryV2.self)]
///     }
/// }
/// let container = try ModelContainer(
///     for: Schema(versionedSchema: LibraryV2.self), migrationPlan: LibraryPlan.self, configurations: [config])
/// ```
///
/// Versions no stage starts from are migrated by inference (lightweight) up to the next stage,
/// as Core Data's staged migration does.
public protocol SchemaMigrationPlan: SendableMetatype {
    /// The versions, oldest first.
    static var schemas: [any VersionedSchema.Type] { get }
    /// The stages, in the order they run.
    static var stages: [MigrationStage] { get }
}
