import CoreStack
import Foundation

/// Which objects `stackscope dump` lists, and in what order.
///
/// Everything here runs in the store's SQL: the predicate, the order, the offset and the limit.
///
/// ```swift
/// let query = DumpQuery(entityName: "Book", sort: try DumpSort.parse("title,-pages"), limit: 10, offset: 20)
/// ```
public struct DumpQuery: Sendable, Equatable {
    /// The entity listed (objects of its sub-entities included).
    public var entityName: String
    /// The attributes to sort by (or key paths through to-one relationships to attributes,
    /// `author.name`), in order; ties and the default order go by primary key.
    public var sort: [DumpSort]
    /// At most this many objects (nil: all).
    public var limit: Int?
    /// Skip this many objects first (nil: none).
    public var offset: Int?
    /// A filter the store applies before sorting and limiting (nil: every object). The command line
    /// fills it from `--predicate`; the rest of the dump does not change.
    public var predicate: CoreStack.Predicate?

    /// One attribute to sort by, ascending (nil: by primary key).
    public var sortKey: String? {
        get { sort.first?.key }
        set { sort = newValue.map { [DumpSort(key: $0)] } ?? [] }
    }

    /// Creates a query sorted by at most one attribute, ascending (nil: by primary key).
    public init(entityName: String, sortKey: String? = nil, limit: Int? = nil, predicate: CoreStack.Predicate? = nil) {
        self.entityName = entityName
        self.sort = sortKey.map { [DumpSort(key: $0)] } ?? []
        self.limit = limit
        self.predicate = predicate
    }

    /// Creates a query with a list of sort keys and an optional offset.
    public init(entityName: String, sort: [DumpSort], limit: Int? = nil, offset: Int? = nil, predicate: CoreStack.Predicate? = nil) {
        self.entityName = entityName
        self.sort = sort
        self.limit = limit
        self.offset = offset
        self.predicate = predicate
    }
}

/// One key of a dump's order.
///
/// ```swift
/// try DumpSort.parse("title")            // [title ascending]
/// try DumpSort.parse("-pages,title")     // [pages descending, title ascending]
/// try DumpSort.parse("pages:desc")       // [pages descending]
/// try DumpSort.parse("-author.name")     // [author.name descending] (through a to-one relationship)
/// ```
public struct DumpSort: Sendable, Equatable, CustomStringConvertible {
    /// The attribute, or a key path through to-one relationships to one (`author.name`).
    public var key: String
    /// Ascending (the default) or descending.
    public var ascending: Bool

    /// Creates a sort key, ascending by default.
    public init(key: String, ascending: Bool = true) {
        self.key = key
        self.ascending = ascending
    }

    /// The keys of a `--sort` value: comma-separated, each `key`, `-key` (descending),
    /// `key:asc` or `key:desc`.
    /// - Throws: ``StackScopeError/invalidOption(name:reason:)`` for an empty key or another suffix.
    public static func parse(_ spec: String) throws -> [DumpSort] {
        try spec.split(separator: ",", omittingEmptySubsequences: false).map { part in
            var text = part.trimmingCharacters(in: .whitespaces)
            var ascending = true
            if text.hasPrefix("-") {
                ascending = false
                text.removeFirst()
            } else if let colon = text.lastIndex(of: ":") {
                let direction = text[text.index(after: colon)...].lowercased()
                switch direction {
                case "asc", "ascending": ascending = true
                case "desc", "descending": ascending = false
                default:
                    throw StackScopeError.invalidOption(
                        name: "--sort", reason: "\"\(part)\": the direction after ':' must be asc or desc")
                }
                text = String(text[..<colon])
            }
            guard !text.isEmpty else {
                throw StackScopeError.invalidOption(name: "--sort", reason: "\"\(spec)\" has an empty key")
            }
            return DumpSort(key: text, ascending: ascending)
        }
    }

    /// The key's name, followed by ` descending` when it is descending.
    public var description: String { ascending ? key : "\(key) descending" }
}

/// One object as `stackscope dump` shows it.
public struct DumpedObject: Sendable, Equatable {
    /// Where a relationship points.
    public enum Target: Sendable, Equatable {
        /// A to-one relationship's destination, or nil.
        case toOne(ManagedObjectID?)
        /// In order for ordered relationships, by object ID otherwise.
        case toMany([ManagedObjectID])
    }

    /// The object's ID.
    public var objectID: ManagedObjectID
    /// Stored attributes in model order (inherited first).
    public var attributes: [(name: String, value: AttributeValue)]
    /// Relationships in model order (inherited first).
    public var relationships: [(name: String, target: Target)]

    /// The name of the object's entity.
    public var entityName: String { objectID.entity.name }

    /// Whether two objects have the same ID, attributes and relationships (in order).
    public static func == (lhs: DumpedObject, rhs: DumpedObject) -> Bool {
        lhs.objectID == rhs.objectID
            && lhs.attributes.map(\.name) == rhs.attributes.map(\.name)
            && lhs.attributes.map(\.value) == rhs.attributes.map(\.value)
            && lhs.relationships.map(\.name) == rhs.relationships.map(\.name)
            && lhs.relationships.map(\.target) == rhs.relationships.map(\.target)
    }
}

