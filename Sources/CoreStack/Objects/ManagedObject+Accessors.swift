import Foundation

/// The typed accessors that generated code and the property wrappers share.
///
/// A model macro (or a hand-written computed property) reads and writes a property through these
/// calls; the property wrappers (``Attribute``, ``ToOne``, ``ToMany``, ``OrderedToMany``) do the same
/// work. The key is a string literal, so an attribute's slot is found by one word compare after the
/// first access (see ``WrapperKey``), a relationship's the same way. Errors are reported as the wrappers report them: the read
/// returns the type's absent value (nil, empty) and ``ManagedObject/lastAccessorError`` is set.
///
/// ```swift
/// final class Book: ManagedObject {
///     var title: String {
///         get { value(ofAttribute: "title") }
///         set { setValue(newValue, ofAttribute: "title") }
///     }
///     var author: Author? {
///         get { object(ofToOne: "author") }
///         set { setObject(newValue, ofToOne: "author") }
///     }
/// }
/// ```
extension ManagedObject {
    // MARK: Attributes

    /// The value of the attribute named by the literal `key`, as `Value`; the type's absent value
    /// (0, "", false, nil) when the attribute is nil or the read fails.
    ///
    /// ```swift
    /// let pages: Int = book.value(ofAttribute: "pages")
    /// ```
    @inlinable @inline(__always)
    public final func value<Value: AttributeValueConvertible>(ofAttribute key: StaticString, as type: Value.Type = Value.self) -> Value {
        let wrapperKey = WrapperKey.literal(key)
        do {
            let slot = try Attribute<Value>.slot(of: self, key: wrapperKey)
            return Value(attributeValue: try attributeValue(atSlot: slot)) ?? Value.absentValue
        } catch {
            lastAccessorError = error
            return Value.absentValue
        }
    }

    /// Sets the attribute named by the literal `key`; a value the model refuses is not written and
    /// is reported through ``lastAccessorError``.
    ///
    /// ```swift
    /// book.setValue(412, ofAttribute: "pages")
    /// ```
    @inlinable @inline(__always)
    public final func setValue<Value: AttributeValueConvertible>(_ value: Value, ofAttribute key: StaticString) {
        do {
            try setAttribute(slot: try Attribute<Value>.slot(of: self, key: WrapperKey.literal(key)), value.attributeValue)
        } catch {
            lastAccessorError = error
        }
    }

    // MARK: Relationships

    /// The destination of the to-one relationship named `key`, as `Destination`.
    ///
    /// ```swift
    /// let author: Author? = book.object(ofToOne: "author")
    /// ```
    @inlinable
    public final func object<Destination: ManagedObject>(ofToOne key: StaticString, as type: Destination.Type = Destination.self) -> Destination? {
        do { return try object(atRelationshipSlot: try entity.relationshipSlot(for: WrapperKey.literal(key))) as? Destination } catch {
            lastAccessorError = error
            return nil
        }
    }

    /// Sets the to-one relationship named `key`, keeping the inverse in step.
    ///
    /// ```swift
    /// book.setObject(author, ofToOne: "author")
    /// ```
    @inlinable
    public final func setObject<Destination: ManagedObject>(_ destination: Destination?, ofToOne key: StaticString) {
        do { try setObject(destination, atRelationshipSlot: try entity.relationshipSlot(for: WrapperKey.literal(key))) } catch {
            lastAccessorError = error
        }
    }

    /// The destinations of the unordered to-many relationship named `key`.
    ///
    /// ```swift
    /// let books: Set<Book> = author.objects(ofToMany: "books")
    /// ```
    @inlinable
    public final func objects<Destination: ManagedObject>(ofToMany key: StaticString, as type: Destination.Type = Destination.self) -> Set<Destination> {
        do {
            let objects = try objects(atRelationshipSlot: try entity.relationshipSlot(for: WrapperKey.literal(key)))
            var set = Set<Destination>(minimumCapacity: objects.count)
            for o in objects {
                if let d = o as? Destination { set.insert(d) }
            }
            return set
        } catch {
            lastAccessorError = error
            return []
        }
    }

    /// Replaces the destinations of the unordered to-many relationship named `key`.
    ///
    /// ```swift
    /// author.setObjects([dune, emma], ofToMany: "books")
    /// ```
    @inlinable
    public final func setObjects<Destination: ManagedObject>(_ destinations: Set<Destination>, ofToMany key: StaticString) {
        do { try setObjects(destinations.map { $0 as ManagedObject }, atRelationshipSlot: try entity.relationshipSlot(for: WrapperKey.literal(key))) } catch {
            lastAccessorError = error
        }
    }

    /// The destinations of the ordered to-many relationship named `key`, in order.
    ///
    /// ```swift
    /// let chapters: [Chapter] = book.orderedObjects(ofToMany: "chapters")
    /// ```
    @inlinable
    public final func orderedObjects<Destination: ManagedObject>(ofToMany key: StaticString, as type: Destination.Type = Destination.self) -> [Destination] {
        do { return try objects(atRelationshipSlot: try entity.relationshipSlot(for: WrapperKey.literal(key))).compactMap { $0 as? Destination } } catch {
            lastAccessorError = error
            return []
        }
    }

    /// Replaces the destinations of the ordered to-many relationship named `key`, in the given order.
    ///
    /// ```swift
    /// book.setOrderedObjects([one, two], ofToMany: "chapters")
    /// ```
    @inlinable
    public final func setOrderedObjects<Destination: ManagedObject>(_ destinations: [Destination], ofToMany key: StaticString) {
        do { try setObjects(destinations, atRelationshipSlot: try entity.relationshipSlot(for: WrapperKey.literal(key))) } catch {
            lastAccessorError = error
        }
    }
}
