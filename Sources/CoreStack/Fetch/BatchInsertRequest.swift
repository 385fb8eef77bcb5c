import Foundation

/// Inserts objects straight into the store, in one transaction: no object is made and no row
/// cached, so a large import costs the memory of its values. Missing attributes take their
/// default values.
///
/// The values come in one of two forms:
/// - one dictionary per object, attribute name → value (``objects``, Core Data's
///   `NSBatchInsertRequest` shape), with ``init(entityName:objects:relationships:objectIDs:)``;
/// - the attribute names once (``columns``) and one array of values per object in that order
///   (``rows``), as SQL's `INSERT INTO t (a, b) VALUES …`, with
///   ``init(entityName:columns:rows:relationships:objectIDs:)``. The names are looked up once per
///   request instead of once per value, and no dictionary is built per object: the faster form
///   for large imports. Both forms write the same rows for the same values.
///
/// Relationships are set by object ID through ``relationships`` (one dictionary per object, by
/// the index of the object): a to-one becomes the row's foreign key, a many-to-many becomes
/// join-table rows, and a to-many whose inverse is a to-one points the destinations' foreign keys
/// at the new object (in the given order, for an ordered one; the destinations count as updated).
/// Destinations must be saved objects of the relationship's destination entity (or a
/// sub-entity); their existence is not checked.
///
/// ```swift
/// let request = BatchInsertRequest(entityName: "Genre", objects: [["name": "Poetry", "code": 7], ["name": "Drama"]])
/// let changes = try context.execute(request)   // changes.inserted: the new objects' IDs
/// ManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: [mainContext])
///
/// // The same objects, the attribute names given once:
/// let rows = BatchInsertRequest(entityName: "Genre", columns: ["name", "code"], rows: [["Poetry", 7], ["Drama", .null]])
///
/// // With relationships: the new IDs in order, then a book that points at them.
/// let chapters = try context.executeBatchInsert(BatchInsertRequest(
///     entityName: "Chapter", objects: [["title": "One"], ["title": "Two"]])).objectIDs
/// try context.executeBatchInsert(BatchInsertRequest(
///     entityName: "Book", objects: [["title": "Atlas"]],
///     relationships: [["chapters": chapters, "publisher": [publisherID]]]))
/// ```
public struct BatchInsertRequest: Sendable {
    /// The entity inserted (a concrete one).
    public var entityName: String
    /// The objects' values, in the form the request was made with.
    private(set) var payload: Payload
    /// One dictionary per object, by the index of the object (shorter than the objects: the rest
    /// have none): relationship name → destination IDs (at most one for a to-one; in order for an
    /// ordered to-many). A relationship left out stays empty.
    ///
    /// A to-one whose inverse is an ordered to-many cannot be set here (the new object would have
    /// no position in it): set the ordered to-many on the other side instead.
    public var relationships: [[String: [ManagedObjectID]]]
    /// The IDs the objects get, one per object in the same order, reserved beforehand with
    /// ``ManagedObjectContext/reserveObjectIDs(forEntityName:count:)`` (of ``entityName``
    /// itself); nil (the default) gives them new IDs. With reserved IDs, requests can point
    /// relationships at objects that another request of the same multi-request
    /// `executeBatchInsert(_:)` call inserts.
    ///
    /// ```swift
    /// let ids = try context.reserveObjectIDs(forEntityName: "Chapter", count: 2)
    /// let request = BatchInsertRequest(entityName: "Chapter", objects: [["title": "One"], ["title": "Two"]], objectIDs: ids)
    /// ```
    public var objectIDs: [ManagedObjectID]?

    /// The two forms of a request's values.
    enum Payload: Sendable {
        /// One dictionary per object: attribute name → value.
        case objects([[String: AttributeValue]])
        /// Attribute names once, then one array of values per object in that order.
        case rows(columns: [String], rows: [[AttributeValue]])
    }

