import Foundation

/// One object's change in a history transaction (a row of `ACHANGE`).
///
/// ```swift
/// for change in transaction.changes where change.changeType == .update {
///     print(change.changedObjectURI, change.updatedProperties ?? [])
/// }
/// ```
public struct PersistentHistoryChange: Sendable, Hashable {
    /// What happened to the object (`ACHANGE.ZCHANGETYPE`: 0, 1, 2).
    ///
    /// ```swift
    /// let deletes = transaction.changes.filter { $0.changeType == .delete }
    /// ```
    public enum ChangeType: Int, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The object was inserted.
        case insert = 0
        /// The object was updated (``PersistentHistoryChange/updatedProperties`` names what changed).
        case update = 1
        /// The object was deleted (its tombstone keeps the values the model marks).
        case delete = 2

        /// The change type as text: `insert`, `update` or `delete`.
        public var description: String {
            switch self {
            case .insert: "insert"
            case .update: "update"
            case .delete: "delete"
            }
        }
    }

    /// The change's number (`ACHANGE.Z_PK`).
    public var changeID: Int64
    /// The number of the transaction the change belongs to.
    public var transactionNumber: Int64
    /// Insert, update or delete.
    public var changeType: ChangeType
    /// The entity's number in the store (`Z_ENT`, `ACHANGE.ZENTITY`).
    public var entityNumber: Int
    /// The entity's name (from `Z_PRIMARYKEY`), or `"#<number>"` when the store does not list it.
    public var entityName: String
    /// The object's primary key (`ACHANGE.ZENTITYPK`).
    public var primaryKey: Int64
    /// The object's URI, `x-coredata://<store UUID>/<entity>/p<key>`.
    public var changedObjectURI: String
    /// The object's ID, when the history was read through a store whose model has the entity.
    public var changedObjectID: ManagedObjectID?
    /// The updated-columns bit vector as stored (`ACHANGE.ZCOLUMNS`); nil for inserts and deletes.
    /// Bit `i` (byte `i / 8`, bit `i % 8` from the least significant) is the entity's attribute
    /// slot `i` for `i` below the attribute count, then its relationship slots.
    public var updatedColumns: Data?
    /// The names of the updated properties (from ``updatedColumns``), when the model is known.
    public var updatedProperties: [String]?
    /// For deletes: the values of the attributes marked
    /// ``AttributeDescription/preservesValueInHistoryOnDeletion``, by name, when the model is known.
    public var tombstone: [String: AttributeValue]?

    /// A change; history reads make these, tests and tools may too.
    ///
    /// ```swift
    /// let change = PersistentHistoryChange(
    ///     changeID: 1, transactionNumber: 1, changeType: .insert, entityNumber: 1, entityName: "Book",
    ///     primaryKey: 3, changedObjectURI: "x-coredata://UUID/Book/p3")
    /// ```
    public init(
        changeID: Int64, transactionNumber: Int64, changeType: ChangeType, entityNumber: Int, entityName: String,
        primaryKey: Int64, changedObjectURI: String, changedObjectID: ManagedObjectID? = nil, updatedColumns: Data? = nil,
        updatedProperties: [String]? = nil, tombstone: [String: AttributeValue]? = nil
    ) {
        self.changeID = changeID
        self.transactionNumber = transactionNumber
        self.changeType = changeType
        self.entityNumber = entityNumber
        self.entityName = entityName
        self.primaryKey = primaryKey
        self.changedObjectURI = changedObjectURI
        self.changedObjectID = changedObjectID
        self.updatedColumns = updatedColumns
        self.updatedProperties = updatedProperties
        self.tombstone = tombstone
    }
}
