import Foundation

/// Every error CoreStack throws.
///
/// Each case carries what a person needs to act: the entity, the property, the file, the position.
///
/// ```swift
/// do {
///     try book.setValue(.string("x"), forKey: "pages")
/// } catch let error as CoreStackError {
///     print(error) // Book.pages expects Integer 32, got a String ("x")
/// }
/// ```
public enum CoreStackError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The model is inconsistent: an entity or property is wrong.
    case invalidModel(entity: String, property: String?, reason: String)
    /// A model file could not be read.
    case modelFile(path: String, reason: String)
    /// A key is not a property of the entity.
    case unknownKey(entity: String, key: String)
    /// A value does not fit the property's type.
    case typeMismatch(entity: String, key: String, expected: String, got: String)
    /// An entity name that the model does not know.
    case unknownEntity(String)
    /// A validation rule failed on save (or on `validateForSave`).
    case validation(entity: String, property: String?, objectID: String, reason: String)
    /// A delete was refused by a `deny` delete rule.
    case deleteDenied(entity: String, relationship: String, objectID: String)
    /// The object is not registered in this context, or was deleted from the store.
    case objectNotFound(String)
    /// An object of another context was used.
    case wrongContext(String)
    /// An optimistic-locking conflict on save, one entry per object.
    case mergeConflict([MergeConflict])
    /// The file is not a Core Data store, or is corrupt.
    case notAStore(path: String, reason: String)
    /// The file is a store, but damaged: SQLite found a malformed page (`SQLITE_CORRUPT`), an
    /// integrity check failed, or a value of the store's own tables (`Z_PRIMARYKEY`,
    /// `Z_METADATA`, …) has the wrong type; `reason` names the table, column and row when known.
    ///
    /// ```swift
    /// catch let CoreStackError.storeCorrupted(path, reason) {
    ///     print(path, reason) // …/Notes.sqlite Z_PRIMARYKEY.Z_MAX of the row Z_ENT = 1 holds the text "x", not an integer
    /// }
    /// ```
    case storeCorrupted(path: String, reason: String)
    /// The store's schema does not match the model (no version of the model fits).
    case modelMismatch(path: String, differences: [String])
    /// The store was written with another model version than the current one and was opened for writing.
    case migrationRequired(path: String, storeVersion: String, currentVersion: String)
    /// SQLite reported an error.
    case sqlite(path: String, message: String)
    /// A predicate that cannot be used: an unknown key, a type mismatch, a bad operator for the type.
    case invalidPredicate(String)
    /// A predicate format string that does not parse: what was expected and the column (1-based).
    case predicateSyntax(message: String, column: Int, format: String)
    /// A fetch request that cannot be executed.
    case invalidFetchRequest(String)
    /// The store is read-only.
    case readOnlyStore(String)
    /// A context has no coordinator and no parent, or the coordinator has no store.
    case noStore(String)

    public var description: String {
        switch self {
        case let .invalidModel(entity, property, reason):
            if let property { return "invalid model: \(entity).\(property): \(reason)" }
            return "invalid model: \(entity): \(reason)"
        case let .modelFile(path, reason):
            return "cannot read model \(path): \(reason)"
        case let .unknownKey(entity, key):
            return "\(entity) has no property named \"\(key)\""
        case let .typeMismatch(entity, key, expected, got):
            return "\(entity).\(key) expects \(expected), got \(got)"
        case let .unknownEntity(name):
            return "the model has no entity named \"\(name)\""
        case let .validation(entity, property, objectID, reason):
            let where_ = property.map { "\(entity).\($0)" } ?? entity
            return "validation failed for \(where_) (\(objectID)): \(reason)"
        case let .deleteDenied(entity, relationship, objectID):
            return "cannot delete \(entity) \(objectID): its \"\(relationship)\" relationship has the Deny rule and is not empty"
        case let .objectNotFound(what):
            return "object not found: \(what)"
        case let .wrongContext(what):
            return "wrong context: \(what)"
        case let .mergeConflict(conflicts):
            return "save conflict on \(conflicts.count) object(s): "
                + conflicts.map(\.description).joined(separator: "; ")
        case let .notAStore(path, reason):
            return "\(path) is not a CoreStack/Core Data store: \(reason)"
        case let .storeCorrupted(path, reason):
            return "the store \(path) is damaged: \(reason)"
        case let .modelMismatch(path, differences):
            return "the store \(path) does not match the model: " + differences.joined(separator: "; ")
        case let .migrationRequired(path, storeVersion, currentVersion):
            return "the store \(path) uses model version \"\(storeVersion)\", not the current \"\(currentVersion)\"; "
                + "open it read-only or migrate it"
        case let .sqlite(path, message):
            return "SQLite error on \(path): \(message)"
        case let .invalidPredicate(message):
            return "invalid predicate: \(message)"
        case let .predicateSyntax(message, column, format):
            return "cannot parse predicate \"\(format)\": \(message) at column \(column)"
        case let .invalidFetchRequest(message):
            return "invalid fetch request: \(message)"
        case let .readOnlyStore(path):
            return "the store \(path) is open read-only"
        case let .noStore(message):
            return "no store: \(message)"
        }
    }
}

/// One optimistic-locking conflict found while saving.
public struct MergeConflict: Sendable, Equatable, CustomStringConvertible {
    /// The object in conflict.
    public var objectID: ManagedObjectID
    /// The row version the context had.
    public var expectedVersion: Int64
    /// The row version found in the store (0 when the row was deleted).
    public var storeVersion: Int64

    public init(objectID: ManagedObjectID, expectedVersion: Int64, storeVersion: Int64) {
        self.objectID = objectID
        self.expectedVersion = expectedVersion
        self.storeVersion = storeVersion
    }

    public var description: String {
        storeVersion == 0
            ? "\(objectID) was deleted from the store"
            : "\(objectID) changed in the store (version \(expectedVersion) → \(storeVersion))"
    }
}