    /// Inserts one object per dictionary of attribute values, with the relationships of each (by
    /// index), under the reserved `objectIDs` when given.
    ///
    /// ```swift
    /// let request = BatchInsertRequest(entityName: "Chapter", objects: [["title": "One", "number": 1], ["title": "Two"]])
    /// ```
    public init(
        entityName: String, objects: [[String: AttributeValue]], relationships: [[String: [ManagedObjectID]]] = [],
        objectIDs: [ManagedObjectID]? = nil
    ) {
        self.entityName = entityName
        self.payload = .objects(objects)
        self.relationships = relationships
        self.objectIDs = objectIDs
    }

    /// Inserts one object per row: `columns` names attributes of the entity, each once, and each
    /// row holds one value per column, in the same order (`.null` for no value). Attributes not
    /// named take their default values. The relationships of each object (by index) and the
    /// reserved `objectIDs` are as for ``init(entityName:objects:relationships:objectIDs:)``.
    ///
    /// The columns are checked and matched to the entity's attributes once per request; each row
    /// then costs its values only, which makes this the faster form for large imports.
    ///
    /// ```swift
    /// let request = BatchInsertRequest(
    ///     entityName: "Chapter", columns: ["title", "number"],
    ///     rows: [["One", 1], ["Two", 2], [.string("Three"), .null]])
    /// try context.executeBatchInsert(request).objectIDs   // three IDs, in the order of the rows
    /// ```
    ///
    /// An unknown column, a column named twice or a row of another width than `columns` is refused
    /// when the request runs (`executeBatchInsert(_:)` throws, and writes nothing).
    public init(
        entityName: String, columns: [String], rows: [[AttributeValue]], relationships: [[String: [ManagedObjectID]]] = [],
        objectIDs: [ManagedObjectID]? = nil
    ) {
        self.entityName = entityName
        self.payload = .rows(columns: columns, rows: rows)
        self.relationships = relationships
        self.objectIDs = objectIDs
    }

    /// One dictionary per object: attribute name → value.
    ///
    /// For a request made with ``columns`` and ``rows``, reading this builds the dictionaries
    /// (each row's values by column name; a column named twice keeps its last value) on every
    /// read, and setting it turns the request into the dictionary form.
    ///
    /// ```swift
    /// var request = BatchInsertRequest(entityName: "Genre", columns: ["name"], rows: [["Poetry"]])
    /// request.objects            // [["name": .string("Poetry")]]
    /// request.objects.append(["name": "Drama"])
    /// request.columns            // nil: the request now holds dictionaries
    /// ```
    public var objects: [[String: AttributeValue]] {
        get {
            switch payload {
            case .objects(let objects):
                return objects
            case .rows(let columns, let rows):
                return rows.map { Dictionary(zip(columns, $0), uniquingKeysWith: { _, last in last }) }
            }
        }
        set { payload = .objects(newValue) }
    }

    /// The attribute names of a request made with ``init(entityName:columns:rows:relationships:objectIDs:)``,
    /// in the order of each row's values; nil for one made with dictionaries (``objects``).
    ///
    /// ```swift
    /// BatchInsertRequest(entityName: "Genre", columns: ["name", "code"], rows: []).columns   // ["name", "code"]
    /// ```
    public var columns: [String]? {
        if case .rows(let columns, _) = payload { columns } else { nil }
    }

    /// The rows of a request made with ``init(entityName:columns:rows:relationships:objectIDs:)``,
    /// one array of values per object in the order of ``columns``; nil for one made with
    /// dictionaries (``objects``).
    ///
    /// ```swift
    /// BatchInsertRequest(entityName: "Genre", columns: ["name"], rows: [["Poetry"]]).rows   // [[.string("Poetry")]]
    /// ```
    public var rows: [[AttributeValue]]? {
        if case .rows(_, let rows) = payload { rows } else { nil }
    }

    /// The number of objects the request inserts (dictionaries or rows), without building any.
    ///
    /// ```swift
    /// BatchInsertRequest(entityName: "Genre", columns: ["name"], rows: [["Poetry"], ["Drama"]]).objectCount   // 2
    /// ```
    public var objectCount: Int {
        switch payload {
        case .objects(let objects): objects.count
        case .rows(_, let rows): rows.count
        }
    }
}
