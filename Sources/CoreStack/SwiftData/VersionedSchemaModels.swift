import Foundation

/// The model of each ``VersionedSchema``, made once: a migration plan's stages and the container
/// must hold the same ``ManagedObjectModel`` instance for a version (staged migration recognises a
/// stage's destination by identity).
enum VersionedSchemaModels {
    private static let models = LockedValue<[ObjectIdentifier: ManagedObjectModel]>([:])

    /// The version's model, made on first use.
    static func model(for schema: any VersionedSchema.Type) throws -> ManagedObjectModel {
        let key = ObjectIdentifier(schema)
        if let known = models.withLock({ $0[key] }) { return known }
        let made = try ManagedObjectModel(
            declaring: schema.models, versionName: schema.versionIdentifier.description,
            versionIdentifiers: [schema.versionIdentifier.description])
        return models.withLock { cache in
            if let raced = cache[key] { return raced }
            cache[key] = made
            return made
        }
    }

    /// The version's model for a stage, which cannot throw: ``ModelContainer`` makes every
    /// schema's model (throwing for an invalid one) before it reads the plan's stages, so this
    /// finds it made; an invalid schema read elsewhere gives an empty model, which no store matches.
    static func stageModel(for schema: any VersionedSchema.Type) -> ManagedObjectModel {
        if let model = try? model(for: schema) { return model }
        return (try? ManagedObjectModel(entities: [], versionName: schema.versionIdentifier.description)) ?? emptyModel
    }

    private static let emptyModel: ManagedObjectModel = {
        // An empty entity list is always a valid model.
        guard let model = try? ManagedObjectModel(entities: []) else { preconditionFailure("an empty model is valid") }
        return model
    }()
}