/// `stackscope dump STORE [--model MODEL] --entity NAME [--sort KEYS] [--offset N] [--limit N] [--json]`.
///
/// The predicate, order, offset and limit go into the store's SQL and objects are written as
/// they are read: the first lines of a sorted, limited dump of a million rows come from an index
/// in milliseconds, and a whole dump's memory does not grow with the number of rows.
///
/// ```swift
/// try DumpCommand.write(storePath: "library.sqlite", modelPath: nil,
///                       query: DumpQuery(entityName: "Book", sort: [DumpSort(key: "title")], limit: 10),
///                       json: false) { print($0, terminator: "") }
/// ```
public enum DumpCommand {
    /// The objects a query selects from a store, opened read-only.
    public static func dump(
        storePath: String, modelPath: String? = nil, query: DumpQuery,
        files: any StoreFileAccess = StoreFiles.standard
    ) throws -> [DumpedObject] {
        let session = try StoreSession.open(storePath: storePath, modelPath: modelPath, files: files)
        // Closed on every way out (SQLite then removes the -wal and -shm), not left to the process exit.
        defer { session.close() }
        return try dump(session: session, query: query)
    }

    /// The objects a query selects in an open session.
    public static func dump(session: StoreSession, query: DumpQuery) throws -> [DumpedObject] {
        var out: [DumpedObject] = []
        try forEachObject(session: session, query: query) { out.append($0) }
        return out
    }

    /// Hands each object a query selects to `body` as the store reads it.
    ///
    /// ```swift
    /// try DumpCommand.forEachObject(session: session, query: DumpQuery(entityName: "Book")) { print($0.objectID) }
    /// ```
    public static func forEachObject(session: StoreSession, query: DumpQuery, _ body: (DumpedObject) throws -> Void) throws {
        let request = try fetchRequest(session: session, query: query)
        let context = session.context
        try context.performAndWait {
            try context.streamRows(request) { row in try body(describe(row)) }
        }
    }

    /// The fetch request of a query, checked: every sort key a stored attribute (or a key path
    /// through to-one relationships to one), a positive limit,
    /// an offset of zero or more.
    static func fetchRequest(session: StoreSession, query: DumpQuery) throws -> FetchRequest<ManagedObject> {
        let entity = try session.entity(named: query.entityName)
        for sort in query.sort { try checkSortKey(sort.key, of: entity) }
        if let predicate = query.predicate { try PredicateHint.check(predicate, entity: entity) }
        if let limit = query.limit, limit < 1 {
            throw StackScopeError.invalidOption(name: "--limit", reason: "\(limit) is not a positive number")
        }
        if let offset = query.offset, offset < 0 {
            throw StackScopeError.invalidOption(name: "--offset", reason: "\(offset) is negative")
        }
        // Ties, and the whole order without keys, go by primary key (the store adds Z_PK last).
        var request = FetchRequest<ManagedObject>(
            entityName: entity.name, predicate: query.predicate,
            sortDescriptors: query.sort.map { SortDescriptor($0.key, ascending: $0.ascending) })
        request.fetchLimit = query.limit ?? 0
        request.fetchOffset = query.offset ?? 0
        return request
    }

    /// Checks a sort key: a stored attribute of `entity`, or a key path through to-one
    /// relationships to one (`author.name`), as a Core Data sort descriptor allows.
    /// - Throws: ``StackScopeError/unknownSortKey(key:entity:available:)`` for an unknown plain key,
    ///   ``StackScopeError/invalidSortKeyPath(key:reason:)`` saying which step of a path is wrong.
    static func checkSortKey(_ key: String, of entity: EntityDescription) throws {
        let steps = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var current = entity
        for (i, step) in steps.enumerated() {
            let isLast = i == steps.count - 1
            let stored = current.allAttributes.filter { !$0.isTransient }.map(\.name)
            if isLast, let a = current.attribute(named: step), !a.isTransient { return }
            if steps.count == 1 {
                throw StackScopeError.unknownSortKey(key: key, entity: current.name, available: stored)
            }
            if let r = current.relationship(named: step), !r.isTransient {
                if r.isToMany {
                    throw StackScopeError.invalidSortKeyPath(
                        key: key, reason: "\(current.name).\(step) is a to-many relationship; a sort key can go only through to-one relationships")
                }
                guard let destination = current.destinationEntity(ofRelationship: step) else {
                    throw StackScopeError.invalidSortKeyPath(
                        key: key, reason: "\(current.name).\(step) has no destination entity \"\(r.destinationEntityName)\" in the model")
                }
                if isLast {
                    let example = destination.allAttributes.first { !$0.isTransient }.map { "\(key).\($0.name)" } ?? "\(key).KEY"
                    throw StackScopeError.invalidSortKeyPath(
                        key: key, reason: "\(current.name).\(step) is a relationship; sort by an attribute of \(destination.name), e.g. \(example)")
                }
                current = destination
                continue
            }
            let toOne = current.allRelationships.filter { !$0.isToMany && !$0.isTransient }.map(\.name)
            let available = isLast ? stored : toOne
            throw StackScopeError.invalidSortKeyPath(
                key: key,
                reason: "\(current.name) has no \(isLast ? "attribute" : "to-one relationship") named \"\(step)\" "
                    + "(\(isLast ? "attributes" : "to-one relationships"): \(available.isEmpty ? "none" : available.joined(separator: ", ")))")
        }
    }

