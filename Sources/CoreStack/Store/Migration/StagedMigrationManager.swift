import Foundation

/// Migrates a store through stages, in order (Core Data's `NSStagedMigrationManager`): each stage
/// a store's version enters runs as one migration (a new file, checked, renamed into place), so
/// after any stage the store is complete at that stage's version. Between stages, and after the
/// last, versions with no stage of their own are migrated by inference when it is allowed.
///
/// Pass it in the store options to have opening migrate, or call ``migrateStore(at:to:knownModels:inferring:)``.
///
/// ```swift
/// let manager = StagedMigrationManager(stages: [
///     .lightweight(from: [v1], to: v2),
///     .custom(from: v2, to: v3, willMigrate: readColors, didMigrate: linkColors),
/// ])
/// var options = PersistentStoreOptions(shouldMigrateStoreAutomatically: true, stagedMigrationManager: manager)
/// let store = try SQLiteStore(url: url, model: v3, options: options)
/// ```
///
/// Managers compare (and hash) by identity, so store options holding one stay `Hashable`.
public final class StagedMigrationManager: Sendable, Hashable {
    /// The stages, in the order they run.
    ///
    /// ```swift
    /// manager.stages.map(\.kind)   // [.lightweight, .custom]
    /// ```
    public let stages: [MigrationStage]

    /// A manager for `stages`, run in order.
    ///
    /// ```swift
    /// let manager = StagedMigrationManager(stages: [.custom(from: v1, to: v2, didMigrate: fill)])
    /// ```
    public init(stages: [MigrationStage]) {
        self.stages = stages
    }

    /// Managers are equal when they are the same instance.
    public static func == (a: StagedMigrationManager, b: StagedMigrationManager) -> Bool { a === b }
    /// Hashes the instance's identity, as ``==(_:_:)`` compares it.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// Migrates the store at `url` to `destination` through the stages the store's version enters,
    /// and returns one plan per migration made (empty when the store is already at `destination`).
    ///
    /// The store's version is found among the stages' models, `knownModels` (a bundle's versions)
    /// and the model the store carries (`Z_MODELCACHE`). When no stage starts at the store's version,
    /// and `inferring`, a lightweight step goes to the next stage's first source (or `destination`).
    ///
    /// ```swift
    /// let plans = try manager.migrateStore(at: url, to: v3)
    /// ```
    /// - Throws: ``MigrationError`` for a change neither inferred nor made by a stage (the stages
    ///   before it are done, each one complete); ``CoreStackError/modelMismatch(path:differences:)``
    ///   when the store's version is not known.
    @discardableResult
    public func migrateStore(
        at url: URL, to destination: ManagedObjectModel, knownModels: [ManagedObjectModel] = [], inferring: Bool = true
    ) throws -> [MigrationPlan] {
        var plans: [MigrationPlan] = []
        var next = 0
        let candidates = stages.flatMap { $0.sources + [$0.destination] } + knownModels
        // Every stage runs at most once, plus one inferred step before each and one at the end.
        for _ in 0...(2 * stages.count + 1) {
            let inspection = try SQLiteStore.inspect(url: url)
            if SQLiteStore.differences(model: destination, inspection: inspection).isEmpty { return plans }
            if let (index, source) = stageStarting(at: inspection, from: next) {
                plans.append(try SQLiteMigration.migrate(at: url, from: source, to: stages[index].destination, stage: stages[index]))
                next = index + 1
                continue
            }
            guard let current = try SQLiteMigration.storeVersion(at: url, inspection: inspection, candidates: candidates) else {
                throw CoreStackError.modelMismatch(
                    path: url.path, differences: ["no stage's version matches the store, and it carries no model of its own that does"])
            }
            // A store already past some stages (at one's destination) goes on after them.
            if let passed = stages.indices.last(where: { $0 >= next && stages[$0].destination === current }) { next = passed + 1 }
            let target = next < stages.count ? stages[next].sources.first ?? destination : destination
            guard inferring else {
                throw MigrationError(
                    entity: current.versionName ?? "the store's version",
                    reason: "no stage migrates from it, and inferring a mapping is off")
            }
            plans.append(try SQLiteMigration.migrate(at: url, from: current, to: target, stage: nil))
        }
        throw MigrationError(entity: url.path, reason: "the stages do not reach the destination version")
    }

    /// The first stage at or after `start` one of whose sources matches the store, and that source.
    private func stageStarting(at inspection: SQLiteStore.Inspection, from start: Int) -> (Int, ManagedObjectModel)? {
        guard start < stages.count else { return nil }
        for index in start..<stages.count {
            if let source = stages[index].sources.first(where: { SQLiteStore.differences(model: $0, inspection: inspection).isEmpty }) {
                return (index, source)
            }
        }
        return nil
    }
}
