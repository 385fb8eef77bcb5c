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
    /// A model file could not be written (``XcodeModelWriter``): the path exists, or the file system refused.
    ///
    /// ```swift
    /// catch let CoreStackError.modelNotWritten(path, reason) { print(path, reason) } // "… already exists"
    /// ```
    case modelNotWritten(path: String, reason: String)
    /// A key is not a property of the entity (the description quotes at most 60 characters of it).
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
    /// A save would break uniqueness constraints (see ``ConstraintConflict``); nothing was written.
    case constraintConflict([ConstraintConflict])
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
    /// The description quotes at most 400 characters of the message.
    case invalidPredicate(String)
    /// A predicate format string that does not parse: what was expected and the column (1-based).
    /// `format` is the whole input; the description quotes at most
    /// ``PredicateExcerpt/windowWidth`` characters of it around the column.
    ///
    /// ```swift
    /// catch let CoreStackError.predicateSyntax(message, column, _) {
    ///     print(message, column) // the number 1e999999 is out of range 8
    /// }
    /// ```
    case predicateSyntax(message: String, column: Int, format: String)
    /// A part of a Swift `#Predicate` (a `Foundation.Predicate`) or of a key path that CoreStack
    /// cannot translate into its predicate language (so neither SQL nor the in-memory evaluator
    /// could run it): `part` names it (an expression type, a key path), `reason` says why.
    ///
    /// ```swift
    /// catch let CoreStackError.unsupportedPredicate(part, reason) {
    ///     print(part, reason) // PredicateExpressions.Arithmetic (Int * Int) arithmetic on stored values …
    /// }
    /// ```
    case unsupportedPredicate(part: String, reason: String)
    /// A fetch request that cannot be executed.
    case invalidFetchRequest(String)
    /// The store is read-only.
    case readOnlyStore(String)
    /// A context has no coordinator and no parent, or the coordinator has no store.
    case noStore(String)
    /// The store was closed (``SQLiteStore/close()``) and refuses further work; the value is its path.
    ///
    /// ```swift
    /// store.close()
    /// catch let CoreStackError.storeClosed(path) { print(path) } // a fetch after the close
    /// ```
    case storeClosed(String)
    /// Another process has the store open (it holds SQLite's lock on the file), so its files
    /// cannot be moved, replaced or deleted now; `action` says what was refused.
    ///
    /// ```swift
    /// catch let CoreStackError.storeInUse(path, action) { print("close the app using \(path) first (\(action))") }
    /// ```
    case storeInUse(path: String, action: String)

    /// A one-line message a person can act on.
    public var description: String {
        switch self {
        case let .invalidModel(entity, property, reason):
            if let property { return "invalid model: \(entity).\(property): \(reason)" }
            return "invalid model: \(entity): \(reason)"
        case let .modelFile(path, reason):
            return "cannot read model \(path): \(reason)"
        case let .modelNotWritten(path, reason):
            return "cannot write model \(path): \(reason)"
        case let .unknownKey(entity, key):
            return "\(entity) has no property named \"\(PredicateExcerpt.clip(key, limit: PredicateExcerpt.windowWidth))\""
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
            return "save conflict on \(conflicts.count) object(s):\n"
                + conflicts.map(\.description).joined(separator: "\n")
        case let .constraintConflict(conflicts):
            return "uniqueness constraint conflict on \(conflicts.count) value(s):\n"
                + conflicts.map(\.description).joined(separator: "\n")
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
            // Messages quote key paths and values; a 200 KB predicate must not make a 200 KB line.
            return "invalid predicate: \(PredicateExcerpt.clip(message, limit: 400))"
        case let .unsupportedPredicate(part, reason):
            return "#Predicate: `\(PredicateExcerpt.clip(part, limit: 200))` \(PredicateExcerpt.clip(reason, limit: 400))"
        case let .predicateSyntax(message, column, format):
            return "cannot parse predicate \"\(PredicateExcerpt.window(of: format, column: column))\": \(message) at column \(column)"
        case let .invalidFetchRequest(message):
            return "invalid fetch request: \(message)"
        case let .readOnlyStore(path):
            return "the store \(path) is open read-only"
        case let .noStore(message):
            return "no store: \(message)"
        case let .storeClosed(path):
            return "the store \(path) is closed"
        case let .storeInUse(path, action):
            return "another process has this store open: \(path) (cannot \(action) while it is in use; close the other process and try again)"
        }
    }
}

