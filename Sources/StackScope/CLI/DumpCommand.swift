import CoreStack
import Foundation

/// Which objects `stackscope dump` lists, and in what order.
public struct DumpQuery: Sendable, Equatable {
    /// The entity listed (objects of its sub-entities included).
    public var entityName: String
    /// An attribute to sort by, ascending; ties and the default order go by primary key.
    public var sortKey: String?
    /// At most this many objects (nil: all).
    public var limit: Int?
    /// A filter the store applies before sorting and limiting (nil: every object). The command line
    /// fills it from `--predicate`; the rest of the dump does not change.
    public var predicate: CoreStack.Predicate?

    public init(entityName: String, sortKey: String? = nil, limit: Int? = nil, predicate: CoreStack.Predicate? = nil) {
        self.entityName = entityName
        self.sortKey = sortKey
        self.limit = limit
        self.predicate = predicate
    }
}

/// One object as `stackscope dump` shows it.
public struct DumpedObject: Sendable, Equatable {
    /// Where a relationship points.
    public enum Target: Sendable, Equatable {
        case toOne(ManagedObjectID?)
        /// In order for ordered relationships, by object ID otherwise.
        case toMany([ManagedObjectID])
    }

    public var objectID: ManagedObjectID
    /// Stored attributes in model order (inherited first).
    public var attributes: [(name: String, value: AttributeValue)]
    /// Relationships in model order (inherited first).
    public var relationships: [(name: String, target: Target)]

    public var entityName: String { objectID.entity.name }

    public static func == (lhs: DumpedObject, rhs: DumpedObject) -> Bool {
        lhs.objectID == rhs.objectID
            && lhs.attributes.map(\.name) == rhs.attributes.map(\.name)
            && lhs.attributes.map(\.value) == rhs.attributes.map(\.value)
            && lhs.relationships.map(\.name) == rhs.relationships.map(\.name)
            && lhs.relationships.map(\.target) == rhs.relationships.map(\.target)
    }
}

/// `stackscope dump STORE [--model MODEL] --entity NAME [--sort KEY] [--limit N] [--json]`.
public enum DumpCommand {
    /// The objects a query selects from a store, opened read-only.
    public static func dump(
        storePath: String, modelPath: String? = nil, query: DumpQuery,
        files: any StoreFileAccess = StoreFiles.standard
    ) throws -> [DumpedObject] {
        let session = try StoreSession.open(storePath: storePath, modelPath: modelPath, files: files)
        return try dump(session: session, query: query)
    }

    /// The objects a query selects in an open session.
    public static func dump(session: StoreSession, query: DumpQuery) throws -> [DumpedObject] {
        let entity = try session.entity(named: query.entityName)
        if let key = query.sortKey, entity.attribute(named: key) == nil {
            throw StackScopeError.unknownSortKey(
                key: key, entity: entity.name, available: entity.allAttributes.filter { !$0.isTransient }.map(\.name))
        }
        if let limit = query.limit, limit < 1 {
            throw StackScopeError.invalidOption(name: "--limit", reason: "\(limit) is not a positive number")
        }
        let context = session.context
        return try context.performAndWait {
            var request = FetchRequest<ManagedObject>(entityName: entity.name, predicate: query.predicate)
            request.returnsObjectsAsFaults = false
            var objects = try context.fetch(request)
            // Sorted here rather than by the store, so the order is the same whatever the store:
            // by the sort key (nil first), then by primary key.
            let keys: [AttributeValue] = try objects.map { o in
                guard let key = query.sortKey else { return .null }
                return try o.attributeValue(forKey: key)
            }
            let order = objects.indices.sorted { a, b in
                if query.sortKey != nil, let r = keys[a].compare(to: keys[b]), r != .orderedSame {
                    return r == .orderedAscending
                }
                return (objects[a].objectID.primaryKey ?? 0, objects[a].objectID.entity.entityNumber)
                    < (objects[b].objectID.primaryKey ?? 0, objects[b].objectID.entity.entityNumber)
            }
            objects = order.map { objects[$0] }
            if let limit = query.limit { objects = Array(objects.prefix(limit)) }
            return try objects.map(describe)
        }
    }

    private static func describe(_ o: ManagedObject) throws -> DumpedObject {
        let attributes = try o.entity.allAttributes.filter { !$0.isTransient }.map { a in
            (name: a.name, value: try o.attributeValue(forKey: a.name))
        }
        let relationships = try o.entity.allRelationships.filter { !$0.isTransient }.map { r -> (name: String, target: DumpedObject.Target) in
            let ids = try o.objectIDs(forRelationshipNamed: r.name)
            if !r.isToMany { return (r.name, .toOne(ids.first)) }
            return (r.name, .toMany(r.isOrdered ? ids : ids.sorted()))
        }
        return DumpedObject(objectID: o.objectID, attributes: attributes, relationships: relationships)
    }

