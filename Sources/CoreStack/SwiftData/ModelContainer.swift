import Foundation

/// A schema and the store it is kept in (SwiftData's `ModelContainer`): a
/// ``PersistentStoreCoordinator`` with one store, opened (and migrated) when the container is made.
///
/// ```swift
/// let container = try ModelContainer(
///     for: Book.self, Author.self,
///     configurations: ModelConfiguration(url: URL(fileURLWithPath: "/tmp/Library.store")))
/// let context = ModelContext(container)          // or, on the main actor, container.mainContext
/// let book = try context.insert(Book.self)
/// book.title = "Dune"
/// try context.save()
/// ```
///
/// A store of an earlier model is migrated when it is opened: through the stages of the
/// ``SchemaMigrationPlan`` when one is given (CoreStack's ``StagedMigrationManager``), by inference
/// (lightweight) otherwise, from the model the store carries, as SwiftData does. The store is an
/// ordinary Core Data SQLite store: `stackscope` and CoreStack's other stacks open it.
///
/// Sendable, as in SwiftData; the contexts it makes are not.
public final class ModelContainer: Sendable {
    /// The schema (for a container with a migration plan, the plan's version of it).
    public let schema: Schema
    /// The configurations it was made with (one: CoreStack opens one store per container).
    public let configurations: [ModelConfiguration]
    /// The migration plan it was made with.
    public let migrationPlan: (any SchemaMigrationPlan.Type)?
    /// The coordinator of the container's store: CoreStack's contexts and stacks work on it directly.
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    /// The migrations opening the store made (empty when it was at the schema's version).
    ///
    /// ```swift
    /// container.migrationsOnOpen.map(\.lines)   // [["Book.subtitle: added"]]
    /// ```
    public let migrationsOnOpen: [MigrationPlan]
    /// The main context, made on first use (main actor only).
    @MainActor private var mainContextStorage: ModelContext?

    /// A container for model classes, stored as the configurations say (the default store file
    /// when none is given).
    ///
    /// ```swift
    /// let container = try ModelContainer(for: Book.self, Author.self,
    ///                                    configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    /// ```
    /// - Throws: ``SwiftDataError``, ``CoreStackError`` (an invalid model, a store of another
    ///   model, a file that is not a store), ``MigrationError`` (a migration that cannot be made).
    public convenience init(
        for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: ModelConfiguration...
    ) throws {
        try self.init(for: Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// A container for a schema: with a migration plan, the schema must be one of the plan's
    /// versions (the store is migrated to it through the plan's stages).
    ///
    /// ```swift
    /// let container = try ModelContainer(for: Schema(versionedSchema: LibraryV2.self),
    ///                                    migrationPlan: LibraryPlan.self, configurations: [config])
    /// ```
    public init(
        for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: [ModelConfiguration] = []
    ) throws {
        guard configurations.count <= 1 else {
            throw SwiftDataError.unsupportedConfiguration(
                "CoreStack opens one store per container; \(configurations.count) configurations were given")
        }
        let configuration = configurations.first ?? ModelConfiguration()
        if let named = configuration.schema, Set(named.entities.map(\.name)) != Set(schema.entities.map(\.name)) {
            throw SwiftDataError.unsupportedConfiguration(
                "configuration \"\(configuration.name)\" names a schema of other entities than the container's")
        }
        var current = schema
        var options = PersistentStoreOptions(shouldMigrateStoreAutomatically: true)
        var versions: [ManagedObjectModel] = []
        if let migrationPlan {
            // Every version's model is made (throwing for an invalid one) before the stages are read.
            let planned = try migrationPlan.schemas.map { try Schema(versionedSchema: $0) }
            guard let match = planned.first(where: {
                $0.version == schema.version && $0.model.entityVersionHashes == schema.model.entityVersionHashes
            }) else {
                throw SwiftDataError.schemaNotInMigrationPlan(version: schema.version.description)
            }
            current = match
            versions = planned.map(\.model)
            options.stagedMigrationManager = StagedMigrationManager(stages: migrationPlan.stages)
        }
        let store = try Self.openStore(configuration, model: current.model, versions: versions, options: options)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: current.model)
        try coordinator.addPersistentStore(store)
        self.schema = current
        self.configurations = [configuration]
        self.migrationPlan = migrationPlan
        self.persistentStoreCoordinator = coordinator
        self.migrationsOnOpen = (store as? SQLiteStore)?.migrationsOnOpen ?? []
    }

    /// A container over a coordinator already open (a migration stage's context).
    init(wrapping coordinator: PersistentStoreCoordinator, schema: Schema) {
        self.schema = schema
        self.configurations = []
        self.migrationPlan = nil
        self.persistentStoreCoordinator = coordinator
        self.migrationsOnOpen = []
    }

    private static func openStore(
        _ configuration: ModelConfiguration, model: ManagedObjectModel, versions: [ManagedObjectModel],
        options: PersistentStoreOptions
    ) throws -> any PersistentStore {
        if configuration.isStoredInMemoryOnly { return InMemoryStore(model: model) }
        let url = configuration.url
        guard configuration.allowsSave else {
            return try SQLiteStore(url: url, model: model, readOnly: true, options: options)
        }
        try StoreLocation.prepareFolder(for: url)
        guard !versions.isEmpty else { return try SQLiteStore(url: url, model: model, options: options) }
        let bundle = ManagedObjectModelBundle(name: url.lastPathComponent, versions: versions, currentVersion: model)
        return try SQLiteStore.open(url: url, bundle: bundle, readOnly: false, options: options)
    }

    /// The context bound to the main actor (the main queue), with ``ModelContext/autosaveEnabled``
    /// on, as SwiftData's: changes made in a main-queue turn are saved just after it ends.
    ///
    /// ```swift
    /// @MainActor func add() throws {
    ///     let book = try container.mainContext.insert(Book.self)
    ///     book.title = "Dune"      // saved after this turn of the main queue
    /// }
    /// ```
    @MainActor public var mainContext: ModelContext {
        if let made = mainContextStorage { return made }
        let context = ModelContext(mainOf: self)
        mainContextStorage = context
        return context
    }
}
