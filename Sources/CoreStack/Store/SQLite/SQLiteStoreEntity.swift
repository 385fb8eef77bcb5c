import Foundation

/// One row of a store's `Z_PRIMARYKEY` table: an entity as the store numbers it.
///
/// ```swift
/// for e in try SQLiteStore.entities(at: url) {
///     print(e.name, e.number, e.superNumber, e.maxPrimaryKey)   // Book 1 0 52
/// }
/// ```
public struct SQLiteStoreEntity: Sendable, Hashable {
    /// `Z_NAME`: the entity's name.
    public var name: String
    /// `Z_ENT`: the entity's number in this store.
    public var number: Int
    /// `Z_SUPER`: the parent entity's number (0 for a root entity).
    public var superNumber: Int
    /// `Z_MAX`: the last primary key handed out (kept on root entities only).
    public var maxPrimaryKey: Int64

    /// An entity row from its four columns.
    public init(name: String, number: Int, superNumber: Int, maxPrimaryKey: Int64) {
        self.name = name
        self.number = number
        self.superNumber = superNumber
        self.maxPrimaryKey = maxPrimaryKey
    }
}
