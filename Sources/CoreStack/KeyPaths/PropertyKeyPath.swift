import Foundation

/// Maps Swift key paths of ``ManagedObject`` subclasses to the names of the model's properties:
/// `\Book.title` → `"title"`, for `#Predicate`, key-path sort descriptors, section key paths,
/// `propertiesToFetch` and prefetching.
///
/// ```swift
/// try PropertyKeyPath.name(of: \Book.title)       // "title"
/// try PropertyKeyPath.name(of: \Book.publisher)   // "publisher"
/// try PropertyKeyPath.name(of: \Book.initial)     // throws: a computed property is not a model property
/// ```
///
/// **How.** A class that adopts ``PropertyKeyPathTable`` (what a model macro generates) is looked
/// up in its table. Any other class is probed: an instance of it is made on an entity that has no
/// properties, and the key path is read on it, then written back. A property wrapper
/// (``Attribute``, ``ToOne``, ``ToMany``, ``OrderedToMany``) finds no slot for its key on that
/// entity and records ``CoreStackError/unknownKey(entity:key:)`` naming its key in
/// ``ManagedObject/lastAccessorError``, as it records any refused access: the key read is the
/// key recorded. The wrappers' code and storage are untouched (no flag, no recorder on the
/// accessors' fast path): the probe goes through their error path only. A key path counts as a
/// model property only when it is writable and the read and the write record the same key, so a
/// computed property (`var initial: String { … title … }`, read-only) or a key path through a
/// relationship (`\Book.publisher?.name`, read-only) is refused rather than taken for the property
/// it reads. `\X.objectID` is recognised as the object itself. Each key path is resolved once per
/// process and cached (a dictionary look-up under a lock afterwards).
///
/// A computed property that reads *and* writes exactly one wrapper (an alias) is taken for that
/// property; a class that needs more than that adopts ``PropertyKeyPathTable``.
public enum PropertyKeyPath {
    /// What a key path of a managed object names.
    enum Resolution: Sendable, Equatable {
        /// A property of the model, by name.
        case property(String)
        /// `objectID`: the object itself (`SELF` in the string language).
        case objectID
    }

    /// The name of the model property `keyPath` names.
    ///
    /// ```swift
    /// var request = FetchRequest<Book>()
    /// request.propertiesToFetch = [try PropertyKeyPath.name(of: \Book.title)]
    /// ```
    public static func name<Root: ManagedObject, Value>(of keyPath: KeyPath<Root, Value>) throws -> String {
        try name(ofAny: keyPath)
    }

    /// The names of the model properties these key paths name, in order.
    ///
    /// ```swift
    /// try PropertyKeyPath.names(of: [\Book.title, \Book.pages]) // ["title", "pages"]
    /// ```
    public static func names<Root: ManagedObject>(of keyPaths: [PartialKeyPath<Root>]) throws -> [String] {
        try keyPaths.map { try name(ofAny: $0) }
    }

    /// ``name(of:)`` for a key path of any type.
    static func name(ofAny keyPath: AnyKeyPath) throws -> String {
        switch try resolve(keyPath) {
        case let .property(name): return name
        case .objectID:
            throw CoreStackError.unsupportedPredicate(
                part: describe(keyPath), reason: "is the object's ID, not a property of the model")
        }
    }

    private static let cache = LockedValue<[AnyKeyPath: Resolution]>([:])

    /// What `keyPath` names, from the cache or found once.
    static func resolve(_ keyPath: AnyKeyPath) throws -> Resolution {
        if let known = cache.withLock({ $0[keyPath] }) { return known }
        let found = try find(keyPath)
        cache.withLock { $0[keyPath] = found }
        return found
    }

    /// A readable name for a key path in messages (Swift prints `\Book.<computed 0x… (String)>`).
    static func describe(_ keyPath: AnyKeyPath) -> String {
        "key path \\\(type(of: keyPath).rootType) → \(type(of: keyPath).valueType)"
    }

    /// The entity probes are made on: no properties, so every wrapper access records its key.
    private static let probeEntity = EntityDescription("KeyPathProbe") {}

    private static func find(_ keyPath: AnyKeyPath) throws -> Resolution {
        guard let root = type(of: keyPath).rootType as? ManagedObject.Type else {
            throw CoreStackError.unsupportedPredicate(
                part: describe(keyPath), reason: "does not start at a ManagedObject subclass")
        }
        if let table = root as? any PropertyKeyPathTable.Type, let key = tableKey(table, keyPath) {
            return .property(key)
        }
        let probe = root.init(entity: probeEntity, objectID: ManagedObjectID(temporaryFor: probeEntity))
        probe.lastAccessorError = nil
        let value = probe[keyPath: keyPath]
        let read = recordedKey(probe)
        guard let read else {
            if let id = value as? ManagedObjectID, id == probe.objectID { return .objectID }
            throw CoreStackError.unsupportedPredicate(
                part: describe(keyPath),
                reason: "names no property of the model: declare it with @Attribute, @ToOne, @ToMany or @OrderedToMany")
        }
        probe.lastAccessorError = nil
        guard let writable = keyPath as? any ProbeWriteBack else {
            throw CoreStackError.unsupportedPredicate(
                part: describe(keyPath),
                reason: "reads \"\(read)\" but is read-only: a computed property or a key path through a relationship "
                    + "is not a model property (use the property itself, or a string key such as \"publisher.name\")")
        }
        writable.writeBack(on: probe)
        guard recordedKey(probe) == read else {
            throw CoreStackError.unsupportedPredicate(
                part: describe(keyPath), reason: "reads \"\(read)\" but does not write it: a computed property is not a model property")
        }
        return .property(read)
    }

    private static func tableKey<T: PropertyKeyPathTable>(_ type: T.Type, _ keyPath: AnyKeyPath) -> String? {
        T.tableKey(for: keyPath)
    }

    /// The key a wrapper of the probe recorded as unknown.
    private static func recordedKey(_ probe: ManagedObject) -> String? {
        guard case let CoreStackError.unknownKey(entity, key)? = probe.lastAccessorError, entity == probeEntity.name else { return nil }
        return key
    }
}
