import CoreStack
import Foundation

/// `stackscope value STORE --entity E --id URI|PK --attribute A [--as tree|text|hex|json|image] [--raw]`:
/// one attribute value of one object, decoded by `ValueInspector` (keyed archives, property
/// lists, JSON, text, compressed data, image headers), or its stored bytes for piping.
///
/// The store opens read-only, as `dump` opens it. Binary and Transformable attributes give
/// their bytes (an externally stored value its file's), String attributes their UTF-8.
///
/// ```swift
/// let bytes = try ValueCommand.bytes(storePath: "Recipes.sqlite", modelPath: nil,
///                                    entity: "Image", id: "1", attribute: "image")
/// print(try ValueCommand.render(bytes, as: .tree))  // "JPEG 320×240"
/// ```
public enum ValueCommand {
    /// The stored bytes of attribute `attribute` of the object `id` (a URI or a primary key) of `entity`.
    public static func bytes(
        storePath: String, modelPath: String?, entity: String, id: String, attribute: String,
        files: any StoreFileAccess = StoreFiles.standard
    ) throws -> Data {
        let session = try StoreSession.open(storePath: storePath, modelPath: modelPath, files: files)
        defer { session.close() }
        return try bytes(session: session, entity: entity, id: id, attribute: attribute)
    }

    /// The stored bytes of one attribute of one object, in an open session.
    ///
    /// - Throws: ``StackScopeError/unknownEntity(name:available:)``, or
    ///   ``StackScopeError/invalidOption(name:reason:)`` naming `--id` (not an ID of this store,
    ///   no such object) or `--attribute` (no such attribute, not a binary, transformable or
    ///   string attribute, nil).
    public static func bytes(session: StoreSession, entity entityName: String, id: String, attribute: String) throws -> Data {
        let (entity, objectID) = try target(session: session, entity: entityName, id: id, attribute: attribute)
        let context = session.context
        let value: AttributeValue = try context.performAndWait {
            let object: ManagedObject
            do {
                object = try context.existingObject(with: objectID)
            } catch {
                throw StackScopeError.invalidOption(name: "--id", reason: "no \(entity.name) \(id) in the store")
            }
            return try object.attributeValue(forKey: attribute)
        }
        switch value {
        case .null:
            throw StackScopeError.invalidOption(name: "--attribute", reason: "\(entity.name).\(attribute) of \(id) is nil")
        case let .data(d):
            if let uuid = SQLiteExternalBinaryData.missingReference(d) {
                throw StackScopeError.invalidOption(
                    name: "--attribute", reason: "\(entity.name).\(attribute) of \(id) is stored outside the store, and its file \(uuid) is missing")
            }
            return d
        case let .string(s): return Data(s.utf8)
        default:
            throw StackScopeError.invalidOption(name: "--attribute", reason: "\(entity.name).\(attribute) of \(id) holds \(value)")
        }
    }

    /// The entity and object ID `--entity`, `--id` and `--attribute` name, checked: a stored
    /// Binary, Transformable or String attribute of an object of the entity.
    static func target(session: StoreSession, entity entityName: String, id: String, attribute: String) throws -> (EntityDescription, ManagedObjectID) {
        let entity = try session.entity(named: entityName)
        guard let a = entity.attribute(named: attribute), !a.isTransient else {
            let names = entity.allAttributes.filter { !$0.isTransient }.map(\.name)
            throw StackScopeError.invalidOption(
                name: "--attribute", reason: "\(entity.name) has no stored attribute \"\(attribute)\" (attributes: \(names.joined(separator: ", ")))")
        }
        guard [.binaryData, .transformable, .string].contains(a.type) else {
            throw StackScopeError.invalidOption(
                name: "--attribute",
                reason: "\(entity.name).\(attribute) is a \(a.type.xcodeName) attribute; value shows Binary, Transformable and String attributes (dump shows the others)")
        }
        return (entity, try objectID(id, of: entity, session: session))
    }

    /// The object ID `id` names: a URI (`x-coredata://…/Entity/p12`) or a primary key (`12`).
    static func objectID(_ id: String, of entity: EntityDescription, session: StoreSession) throws -> ManagedObjectID {
        let uri: URL?
        if let pk = Int64(id.hasPrefix("p") ? String(id.dropFirst()) : id), pk > 0 {
            let store = session.coordinator.persistentStore?.identifier ?? session.metadata.storeUUID
            uri = URL(string: "x-coredata://\(store)/\(entity.name)/p\(pk)")
        } else {
            uri = URL(string: id)
        }
        guard let uri, let objectID = session.coordinator.managedObjectID(forURIRepresentation: uri) else {
            throw StackScopeError.invalidOption(
                name: "--id", reason: "\"\(id)\" is neither a primary key (a number) nor an object ID URI of this store (x-coredata://STORE-UUID/\(entity.name)/pN)")
        }
        var e: EntityDescription? = objectID.entity
        while let current = e, current.name != entity.name { e = current.superentity }
        guard e != nil else {
            throw StackScopeError.invalidOption(name: "--id", reason: "\(id) is a \(objectID.entity.name), not a \(entity.name)")
        }
        return objectID
    }

    /// The value printed as `mode` asks, ending with a newline.
    ///
    /// - Throws: ``StackScopeError/invalidOption(name:reason:)`` for `--as text` on a value that is not text.
    public static func render(_ data: Data, as mode: ValueOutputMode) throws -> String {
        switch mode {
        case .hex: return InspectedValueText.hexDump(data).map { $0 + "\n" }.joined()
        case .tree: return InspectedValueText.tree(ValueInspector.inspect(data)).joined(separator: "\n") + "\n"
        case .json: return InspectedValueText.json(ValueInspector.inspect(data)).rendered() + "\n"
        case .image:
            let area = pictureArea(width: nil, height: nil, terminal: nil)
            return try picture(data, style: .detect(environment: ProcessInfo.processInfo.environment), columns: area.columns, rows: area.rows)
        case .text:
            let inspection = ValueInspector.inspect(data)
            var current = inspection
            while case let .compressed(_, inner) = current.format { current = inner }
            guard current.failure == nil, case let .string(s)? = current.value else {
                throw StackScopeError.invalidOption(
                    name: "--as text", reason: "the value is not text (\(inspection.summary)); use --as tree, hex or json, or --raw")
            }
            return s.hasSuffix("\n") ? s : s + "\n"
        }
    }
}