    /// The command's output: JSON or text, ending with a newline.
    public static func run(
        storePath: String, modelPath: String?, query: DumpQuery, json: Bool,
        files: any StoreFileAccess = StoreFiles.standard
    ) throws -> String {
        let objects = try dump(storePath: storePath, modelPath: modelPath, query: query, files: files)
        return (json ? renderJSON(objects) : renderText(objects, query: query)) + "\n"
    }

    // MARK: JSON

    public static func renderJSON(_ objects: [DumpedObject]) -> String {
        let dates = ISO8601DateFormatter()
        dates.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return JSONValue.array(
            objects.map { o in
                .object([
                    ("objectID", .string(o.objectID.uriRepresentation().absoluteString)),
                    ("entity", .string(o.entityName)),
                    ("attributes", .object(o.attributes.map { ($0.name, json($0.value, dates: dates)) })),
                    (
                        "relationships",
                        .object(
                            o.relationships.map { r in
                                switch r.target {
                                case let .toOne(id): (r.name, id.map { .string($0.uriRepresentation().absoluteString) } ?? .null)
                                case let .toMany(ids): (r.name, .array(ids.map { .string($0.uriRepresentation().absoluteString) }))
                                }
                            })
                    ),
                ])
            }
        ).rendered()
    }

    /// An attribute value as JSON: dates in ISO 8601, binary data in base64, UUIDs and URIs as
    /// strings, decimals as numbers.
    static func json(_ value: AttributeValue, dates: ISO8601DateFormatter) -> JSONValue {
        switch value {
        case .null: .null
        case let .integer(i): .integer(i)
        case let .double(d): .double(d)
        case let .string(s): .string(s)
        case let .bool(b): .bool(b)
        case let .date(d): .string(dates.string(from: d))
        case let .data(d): .string(d.base64EncodedString())
        case let .uuid(u): .string(u.uuidString)
        case let .decimal(d): d.isFinite ? .number(NSDecimalNumber(decimal: d).stringValue) : .null
        case let .url(u): .string(u.absoluteString)
        }
    }

    // MARK: Text

    public static func renderText(_ objects: [DumpedObject], query: DumpQuery) -> String {
        let dates = ISO8601DateFormatter()
        dates.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var lines: [String] = []
        for o in objects {
            lines.append("\(o.entityName) \(shortName(o.objectID))  \(o.objectID.uriRepresentation().absoluteString)")
            let width = (o.attributes.map(\.name) + o.relationships.map(\.name)).map(\.count).max() ?? 0
            func pad(_ name: String) -> String { name + String(repeating: " ", count: width - name.count) }
            for a in o.attributes {
                lines.append("  \(pad(a.name))  \(text(a.value, dates: dates))")
            }
            for r in o.relationships {
                let shown: String
                switch r.target {
                case let .toOne(id): shown = id.map { "→ \($0.entity.name) \(shortName($0))" } ?? "→ nil"
                case let .toMany(ids):
                    let names = ids.prefix(8).map { "\($0.entity.name) \(shortName($0))" }
                    let more = ids.count > 8 ? ", … (\(ids.count) in all)" : ""
                    shown = ids.isEmpty ? "→ []" : "→ [" + names.joined(separator: ", ") + more + "]"
                }
                lines.append("  \(pad(r.name))  \(shown)")
            }
            lines.append("")
        }
        var footer = "\(objects.count) object\(objects.count == 1 ? "" : "s") of \(query.entityName)"
        footer += query.sortKey.map { ", sorted by \($0)" } ?? ", by primary key"
        if let limit = query.limit { footer += ", limit \(limit)" }
        lines.append(footer)
        return lines.joined(separator: "\n")
    }

    /// `p12` for a permanent ID.
    static func shortName(_ id: ManagedObjectID) -> String {
        id.primaryKey.map { "p\($0)" } ?? id.uriRepresentation().lastPathComponent
    }

    static func text(_ value: AttributeValue, dates: ISO8601DateFormatter) -> String {
        switch value {
        case .null: return "nil"
        case let .string(s): return s.debugDescription
        case let .date(d): return dates.string(from: d)
        case let .data(d):
            let hex = d.prefix(8).map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
            return "<\(d.count) bytes: \(hex.joined())\(d.count > 8 ? "…" : "")>"
        case let .decimal(d): return NSDecimalNumber(decimal: d).stringValue
        default: return value.description
        }
    }
}