extension CoreStackError {
    /// The error of a store asked to insert a row under an ID it already holds (a reserved ID
    /// given to two batch inserts, or a key another writer took): a
    /// ``validation(entity:property:objectID:reason:)`` naming the entity and the ID. Every store
    /// throws it before the save writes anything.
    ///
    /// ```swift
    /// catch let CoreStackError.validation(entity, _, objectID, reason) {
    ///     print(entity, objectID, reason)  // Book x-coredata://…/Book/p3 the store already has a row …
    /// }
    /// ```
    static func rowExists(_ id: ManagedObjectID) -> CoreStackError {
        .validation(
            entity: id.entity.name, property: nil, objectID: "\(id)",
            reason: "the store already has a row with this ID: an ID can be inserted once")
    }
}

/// One optimistic-locking conflict found while saving, as Core Data's `NSMergeConflict`: the
/// object, its values in the context, as the context last read them and as the store now holds
/// them, and the row versions.
///
/// Snapshots are keyed by property name and hold the stored properties Core Data's snapshots
/// hold: attributes as ``PropertyValue/attribute(_:)`` and to-one relationships as
/// ``PropertyValue/toOne(_:)`` (an object ID or nil). Transient properties and to-many
/// relationships are left out.
///
/// ```swift
/// do {
///     try context.save()
/// } catch let CoreStackError.mergeConflict(conflicts) {
///     for c in conflicts {
///         print(c)                  // Book p3: title: cached "A", store "B", context "C"; version 2 → 3
///         print(c.conflictingKeys)  // ["title"]
///     }
/// }
/// ```
///
/// A store reports only the object and the versions; a root context's save fills in the
/// snapshots before it throws ``CoreStackError/mergeConflict(_:)`` or applies its merge policy.
public struct MergeConflict: Sendable, Equatable, CustomStringConvertible {
    /// The object in conflict (Core Data's `sourceObject`).
    public var objectID: ManagedObjectID
    /// The row version the context had read (Core Data's `oldVersionNumber`).
    public var expectedVersion: Int64
    /// The row version found in the store, 0 when the row was deleted (Core Data's `newVersionNumber`).
    public var storeVersion: Int64
    /// The object's values in the saving context.
    public var objectSnapshot: [String: PropertyValue]
    /// The values the context last read or saved for the object (its committed snapshot).
    public var cachedSnapshot: [String: PropertyValue]
    /// The values in the store now; nil when the row was deleted from the store.
    public var persistedSnapshot: [String: PropertyValue]?

    /// A conflict as a store reports it (no snapshots yet).
    public init(objectID: ManagedObjectID, expectedVersion: Int64, storeVersion: Int64) {
        self.init(
            objectID: objectID, expectedVersion: expectedVersion, storeVersion: storeVersion,
            objectSnapshot: [:], cachedSnapshot: [:], persistedSnapshot: [:])
    }

    /// A conflict with its snapshots.
    ///
    /// ```swift
    /// let c = MergeConflict(
    ///     objectID: id, expectedVersion: 1, storeVersion: 2,
    ///     objectSnapshot: ["title": .attribute("Mine")], cachedSnapshot: ["title": .attribute("Old")],
    ///     persistedSnapshot: ["title": .attribute("Theirs")])
    /// c.conflictingKeys // ["title"]
    /// ```
    public init(
        objectID: ManagedObjectID, expectedVersion: Int64, storeVersion: Int64,
        objectSnapshot: [String: PropertyValue], cachedSnapshot: [String: PropertyValue],
        persistedSnapshot: [String: PropertyValue]?
    ) {
        self.objectID = objectID
        self.expectedVersion = expectedVersion
        self.storeVersion = storeVersion
        self.objectSnapshot = objectSnapshot
        self.cachedSnapshot = cachedSnapshot
        self.persistedSnapshot = persistedSnapshot
    }

