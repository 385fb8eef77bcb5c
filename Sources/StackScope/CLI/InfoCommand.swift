import CoreStack
import Foundation

/// What `stackscope info` reports about a store.
public struct StoreInfo: Sendable, Equatable {
    /// One entity of the model with its object count.
    public struct Entity: Sendable, Equatable {
        public var name: String
        /// Objects of the entity and its sub-entities (as Core Data counts them).
        public var count: Int
        public var superentity: String?
        public var isAbstract: Bool
    }

    public var path: String
    public var storeUUID: String
    public var storeType: String
    /// `NSPersistenceFrameworkVersion` as recorded by the writer (1 for CoreStack, hundreds for Apple).
    public var frameworkVersion: Int?
    /// The version of CoreStack reading the store.
    public var coreStackVersion: String
    public var modelVersion: String
    /// Where the model came from: `file X.xcdatamodeld version V2`, `demo model`,
    /// `stored in the store (Z_MODELCACHE)`, `inferred from the schema`.
    public var modelSource: String = ""
    /// One-line notes about the choice of model (printed on standard error).
    public var warnings: [String] = []
    public var entities: [Entity]
}

/// `stackscope info STORE [--model MODEL] [--json]`.
public enum InfoCommand {
    /// Gathers the info of a store, opened read-only.
    public static func info(
        storePath: String, modelPath: String? = nil, files: any StoreFileAccess = StoreFiles.standard
    ) throws -> StoreInfo {
        let session = try StoreSession.open(storePath: storePath, modelPath: modelPath, files: files)
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
            modelVersion: session.modelVersion, modelSource: session.modelSource, warnings: session.warnings,
            entities: entities)
    }

    /// The command's output: JSON or text, ending with a newline.
    public static func run(
        storePath: String, modelPath: String?, json: Bool, files: any StoreFileAccess = StoreFiles.standard
    ) throws -> String {
        let info = try info(storePath: storePath, modelPath: modelPath, files: files)
        return (json ? renderJSON(info) : renderText(info)) + "\n"
    }

    public static func renderJSON(_ info: StoreInfo) -> String {
        JSONValue.object([
            ("storeUUID", .string(info.storeUUID)),
            ("storeType", .string(info.storeType)),
            ("frameworkVersion", info.frameworkVersion.map { .integer(Int64($0)) } ?? .null),
            ("coreStackVersion", .string(info.coreStackVersion)),
            ("modelVersion", .string(info.modelVersion)),
            ("model", .string(info.modelSource)),
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
        ]).rendered()
    }

    public static func renderText(_ info: StoreInfo) -> String {
        var lines = [
            "Store:             \(info.path)",
            "Store UUID:        \(info.storeUUID)",
            "Store type:        \(info.storeType)",
            "Framework version: \(info.frameworkVersion.map(String.init) ?? "unknown") (read by CoreStack \(info.coreStackVersion))",
            "Model version:     \(info.modelVersion)",
            "Model:             \(info.modelSource)",
            "",
        ]
        let rows = info.entities.map { e in
            [e.name + (e.isAbstract ? " (abstract)" : ""), String(e.count), e.superentity ?? "—"]
        }
        lines += TextTable.render(header: ["Entity", "Objects", "Parent"], rows: rows, rightAligned: [1])
        return lines.joined(separator: "\n")
    }
}
