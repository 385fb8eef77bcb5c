import Foundation

/// A typed attribute of a ``ManagedObject`` subclass.
///
/// The wrapper reads and writes the object's slot for the attribute named `key`. A non-optional
/// property reads a nil value as its type's ``AttributeValueConvertible/absentValue`` (0, "", false).
/// A value the model refuses is not written and is reported through ``ManagedObject/lastAccessorError``.
///
/// The key is a string literal; a key known only at run time goes through ``init(named:)``.
///
/// ```swift
/// final class Book: ManagedObject {
///     @Attribute("title") var title: String?
///     @Attribute("pages") var pages: Int
///     @Attribute(named: Config.ratingKey) var rating: Double
/// }
/// ```
@propertyWrapper
public struct Attribute<Value: AttributeValueConvertible> {
    /// The key as one word that names it for the process (see ``WrapperKey``): a read retains
    /// nothing, and the wrapper costs its object 8 bytes.
    @usableFromInline let wrapperKey: WrapperKey

    /// The name of the property in the entity.
    public var key: String { wrapperKey.string }

    /// A wrapper for the property named by the literal `key`.
    ///
    /// ```swift
    /// @Attribute("title") var title: String?
    /// ```
    @inlinable public init(_ key: StaticString) { wrapperKey = WrapperKey.literal(key) }

    /// A wrapper for the property named `key`, a string known only at run time (interned for the
    /// rest of the process, once per distinct text).
    ///
    /// ```swift
    /// @Attribute(named: Config.ratingKey) var rating: Double
    /// ```
    public init(named key: String) { wrapperKey = WrapperKey(interning: key) }

    /// Unavailable: the wrapper works only through the enclosing ``ManagedObject`` (see the subscript).
    @available(*, unavailable, message: "@Attribute is only available on ManagedObject subclasses")
    public var wrappedValue: Value {
        get { preconditionFailure("unreachable") }
        set { preconditionFailure("unreachable") }  // swiftlint:disable:this unused_setter_value
    }

    // Inlinable so that subclasses in other modules get it specialised for their value types
    // (no generic metadata look-ups on each access).
    /// Reads and writes the property on the enclosing object (Swift calls this for a wrapped property of a class).
    @inlinable @inline(__always)
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Value {
        get {
            do {
                // The key is read straight from the object's field (the literal key path folds
                // away once this is inlined; the key is plain words, so nothing is retained): an
                // access instantiates no key path object.
                let key = object[keyPath: storageKeyPath].wrapperKey
                let value: AttributeValue
                if let slot = object.entity.wrapperSlot(forBits: key.bits) {
                    value = try object.attributeValue(atSlot: slot)
                } else {
                    value = try object.attributeValue(atSlot: slot(of: object, key: key))
                }
                return Value(attributeValue: value) ?? Value.absentValue
            } catch {
                object.lastAccessorError = error
                return Value.absentValue
            }
        }
        set {
            do { try object.setAttribute(slot: try slot(of: object, key: object[keyPath: storageKeyPath].wrapperKey), newValue.attributeValue) } catch {
                object.lastAccessorError = error
            }
        }
    }

    /// The attribute slot a wrapper with this key reads, remembered per entity.
    @inlinable
    static func slot(of object: ManagedObject, key: WrapperKey) throws -> Int {
        let bits = key.bits
        if let slot = object.entity.wrapperSlot(forBits: bits) { return slot }
        let slot = try object.entity.attributeSlot(key.string)
        object.entity.rememberWrapperSlot(slot, forBits: bits)
        return slot
    }
}

/// A typed to-one relationship of a ``ManagedObject`` subclass; the inverse is kept in step.
///
/// ```swift
/// final class Book: ManagedObject {
///     @ToOne("publisher") var publisher: Publisher?
/// }
/// ```
@propertyWrapper
public struct ToOne<Destination: ManagedObject> {
    /// The key as one word that names it for the process (see ``WrapperKey``), as ``Attribute``'s:
    /// the slot is found by one word compare, and the wrapper costs its object 8 bytes.
    @usableFromInline let wrapperKey: WrapperKey

    /// The name of the property in the entity.
    public var key: String { wrapperKey.string }

    /// A wrapper for the property named by the literal `key`.
    @inlinable public init(_ key: StaticString) { wrapperKey = WrapperKey.literal(key) }

    /// A wrapper for the property named `key`, a string known only at run time (interned for the
    /// rest of the process, once per distinct text).
    @_disfavoredOverload public init(_ key: String) { wrapperKey = WrapperKey(interning: key) }

    /// Unavailable: the wrapper works only through the enclosing ``ManagedObject`` (see the subscript).
    @available(*, unavailable, message: "@ToOne is only available on ManagedObject subclasses")
    public var wrappedValue: Destination? {
        get { preconditionFailure("unreachable") }
        set { preconditionFailure("unreachable") }
    }

    // Inlinable, as `Attribute`'s: specialised in the subclass's module for its destination
    // class (no generic metadata look-ups or unspecialised casts on each access).
    /// Reads and writes the property on the enclosing object (Swift calls this for a wrapped property of a class).
    @inlinable
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Destination?>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Destination? {
        get {
            do { return try object.object(atRelationshipSlot: try object.entity.relationshipSlot(for: object[keyPath: storageKeyPath].wrapperKey)) as? Destination } catch {
                object.lastAccessorError = error
                return nil
            }
        }
        set {
            do { try object.setObject(newValue, atRelationshipSlot: try object.entity.relationshipSlot(for: object[keyPath: storageKeyPath].wrapperKey)) } catch {
                object.lastAccessorError = error
            }
        }
    }
}

