import Foundation

/// The identity of a managed object: its entity and its key in a store.
///
/// IDs are `Sendable` and cross queues where objects cannot. An object inserted and not yet saved
/// has a temporary ID; saving (or ``ManagedObjectContext/obtainPermanentIDs(for:)``) gives it a
/// permanent one whose URI is `x-coredata://<store UUID>/<Entity>/p<primary key>`.
///
/// ```swift
/// let id = book.objectID
/// id.isTemporaryID                  // false once saved
/// id.uriRepresentation()            // x-coredata://6A1F…/Book/p12
/// let same = try coordinator.managedObjectID(forURIRepresentation: id.uriRepresentation())
/// ```
public struct ManagedObjectID: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The object's entity (always the concrete entity, never an abstract parent).
    public let entity: EntityDescription
    /// The store's identifier (its UUID) for permanent IDs; empty for temporary ones.
    public let storeIdentifier: String
    let key: Key

    enum Key: Hashable, Sendable {
        case permanent(Int64)
        /// A process-wide counter; the URI shows it after the process's temporary-ID prefix.
        case temporary(Int64)
    }

    init(entity: EntityDescription, storeIdentifier: String, primaryKey: Int64) {
        self.entity = entity
        self.storeIdentifier = storeIdentifier
        self.key = .permanent(primaryKey)
    }

    init(temporaryFor entity: EntityDescription) {
        self.entity = entity
        self.storeIdentifier = ""
        self.key = .temporary(TemporaryIDSource.next())
    }

    /// Whether the object has not been saved yet.
    public var isTemporaryID: Bool { if case .temporary = key { true } else { false } }

    /// The primary key (`Z_PK`) of a permanent ID.
    public var primaryKey: Int64? { if case let .permanent(pk) = key { pk } else { nil } }

    /// The ID as a URI, as Core Data writes it.
    public func uriRepresentation() -> URL {
        let text: String
        switch key {
        case let .permanent(pk): text = "x-coredata://\(storeIdentifier)/\(entity.name)/p\(pk)"
        case let .temporary(t): text = "x-coredata:///\(entity.name)/t\(TemporaryIDSource.prefix)\(t)"
        }
        // Entity names are identifiers and store UUIDs are hex, so this always parses.
        return URL(string: text) ?? URL(fileURLWithPath: "/")
    }

    public var description: String { uriRepresentation().absoluteString }

    public static func == (lhs: ManagedObjectID, rhs: ManagedObjectID) -> Bool {
        lhs.key == rhs.key && lhs.entity === rhs.entity && lhs.storeIdentifier == rhs.storeIdentifier
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(ObjectIdentifier(entity))
    }

    /// IDs order by entity number, then permanent keys numerically (temporary ones last).
    public static func < (lhs: ManagedObjectID, rhs: ManagedObjectID) -> Bool {
        if lhs.entity.entityNumber != rhs.entity.entityNumber { return lhs.entity.entityNumber < rhs.entity.entityNumber }
        switch (lhs.key, rhs.key) {
        case let (.permanent(a), .permanent(b)): return a < b
        case (.permanent, .temporary): return true
        case (.temporary, .permanent): return false
        case let (.temporary(a), .temporary(b)): return a < b
        }
    }

    /// Parses `x-coredata://<store>/<Entity>/p<pk>` against a model. Returns nil for anything else.
    static func parse(uri: URL, model: ManagedObjectModel) -> (storeIdentifier: String, entity: EntityDescription, primaryKey: Int64)? {
        guard uri.scheme == "x-coredata", let host = uri.host, !host.isEmpty else { return nil }
        let parts = uri.path.split(separator: "/").map(String.init)
        guard parts.count == 2, let entity = model.entity(named: parts[0]),
            parts[1].first == "p", let pk = Int64(parts[1].dropFirst()), pk > 0
        else { return nil }
        return (host, entity, pk)
    }
}

/// Hands out temporary IDs: a counter, shown in URIs after an uppercase UUID for the process.
/// (A number rather than a string: IDs are hashed on every insert, register and save.)
enum TemporaryIDSource {
    static let prefix = UUID().uuidString
    private static let counter = AtomicCounter()

    static func next() -> Int64 { counter.increment() }
}

/// A tiny lock-protected counter.
final class AtomicCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Int64 = 0

    func increment() -> Int64 {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}
