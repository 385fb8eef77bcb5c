import Foundation

/// One stage of a staged migration (Core Data's `NSMigrationStage`): a lightweight stage, whose
/// mapping is inferred, or a custom stage, whose code runs before and after the rows are copied.
///
/// A custom stage may make changes inference cannot: a property whose change is not inferred
/// (a new required attribute without a default, a type that cannot be converted, a new required
/// relationship) starts empty in the new file, and the stage's `didMigrate` fills it. A required
/// property still empty after `didMigrate` fails the stage with ``MigrationError`` naming it, and
/// the store stays as it was.
///
/// ```swift
/// let colors = HexColors()   // a Sendable box the two closures share
/// let stage = MigrationStage.custom(from: v2, to: v3,
///     willMigrate: { context in try colors.read(context) },     // v2: Post.hexColor
///     didMigrate: { context in try colors.link(context) })      // v3: Post.color → Color
/// ```
public struct MigrationStage: Sendable {
    /// How the stage maps its models.
    public enum Kind: Sendable, Equatable {
        /// Inferred, as lightweight migration infers it (`NSLightweightMigrationStage`).
        case lightweight
        /// Inferred where it can be, the rest by the stage's code (`NSCustomMigrationStage`).
        case custom
    }

    /// Code a custom stage runs, on a private-queue context (call it inside: you are on its queue).
    /// What it leaves unsaved is saved after it returns.
    public typealias Handler = @Sendable (ManagedObjectContext) throws -> Void

    /// Lightweight or custom.
    public let kind: Kind
    /// The versions the stage migrates from (a store of any of them enters the stage).
    public let sources: [ManagedObjectModel]
    /// The version the stage migrates to.
    public let destination: ManagedObjectModel
    /// Runs first, on a context of the source model over a copy of the store (the store itself is
    /// not changed until the stage is complete). Custom stages only.
    public let willMigrate: Handler?
    /// Runs after the rows are copied, on a context of the destination model over the new file,
    /// before it replaces the store. Custom stages only.
    public let didMigrate: Handler?

    /// A stage whose mapping is inferred, from any of `sources` to `destination`.
    ///
    /// ```swift
    /// let stage = MigrationStage.lightweight(from: [v1, v2], to: v3)
    /// ```
    public static func lightweight(from sources: [ManagedObjectModel], to destination: ManagedObjectModel) -> MigrationStage {
        MigrationStage(kind: .lightweight, sources: sources, destination: destination, willMigrate: nil, didMigrate: nil)
    }

    /// A stage from `source` to `destination` with code: `willMigrate` on a context of `source`
    /// (the data before), `didMigrate` on a context of `destination` (the data after).
    ///
    /// ```swift
    /// let stage = MigrationStage.custom(from: v1, to: v2, didMigrate: { context in
    ///     for note in try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")) {
    ///         try note.setValue(Date(), forKey: "created")
    ///     }
    /// })
    /// ```
    public static func custom(
        from source: ManagedObjectModel, to destination: ManagedObjectModel,
        willMigrate: Handler? = nil, didMigrate: Handler? = nil
    ) -> MigrationStage {
        MigrationStage(kind: .custom, sources: [source], destination: destination, willMigrate: willMigrate, didMigrate: didMigrate)
    }
}