/// A typed unordered to-many relationship of a ``ManagedObject`` subclass, as a `Set`.
///
/// ```swift
/// final class Book: ManagedObject {
///     @ToMany("authors") var authors: Set<Author>
/// }
/// book.authors.insert(author) // adds, and adds the book to author.books
/// ```
@propertyWrapper
public struct ToMany<Destination: ManagedObject> {
    /// The key as one word that names it for the process (see ``WrapperKey``), as ``Attribute``'s:
    /// the slot is found by one word compare, and the wrapper costs its object 8 bytes.
    @usableFromInline let wrapperKey: WrapperKey

    /// The name of the property in the entity.
    public var key: String { wrapperKey.string }

    /// A wrapper for the property named by the literal `key`.
    @inlinable public init(_ key: StaticString) { wrapperKey = WrapperKey.literal(key) }

    /// A wrapper for the property named `key`, a string known only at run time (interned for the
    /// rest of the process, once per distinct text).
    @_disfavoredOverload public init(_ key: String) { wrapperKey = WrapperKey(interning: key) }

    /// Unavailable: the wrapper works only through the enclosing ``ManagedObject`` (see the subscript).
    @available(*, unavailable, message: "@ToMany is only available on ManagedObject subclasses")
    public var wrappedValue: Set<Destination> {
        get { preconditionFailure("unreachable") }
        set { preconditionFailure("unreachable") }
    }

    // Inlinable, as `Attribute`'s: the set is built in the subclass's module, specialised for its
    // destination class (unspecialised, making a set of three objects cost ~7,000 instructions in
    // run-time generic metadata look-ups). Always inlined: called, the storage key path is read
    // through `swift_getAtKeyPath` (~700 instructions a read); inlined, it folds to a field load.
    /// Reads and writes the property on the enclosing object (Swift calls this for a wrapped property of a class).
    @inlinable @inline(__always)
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Set<Destination>>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Set<Destination> {
        get {
            do {
                let objects = try object.objects(atRelationshipSlot: try object.entity.relationshipSlot(for: object[keyPath: storageKeyPath].wrapperKey))
                var set = Set<Destination>(minimumCapacity: objects.count)
                for o in objects {
                    if let d = o as? Destination { set.insert(d) }
                }
                return set
            } catch {
                object.lastAccessorError = error
                return []
            }
        }
        set {
            do { try object.setObjects(newValue.map { $0 as ManagedObject }, atRelationshipSlot: try object.entity.relationshipSlot(for: object[keyPath: storageKeyPath].wrapperKey)) } catch {
                object.lastAccessorError = error
            }
        }
    }
}

/// A typed ordered to-many relationship of a ``ManagedObject`` subclass, as an array.
///
/// Assigning an array sets the order; for index-based changes use the ordered mutators of
/// ``ManagedObject`` (`insert(_:at:inKey:)`, `moveObject(from:to:inKey:)`, …).
///
/// ```swift
/// final class Book: ManagedObject {
///     @OrderedToMany("chapters") var chapters: [Chapter]
/// }
/// book.chapters.append(chapter)
/// ```
@propertyWrapper
public struct OrderedToMany<Destination: ManagedObject> {
    /// The key as one word that names it for the process (see ``WrapperKey``), as ``Attribute``'s:
    /// the slot is found by one word compare, and the wrapper costs its object 8 bytes.
    @usableFromInline let wrapperKey: WrapperKey

    /// The name of the property in the entity.
    public var key: String { wrapperKey.string }

    /// A wrapper for the property named by the literal `key`.
    @inlinable public init(_ key: StaticString) { wrapperKey = WrapperKey.literal(key) }

    /// A wrapper for the property named `key`, a string known only at run time (interned for the
    /// rest of the process, once per distinct text).
    @_disfavoredOverload public init(_ key: String) { wrapperKey = WrapperKey(interning: key) }

    /// Unavailable: the wrapper works only through the enclosing ``ManagedObject`` (see the subscript).
    @available(*, unavailable, message: "@OrderedToMany is only available on ManagedObject subclasses")
    public var wrappedValue: [Destination] {
        get { preconditionFailure("unreachable") }
        set { preconditionFailure("unreachable") }
    }

    // Inlinable, as `Attribute`'s: specialised in the subclass's module for its destination class.
    /// Reads and writes the property on the enclosing object (Swift calls this for a wrapped property of a class).
    @inlinable
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, [Destination]>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> [Destination] {
        get {
            do { return try object.objects(atRelationshipSlot: try object.entity.relationshipSlot(for: object[keyPath: storageKeyPath].wrapperKey)).compactMap { $0 as? Destination } } catch {
                object.lastAccessorError = error
                return []
            }
        }
        set {
            do { try object.setObjects(newValue, atRelationshipSlot: try object.entity.relationshipSlot(for: object[keyPath: storageKeyPath].wrapperKey)) } catch {
                object.lastAccessorError = error
            }
        }
    }
}
