import Foundation

/// The identity of a model in its store (SwiftData's `PersistentIdentifier`): a
/// ``ManagedObjectID``, with SwiftData's name.
///
/// ```swift
/// let ids = try context.fetchIdentifiers(FetchDescriptor<Book>())
/// let book = try context.model(for: ids[0]) as? Book
/// ```
public struct PersistentIdentifier: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The object ID it wraps.
    public let objectID: ManagedObjectID

    /// The identifier of an object ID.
    ///
    /// ```swift
    /// let id = PersistentIdentifier(book.objectID)
    /// ```
    public init(_ objectID: ManagedObjectID) {
        self.objectID = objectID
    }

    /// The entity's name (SwiftData's `entityName`).
    public var entityName: String { objectID.entity.name }
    /// The store's identifier (its UUID for an SQLite store); nil for an object not saved yet.
    public var storeIdentifier: String? { objectID.isTemporaryID ? nil : objectID.storeIdentifier }
    /// Whether the identifier is temporary (the object is not saved yet).
    public var isTemporary: Bool { objectID.isTemporaryID }

    /// Orders as the object IDs order.
    public static func < (lhs: PersistentIdentifier, rhs: PersistentIdentifier) -> Bool { lhs.objectID < rhs.objectID }

    /// The object ID's URI.
    public var description: String { objectID.description }
}
