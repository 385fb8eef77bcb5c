import Foundation
import Synchronization

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
    public var entity: EntityDescription { _entity }
    /// Retained: an ID keeps its entity alive however long it outlives its model, coordinator
    /// and contexts. (It was once held `unowned(unsafe)`, with every model kept for the whole
    /// process; see BENCHMARKS.md for what the retain costs.)
    let _entity: EntityDescription
    /// The primary key for a permanent ID, the process-wide counter for a temporary one.
    private(set) var rawKey: Int64
    /// The store's identifier, interned (see ``StoreIdentifiers``); 0 for temporary IDs.
    private(set) var storeToken: UInt32
    private(set) var isTemporary: Bool

    // One reference and three integers: an ID is copied, hashed and compared on every insert,
    // register, fetch and save, so it holds no string (the store's UUID is interned).

    init(entity: EntityDescription, storeIdentifier: String, primaryKey: Int64) {
        self.init(entity: entity, storeToken: StoreIdentifiers.token(for: storeIdentifier), primaryKey: primaryKey)
    }

    init(entity: EntityDescription, storeToken: UInt32, primaryKey: Int64) {
        self._entity = entity
        self.rawKey = primaryKey
        self.storeToken = storeToken
        self.isTemporary = false
    }

    /// Turns this ID, in place, into `permanent`, an ID of the same entity: only the integers
    /// change, so the entity is neither retained nor released (assigning `permanent` would retain
    /// its entity and release this one's, the same object). Any other ID is assigned whole.
    mutating func become(_ permanent: ManagedObjectID) {
        guard permanent._entity === _entity else {
            self = permanent
            return
        }
        rawKey = permanent.rawKey
        storeToken = permanent.storeToken
        isTemporary = permanent.isTemporary
    }

    init(temporaryFor entity: EntityDescription) {
        self.init(entity: entity, temporaryKey: TemporaryIDSource.next())
    }

    /// A temporary ID with a given counter value (``TemporaryIDSource`` hands them out).
    init(entity: EntityDescription, temporaryKey: Int64) {
        self._entity = entity
        self.rawKey = temporaryKey
        self.storeToken = 0
        self.isTemporary = true
    }

    /// The store's identifier (its UUID) for permanent IDs; empty for temporary ones.
    public var storeIdentifier: String { StoreIdentifiers.identifier(for: storeToken) }

    /// Whether the object has not been saved yet.
    public var isTemporaryID: Bool { isTemporary }

    /// The primary key (`Z_PK`) of a permanent ID.
    public var primaryKey: Int64? { isTemporary ? nil : rawKey }

    /// A 64-bit hash of the ID for ``FastMap``, cheaper than `Hasher`. Its low 5 bits are the key's
    /// own low bits and the rest is a mix of everything else, so runs of consecutive keys (what
    /// fetches, inserts and saves produce) fill neighbouring buckets in blocks of 32, and a big
    /// table is walked mostly in order rather than at random (a cache miss per object otherwise).
    @inline(__always)
    var fastHash: UInt64 {
        var h = UInt64(bitPattern: rawKey >> 5) &* 0x9E37_79B9_7F4A_7C15
        h ^= UInt64(UInt(bitPattern: ObjectIdentifier(_entity))) &+ UInt64(storeToken) &<< 32
        h ^= isTemporary ? 0xD6E8_FEB8_6659_FD93 : 0
        h ^= h &>> 29
        h = h &* 0xBF58_476D_1CE4_E5B9
        h ^= h &>> 32
        return (h &<< 5) | UInt64(truncatingIfNeeded: rawKey & 31)
    }

    /// The ID as a URI, as Core Data writes it.
    public func uriRepresentation() -> URL {
        let text =
            isTemporary
            ? "x-coredata:///\(entity.name)/t\(TemporaryIDSource.prefix)\(rawKey)"
            : "x-coredata://\(storeIdentifier)/\(entity.name)/p\(rawKey)"
        // Entity names are identifiers and store UUIDs are hex, so this always parses.
        return URL(string: text) ?? URL(fileURLWithPath: "/")
    }

    /// The URI representation, as text.
    public var description: String { uriRepresentation().absoluteString }

    /// Same entity, store, kind (temporary or permanent) and key.
    public static func == (lhs: ManagedObjectID, rhs: ManagedObjectID) -> Bool {
        lhs.rawKey == rhs.rawKey && lhs._entity === rhs._entity && lhs.storeToken == rhs.storeToken
            && lhs.isTemporary == rhs.isTemporary
    }

    /// Hashes the ID's precomputed hash.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(fastHash)
    }

    /// The ID's hash for sets and dictionaries, without `Hasher`: `fastHash` (which covers what
    /// `==` compares: key, entity, store and kind) mixed with the seed by a `HashMixer`.
    /// Underscored, as the standard library's `Hashable` requirement it implements.
    ///
    /// ```swift
    /// let ids: Set<ManagedObjectID> = [a.objectID, b.objectID]   // hashed through this
    /// ```
    public func _rawHashValue(seed: Int) -> Int {
        var m = HashMixer(seed: seed)
        m.combine(fastHash)
        return m.value
    }

    /// IDs order by entity number, then permanent keys numerically (temporary ones last).
    public static func < (lhs: ManagedObjectID, rhs: ManagedObjectID) -> Bool {
        if lhs.entity.entityNumber != rhs.entity.entityNumber { return lhs.entity.entityNumber < rhs.entity.entityNumber }
        if lhs.isTemporary != rhs.isTemporary { return !lhs.isTemporary }
        return lhs.rawKey < rhs.rawKey
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

/// A counter shared by every thread: one atomic add per call, no lock (a big insert takes
/// 100,000 temporary IDs).
final class AtomicCounter: Sendable {
    private let value = Atomic<Int64>(0)

    func increment() -> Int64 {
        value.add(1, ordering: .relaxed).newValue
    }
}

/// Interns store identifiers (UUID strings) as small integers, so IDs carry no string.
///
/// A process opens few stores; the table only grows.
enum StoreIdentifiers {
    private static let table = LockedValue<(tokens: [String: UInt32], identifiers: [String])>((["": 0], [""]))

    /// The token of an identifier (0 for the empty one of temporary IDs).
    static func token(for identifier: String) -> UInt32 {
        table.withLock { t in
            if let token = t.tokens[identifier] { return token }
            let token = UInt32(t.identifiers.count)
            t.identifiers.append(identifier)
            t.tokens[identifier] = token
            return token
        }
    }

    /// The identifier of a token.
    static func identifier(for token: UInt32) -> String {
        table.withLock { t in Int(token) < t.identifiers.count ? t.identifiers[Int(token)] : "" }
    }
}