    /// The object in conflict (Core Data's name).
    public var sourceObjectID: ManagedObjectID { objectID }
    /// The version the context had read (Core Data's name for ``expectedVersion``).
    public var oldVersionNumber: Int64 { expectedVersion }
    /// The version in the store, 0 when deleted (Core Data's name for ``storeVersion``).
    public var newVersionNumber: Int64 { storeVersion }
    /// Whether the row was deleted from the store.
    public var isDeletedInStore: Bool { persistedSnapshot == nil }

    /// The properties the context changed since its cached snapshot, in the entity's order.
    public var contextChangedKeys: [String] {
        orderedKeys.filter { objectSnapshot[$0] != cachedSnapshot[$0] }
    }

    /// The properties the store changed since the context's cached snapshot, in the entity's
    /// order (every property when the row was deleted).
    public var storeChangedKeys: [String] {
        guard let persistedSnapshot else { return orderedKeys }
        return orderedKeys.filter { persistedSnapshot[$0] != cachedSnapshot[$0] }
    }

    /// The properties changed on both sides since the cached snapshot, to different values, in
    /// the entity's order: the ones a merge policy has to decide.
    public var conflictingKeys: [String] {
        guard let persistedSnapshot else { return contextChangedKeys }
        return orderedKeys.filter {
            objectSnapshot[$0] != cachedSnapshot[$0] && persistedSnapshot[$0] != cachedSnapshot[$0]
                && objectSnapshot[$0] != persistedSnapshot[$0]
        }
    }

    /// The properties changed on either side, in the entity's order.
    public var changedKeys: [String] {
        let changed = Set(contextChangedKeys).union(persistedSnapshot == nil ? [] : storeChangedKeys)
        return orderedKeys.filter { changed.contains($0) }
    }

    /// Every key of the snapshots, attributes then relationships in the entity's order.
    private var orderedKeys: [String] {
        var present = Set(objectSnapshot.keys).union(cachedSnapshot.keys)
        if let persistedSnapshot { present.formUnion(persistedSnapshot.keys) }
        let entity = objectID.entity
        var out = entity.allAttributes.map(\.name).filter { present.contains($0) }
        out += entity.allRelationships.map(\.name).filter { present.contains($0) }
        return out
    }

    /// `Book p3` (the entity and the primary key, or the ID when temporary).
    var shortName: String {
        if let pk = objectID.primaryKey { return "\(objectID.entity.name) p\(pk)" }
        return "\(objectID.entity.name) \(objectID)"
    }

    /// One line per conflicting property, as `Book p3: title: cached "A", store "B", context "C";
    /// version 2 → 3`; when no property conflicts, one line naming what each side changed.
    public var description: String {
        let versions = "version \(expectedVersion) → \(storeVersion == 0 ? "deleted" : String(storeVersion))"
        func show(_ v: PropertyValue?) -> String {
            switch v {
            case nil: return "–"
            case let .attribute(a)?:
                if case let .string(s) = a { return "\"\(s)\"" }
                return a.description
            case let .toOne(id)?:
                guard let id else { return "nil" }
                return id.primaryKey.map { "\(id.entity.name) p\($0)" } ?? id.description
            case let .toMany(ids)?: return "\(ids.count) objects"
            }
        }
        if objectSnapshot.isEmpty && cachedSnapshot.isEmpty {
            // As a store reports it.
            return persistedSnapshot == nil || storeVersion == 0
                ? "\(shortName) was deleted from the store (version \(expectedVersion))"
                : "\(shortName) changed in the store (\(versions))"
        }
        guard let persistedSnapshot else {
            let keys = contextChangedKeys
            return "\(shortName): deleted in the store; the context changed "
                + (keys.isEmpty ? "nothing" : keys.joined(separator: ", ")) + "; \(versions)"
        }
        let keys = conflictingKeys
        if keys.isEmpty {
            let mine = contextChangedKeys, theirs = storeChangedKeys
            return "\(shortName): no property changed on both sides (context changed "
                + (mine.isEmpty ? "nothing" : mine.joined(separator: ", ")) + ", store changed "
                + (theirs.isEmpty ? "nothing" : theirs.joined(separator: ", ")) + "); \(versions)"
        }
        return keys.map { key in
            "\(shortName): \(key): cached \(show(cachedSnapshot[key])), store \(show(persistedSnapshot[key])), "
                + "context \(show(objectSnapshot[key])); \(versions)"
        }.joined(separator: "\n")
    }
}
