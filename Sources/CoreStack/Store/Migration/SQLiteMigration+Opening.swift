import Foundation

extension SQLiteMigration {
    /// The model among `candidates`, or else the model the store carries (`Z_MODELCACHE`), that the
    /// store at `url` was written with; nil when none is.
    static func storeVersion(
        at url: URL, inspection: SQLiteStore.Inspection, candidates: [ManagedObjectModel]
    ) throws -> ManagedObjectModel? {
        if let known = candidates.first(where: { SQLiteStore.differences(model: $0, inspection: inspection).isEmpty }) {
            return known
        }
        // A cache that cannot be decoded is as good as none: the store's version is unknown.
        guard let stored = try? SQLiteStore.storedModel(at: url),
            SQLiteStore.differences(model: stored, inspection: inspection).isEmpty
        else { return nil }
        return stored
    }

    /// Automatic migration when a store is opened (``PersistentStoreOptions/shouldMigrateStoreAutomatically``):
    /// migrates the store at `url` to `destination` when its version is known (one of `versions`,
    /// in order, or its own `Z_MODELCACHE`) and the options allow the migration (inferred, or by the
    /// stages of ``PersistentStoreOptions/stagedMigrationManager``). Throws `mismatch` when the store's
    /// version is not known, so opening reports what it would have without the option.
    ///
    /// - Throws: ``MigrationError`` for a change that is neither inferred nor made by a stage (the
    ///   store untouched), `mismatch`, or the migration's file errors.
    static func migrateForOpening(
        at url: URL, to destination: ManagedObjectModel, versions: [ManagedObjectModel], options: PersistentStoreOptions,
        mismatch: CoreStackError
    ) throws -> [MigrationPlan] {
        if let manager = options.stagedMigrationManager {
            do {
                return try manager.migrateStore(
                    at: url, to: destination, knownModels: versions, inferring: options.shouldInferMappingModelAutomatically)
            } catch CoreStackError.modelMismatch {
                throw mismatch
            }
        }
        let inspection = try SQLiteStore.inspect(url: url)
        guard let current = try storeVersion(at: url, inspection: inspection, candidates: versions) else { throw mismatch }
        guard options.shouldInferMappingModelAutomatically else {
            throw MigrationError(
                entity: current.versionName ?? "the store's version",
                reason: "the store needs migrating, and inferring a mapping is off with no staged migration manager")
        }
        // A store that shares no entity with the model is not an earlier version of it: migrating
        // would drop every row, which opening must never do unasked.
        if let direct = try? mapping(from: current, to: destination), direct.entities.isEmpty, !current.entities.isEmpty {
            throw MigrationError(
                entity: current.versionName ?? "the store's model",
                reason: "the store shares no entity with \(destination.versionName ?? "the model"): not an earlier version of it")
        }
        // Through a bundle's versions in order (V1 → V2 → V3) when the store is one of them.
        if let start = versions.firstIndex(where: { $0 === current }), let end = versions.firstIndex(where: { $0 === destination }),
            start < end
        {
            // Every step is checked before the first one changes the file.
            for i in start..<end { _ = try mapping(from: versions[i], to: versions[i + 1]) }
            return try (start..<end).map { try migrate(at: url, from: versions[$0], to: versions[$0 + 1], stage: nil) }
        }
        return [try migrate(at: url, from: current, to: destination, stage: nil)]
    }
}
