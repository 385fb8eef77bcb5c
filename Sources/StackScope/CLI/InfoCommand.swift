import CoreStack
import Foundation

/// What `stackscope info` reports about a store.
public struct StoreInfo: Sendable, Equatable {
    /// One entity of the model with its object count.
    public struct Entity: Sendable, Equatable {
        /// The entity name.
        public var name: String
        /// Objects of the entity and its sub-entities (as Core Data counts them).
        public var count: Int
        /// The parent entity's name, or nil for a root entity.
        public var superentity: String?
        /// Whether the entity is abstract.
        public var isAbstract: Bool
    }

    /// The store file's path, as given.
    public var path: String
    /// The store's UUID from its metadata.
    public var storeUUID: String
    /// The store type from its metadata (`SQLite`).
    public var storeType: String
    /// `NSPersistenceFrameworkVersion` as recorded by the writer (1 for CoreStack, hundreds for Apple).
    public var frameworkVersion: Int?
    /// The version of CoreStack reading the store.
    public var coreStackVersion: String
    /// The name of the model version the store was read with.
    public var modelVersion: String
    /// Where the model came from: `file X.xcdatamodeld version V2`, `demo model`,
    /// `stored in the store (Z_MODELCACHE)`, `inferred from the schema`.
    public var modelSource: String = ""
    /// How the store's file is read (`SQLiteReadAccess/summary`: read-only connection, query-only,
    /// immutable, snapshot copy); empty for a store that is not an SQLite file.
    public var access: String = ""
    /// One-line notes about the choice of model (printed on standard error).
    public var warnings: [String] = []
    /// The model's entities with their object counts, in model order.
    public var entities: [Entity]
    /// Each entity's attributes and relationships, in model order (`info --schema`).
    public var schemas: [EntitySchema] = []
    /// One line saying what the store holds that the model does not explain (columns read raw,
    /// tables outside the model), nil when everything was understood.
    public var notUnderstood: String?
    /// Tables that are neither the model's nor Core Data's own (not read).
    public var unexplainedTables: [String] = []
}

/// `stackscope info STORE [--model MODEL] [--schema] [--json]`.
///
/// ```swift
/// print(try InfoCommand.run(storePath: "App.sqlite", modelPath: nil, json: false, schema: true))
/// ```
public enum InfoCommand {
    /// Gathers the info of a store, opened read-only.
    public static func info(
        storePath: String, modelPath: String? = nil, files: any StoreFileAccess = StoreFiles.standard
    ) throws -> StoreInfo {
        let session = try StoreSession.open(storePath: storePath, modelPath: modelPath, files: files)
        // Closed on every way out (SQLite then removes the -wal and -shm), not left to the process exit.
        defer { session.close() }
        let context = session.context
        let entities = try context.performAndWait {
            try session.model.entities.map { e in
                let count = try context.count(for: FetchRequest<ManagedObject>(entityName: e.name))
                return StoreInfo.Entity(
                    name: e.name, count: count, superentity: e.superentity?.name, isAbstract: e.isAbstract)
            }
        }
        return StoreInfo(
            path: storePath, storeUUID: session.metadata.storeUUID, storeType: session.metadata.storeType,
            frameworkVersion: session.metadata.frameworkVersion, coreStackVersion: CoreStackVersion.string,
            modelVersion: session.modelVersion, modelSource: session.modelSource,
            access: (session.coordinator.persistentStore as? SQLiteStore)?.readAccess.summary ?? "",
            warnings: session.warnings, entities: entities,
            schemas: session.model.entities.map { EntitySchema($0, templates: Array(session.model.fetchRequestTemplates.values)) },
            notUnderstood: session.notUnderstood, unexplainedTables: session.schemaReport?.unexplainedTables ?? [])
    }

    /// The command's output: JSON or text, ending with a newline; with `schema`, each entity's
    /// attributes and relationships too.
    public static func run(
        storePath: String, modelPath: String?, json: Bool, schema: Bool = false, files: any StoreFileAccess = StoreFiles.standard
    ) throws -> String {
        let info = try info(storePath: storePath, modelPath: modelPath, files: files)
        return (json ? renderJSON(info, schema: schema) : renderText(info, schema: schema)) + "\n"
    }

    /// The info as a JSON object: store UUID and type, versions, model source and the entities;
    /// with `schema`, a `schema` array of each entity's attributes and relationships.
    public static func renderJSON(_ info: StoreInfo, schema: Bool = false) -> String {
        var fields: [(String, JSONValue)] = [
            ("storeUUID", .string(info.storeUUID)),
            ("storeType", .string(info.storeType)),
            ("frameworkVersion", info.frameworkVersion.map { .integer(Int64($0)) } ?? .null),
            ("coreStackVersion", .string(info.coreStackVersion)),
            ("modelVersion", .string(info.modelVersion)),
            ("model", .string(info.modelSource)),
            ("notUnderstood", info.notUnderstood.map { .string($0) } ?? .null),
            ("unexplainedTables", .array(info.unexplainedTables.map { .string($0) })),
            ("access", .string(info.access)),
            (
                "entities",
                .array(
                    info.entities.map { e in
                        .object([
                            ("name", .string(e.name)),
                            ("count", .integer(Int64(e.count))),
                            ("superentity", e.superentity.map { .string($0) } ?? .null),
                            ("abstract", .bool(e.isAbstract)),
                        ])
                    })
            ),
        ]
        if schema { fields.append(("schema", .array(info.schemas.map { $0.json() }))) }
        return JSONValue.object(fields).rendered()
    }

    /// The info as text: the store's lines, then a table of entities with their counts and parents;
    /// with `schema`, then each entity's properties.
    public static func renderText(_ info: StoreInfo, schema: Bool = false) -> String {
        var lines = [
            "Store:             \(info.path)",
            "Store UUID:        \(info.storeUUID)",
            "Store type:        \(info.storeType)",
            "Framework version: \(info.frameworkVersion.map(String.init) ?? "unknown") (read by CoreStack \(info.coreStackVersion))",
            "Model version:     \(info.modelVersion)",
            "Model:             \(info.modelSource)",
        ]
        if !info.access.isEmpty { lines.append("Access:            \(info.access)") }
        if let line = info.notUnderstood { lines.append("Not understood:    \(line)") }
        lines.append("")
        let rows = info.entities.map { e in
            [e.name + (e.isAbstract ? " (abstract)" : ""), String(e.count), e.superentity ?? "—"]
        }
        lines += TextTable.render(header: ["Entity", "Objects", "Parent"], rows: rows, rightAligned: [1])
        if schema {
            for entity in info.schemas { lines += [""] + entity.textLines() }
        }
        return lines.joined(separator: "\n")
    }
}