    private static func describe(_ row: FetchedRow) -> DumpedObject {
        let entity = row.entity
        var attributes: [(name: String, value: AttributeValue)] = []
        for (slot, a) in entity.allAttributes.enumerated() where !a.isTransient {
            attributes.append((a.name, slot < row.snapshot.values.count ? row.snapshot.values[slot] : .null))
        }
        var relationships: [(name: String, target: DumpedObject.Target)] = []
        for (slot, r) in entity.allRelationships.enumerated() where !r.isTransient {
            if !r.isToMany {
                relationships.append((r.name, .toOne(slot < row.snapshot.toOne.count ? row.snapshot.toOne[slot] : nil)))
            } else {
                let ids = row.toMany[slot] ?? []
                relationships.append((r.name, .toMany(r.isOrdered ? ids : ids.sorted())))
            }
        }
        return DumpedObject(objectID: row.objectID, attributes: attributes, relationships: relationships)
    }

    /// The command's output: JSON or text, ending with a newline.
    public static func run(
        storePath: String, modelPath: String?, query: DumpQuery, json: Bool,
        files: any StoreFileAccess = StoreFiles.standard
    ) throws -> String {
        var out = ""
        try write(storePath: storePath, modelPath: modelPath, query: query, json: json, files: files) { out += $0 }
        return out
    }

    /// Writes the command's output (the same text as ``run(storePath:modelPath:query:json:files:)``)
    /// piece by piece as the store reads the objects: one object's text at a time, then the end.
    public static func write(
        storePath: String, modelPath: String?, query: DumpQuery, json: Bool,
        files: any StoreFileAccess = StoreFiles.standard, to output: (String) throws -> Void
    ) throws {
        let session = try StoreSession.open(storePath: storePath, modelPath: modelPath, files: files)
        // Closed on every way out (SQLite then removes the -wal and -shm), not left to the process exit.
        defer { session.close() }
        let dates = ISO8601DateFormatter()
        dates.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var count = 0
        try forEachObject(session: session, query: query) { o in
            if json {
                try output((count == 0 ? "[\n  " : ",\n  ") + jsonValue(o, dates: dates).rendered(indent: 1))
            } else {
                try output(textLines(o, dates: dates).joined(separator: "\n") + "\n\n")
            }
            count += 1
        }
        if json {
            try output(count == 0 ? "[]\n" : "\n]\n")
        } else {
            try output(footer(count: count, query: query) + "\n")
        }
    }

    // MARK: JSON

    /// The objects as a JSON array: each with its object ID URI, entity, attributes and relationships.
    public static func renderJSON(_ objects: [DumpedObject]) -> String {
        let dates = ISO8601DateFormatter()
        dates.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return JSONValue.array(objects.map { jsonValue($0, dates: dates) }).rendered()
    }

    static func jsonValue(_ o: DumpedObject, dates: ISO8601DateFormatter) -> JSONValue {
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

    /// The objects as text: a block of lines per object, then a footer line with the count, order, offset and limit.
    public static func renderText(_ objects: [DumpedObject], query: DumpQuery) -> String {
        let dates = ISO8601DateFormatter()
        dates.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var lines: [String] = []
        for o in objects {
            lines += textLines(o, dates: dates)
            lines.append("")
        }
        lines.append(footer(count: objects.count, query: query))
        return lines.joined(separator: "\n")
    }

    /// One object's lines of text.
    static func textLines(_ o: DumpedObject, dates: ISO8601DateFormatter) -> [String] {
        var lines = ["\(o.entityName) \(shortName(o.objectID))  \(o.objectID.uriRepresentation().absoluteString)"]
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
        return lines
    }

    /// The last line of the text output: how many objects, in what order, which window.
    static func footer(count: Int, query: DumpQuery) -> String {
        var footer = "\(count) object\(count == 1 ? "" : "s") of \(query.entityName)"
        footer += query.sort.isEmpty ? ", by primary key" : ", sorted by " + query.sort.map(\.description).joined(separator: ", ")
        if let offset = query.offset, offset > 0 { footer += ", offset \(offset)" }
        if let limit = query.limit { footer += ", limit \(limit)" }
        return footer
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
            if let uuid = SQLiteExternalBinaryData.missingReference(d) { return "<missing external data \(uuid)>" }
            if let archived = ArchivedValueSummary.summary(of: d) { return "<\(d.count) bytes, archived \(archived)>" }
            let hex = d.prefix(8).map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
            return "<\(d.count) bytes: \(hex.joined())\(d.count > 8 ? "…" : "")>"
        case let .decimal(d): return NSDecimalNumber(decimal: d).stringValue
        default: return value.description
        }
    }
}
