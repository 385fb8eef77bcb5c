import Foundation
import OrderedCollections

extension ManagedObject {
    // MARK: Attributes

    /// The value of an attribute, firing the fault if needed.
    ///
    /// ```swift
    /// let title = try book.attributeValue(forKey: "title") // .string("Dune")
    /// ```
    public func attributeValue(forKey key: String) throws -> AttributeValue {
        let slot = try entity.attributeSlot(key)
        try fireFault()
        return values[slot]
    }

    /// Sets an attribute, checking the value against the attribute's type.
    ///
    /// ```swift
    /// try book.setAttributeValue(.integer(412), forKey: "pages")
    /// try book.setAttributeValue("x", forKey: "pages") // throws .typeMismatch
    /// ```
    public func setAttributeValue(_ value: AttributeValue, forKey key: String) throws {
        let slot = try entity.attributeSlot(key)
        try setAttribute(slot: slot, value)
    }

    /// The value in an attribute slot, firing the fault first (the typed wrappers' read).
    @inlinable @inline(__always)
    final func attributeValue(atSlot slot: Int) throws -> AttributeValue {
        if faultState == .fault { try fireFault() }
        return values[slot]
    }

    @usableFromInline
    func setAttribute(slot: Int, _ value: AttributeValue) throws {
        let type = entity.attributeTypes[slot]
        guard let coerced = AttributeCoercion.coerce(value, to: type) else {
            throw CoreStackError.typeMismatch(
                entity: entity.name, key: entity.allAttributes[slot].name, expected: type.xcodeName,
                got: "\(value.kindDescription) (\(value))")
        }
        try fireFault()
        try checkMutable()
        if values[slot] == coerced { return }
        if let link = contextLink, link.recordsUndo { link.context?.noteWillChange(self) }
        values[slot] = coerced
        let transientOnly = entity.attributeIsTransient[slot]
        // Already recorded as changed and pending: nothing for the context to note (and no load
        // of the context, whose retain and release take the runtime's slow path: its
        // coordinator holds it weakly).
        if (changeState != .clean || transientOnly) && (pendingInsertion || pendingUpdate) { return }
        managedObjectContext?.objectDidChange(self, transientOnly: transientOnly)
    }

    /// The value of any property as a plain Swift value: attributes as String, Int64, Double, Bool,
    /// Date, Data, UUID, URL or Decimal; to-one relationships as a ``ManagedObject``; to-many as a
    /// `Set<ManagedObject>`, ordered ones as `[ManagedObject]`.
    ///
    /// ```swift
    /// let title = try book.value(forKey: "title") as? String
    /// ```
    public func value(forKey key: String) throws -> Any? {
        if entity.attributeSlots[key] != nil { return try attributeValue(forKey: key).anyValue }
        let slot = try entity.relationshipSlot(key)
        let r = entity.allRelationships[slot]
        if !r.isToMany { return try object(forKey: key) }
        let objects = try self.objects(forKey: key)
        return r.isOrdered ? objects as Any : Set(objects) as Any
    }

    /// Sets any property from a plain Swift value, checking it against the model.
    ///
    /// ```swift
    /// try book.setValue("Dune", forKey: "title")
    /// try book.setValue(publisher, forKey: "publisher")
    /// try book.setValue(42, forKey: "title") // throws .typeMismatch
    /// ```
    public func setValue(_ value: Any?, forKey key: String) throws {
        if let slot = entity.attributeSlots[key] {
            let attribute = entity.allAttributes[slot]
            guard let v = AttributeValue(any: value) else {
                throw CoreStackError.typeMismatch(
                    entity: entity.name, key: key, expected: attribute.type.xcodeName,
                    got: "a value of type \(type(of: value as Any))")
            }
            return try setAttribute(slot: slot, v)
        }
        let slot = try entity.relationshipSlot(key)
        let r = entity.allRelationships[slot]
        let expected = r.isToMany ? "a collection of \(r.destinationEntityName)" : r.destinationEntityName
        if !r.isToMany {
            if value == nil { return try setObject(nil, forKey: key) }
            guard let object = value as? ManagedObject else {
                throw CoreStackError.typeMismatch(
                    entity: entity.name, key: key, expected: expected, got: "a value of type \(type(of: value as Any))")
            }
            return try setObject(object, forKey: key)
        }
        let objects: [ManagedObject]
        switch value {
        case nil: objects = []
        case let a as [ManagedObject]: objects = a
        case let s as Set<ManagedObject>: objects = Array(s)
        default:
            throw CoreStackError.typeMismatch(
                entity: entity.name, key: key, expected: expected, got: "a value of type \(type(of: value as Any))")
        }
        try setObjects(objects, forKey: key)
    }

    // MARK: Relationships

    /// The destination of a to-one relationship.
    public func object(forKey key: String) throws -> ManagedObject? {
        try object(atRelationshipSlot: try entity.relationshipSlot(key))
    }

    /// The destination of the to-one relationship in `slot` (what the typed wrappers and accessors
    /// read once their key's slot is known).
    @usableFromInline
    final func object(atRelationshipSlot slot: Int) throws -> ManagedObject? {
        guard !entity.allRelationships[slot].isToMany else {
            throw CoreStackError.typeMismatch(
                entity: entity.name, key: entity.allRelationships[slot].name, expected: "a to-many accessor", got: "a to-one access")
        }
        guard let id = try destinationIDs(slot: slot).first else { return nil }
        return try context().object(with: id)
    }

    /// Sets a to-one relationship, keeping the inverse in step.
    public func setObject(_ object: ManagedObject?, forKey key: String) throws {
        try setObject(object, atRelationshipSlot: try entity.relationshipSlot(key))
    }

    /// Sets the to-one relationship in `slot`, keeping the inverse in step.
    @usableFromInline
    final func setObject(_ object: ManagedObject?, atRelationshipSlot slot: Int) throws {
        let r = entity.allRelationships[slot]
        guard !r.isToMany else {
            throw CoreStackError.typeMismatch(
                entity: entity.name, key: r.name, expected: "a collection of \(r.destinationEntityName)", got: "a single object")
        }
        let ctx = try context()
        if let object { try checkDestination(object, slot: slot) }
        let current = try destinationIDs(slot: slot).first
        if current == object?.objectID { return }
        if let current, let old = try? ctx.object(with: current) { try ctx.unlink(self, slot: slot, from: old) }
        if let object { try ctx.link(self, slot: slot, to: object) }
    }

    /// The destinations of a to-many relationship (in order when ordered).
    public func objects(forKey key: String) throws -> [ManagedObject] {
        try objects(atRelationshipSlot: try entity.relationshipSlot(key))
    }

    /// The destinations of the to-many relationship in `slot` (in order when ordered).
    @usableFromInline
    final func objects(atRelationshipSlot slot: Int) throws -> [ManagedObject] {
        let ctx = try context()
        let ids = try destinationIDs(slot: slot)
        ctx.checkQueue()  // once for all of them, not once per destination
        return try ids.map { try ctx.objectOnQueue(with: $0) }
    }

    /// The destination IDs of any relationship, without materialising the destinations.
    public func objectIDs(forRelationshipNamed key: String) throws -> [ManagedObjectID] {
        try destinationIDs(slot: try entity.relationshipSlot(key))
    }

    /// Replaces the destinations of a to-many relationship (in the given order when ordered).
    public func setObjects(_ objects: [ManagedObject], forKey key: String) throws {
        try setObjects(objects, atRelationshipSlot: try entity.relationshipSlot(key))
    }

    /// Replaces the destinations of the to-many relationship in `slot` (in the given order when ordered).
    @usableFromInline
    final func setObjects(_ objects: [ManagedObject], atRelationshipSlot slot: Int) throws {
        let relationships = entity.allRelationships  // read in place, not copied
        guard relationships[slot].isToMany else {
            throw CoreStackError.typeMismatch(
                entity: entity.name, key: relationships[slot].name, expected: relationships[slot].destinationEntityName, got: "a collection")
        }
        for o in objects { try checkDestination(o, slot: slot) }
        let ctx = try context()
        let old = try destinationIDs(slot: slot)
        let newIDs = OrderedSet(objects.map(\.objectID))
        for id in old where !newIDs.contains(id) {
            try ctx.unlink(self, slot: slot, from: try ctx.object(with: id))
        }
        let oldSet = Set(old)
        for o in objects where !oldSet.contains(o.objectID) {
            try ctx.link(self, slot: slot, to: o)
        }
        if relationships[slot].isOrdered, case let .toMany(now) = relations[slot], Array(now) != Array(newIDs) {
            ctx.noteWillChange(self, relationshipSlot: slot)
            relations[slot] = .toMany(newIDs)
            ctx.objectDidChange(self, transientOnly: relationships[slot].isTransient)
        }
    }

    /// Adds destinations to a to-many relationship (at the end when ordered).
    ///
    /// Each added object costs O(1) amortised, whatever the relationship's size.
    ///
    /// ```swift
    /// try shelf.add([dune, emma], toKey: "books")
    /// ```
    public func add(_ objects: [ManagedObject], toKey key: String) throws {
        let slot = try entity.relationshipSlot(key)
        let r = entity.allRelationships[slot]
        guard r.isToMany else {
            throw CoreStackError.typeMismatch(entity: entity.name, key: key, expected: r.destinationEntityName, got: "a collection")
        }
        for o in objects { try checkDestination(o, slot: slot) }
        let ctx = try context()
        for o in objects where try !toManyContains(slot: slot, o.objectID) {
            try ctx.link(self, slot: slot, to: o)
        }
    }

    /// Adds one destination to a to-many relationship.
    public func add(_ object: ManagedObject, toKey key: String) throws { try add([object], toKey: key) }

    /// Removes destinations from a to-many relationship.
    ///
    /// ```swift
    /// try shelf.remove([dune], fromKey: "books")
    /// ```
    public func remove(_ objects: [ManagedObject], fromKey key: String) throws {
        let slot = try entity.relationshipSlot(key)
        let r = entity.allRelationships[slot]
        guard r.isToMany else {
            throw CoreStackError.typeMismatch(entity: entity.name, key: key, expected: r.destinationEntityName, got: "a collection")
        }
        let ctx = try context()
        for o in objects where try toManyContains(slot: slot, o.objectID) {
            try ctx.unlink(self, slot: slot, from: o)
        }
    }

    /// Removes one destination from a to-many relationship.
    public func remove(_ object: ManagedObject, fromKey key: String) throws { try remove([object], fromKey: key) }

    // MARK: Ordered to-many

    /// Inserts a destination at an index of an ordered relationship (moving it there if present).
    public func insert(_ object: ManagedObject, at index: Int, inKey key: String) throws {
        try insert([object], at: IndexSet(integer: index), inKey: key)
    }

    /// Inserts destinations at indexes of an ordered relationship, as `NSMutableOrderedSet.insert(_:at:)`:
    /// the n-th object goes to the n-th index of the final order.
    public func insert(_ objects: [ManagedObject], at indexes: IndexSet, inKey key: String) throws {
        guard objects.count == indexes.count else {
            throw CoreStackError.invalidFetchRequest("insert: \(objects.count) objects for \(indexes.count) indexes in \(entity.name).\(key)")
        }
        var current = try orderedObjects(forKey: key)
        let moving = Set(objects.map(\.objectID))
        current.removeAll { moving.contains($0.objectID) }
        for (object, index) in zip(objects, indexes) {
            guard index >= 0, index <= current.count else {
                throw CoreStackError.invalidFetchRequest("index \(index) out of range 0...\(current.count) in \(entity.name).\(key)")
            }
            current.insert(object, at: index)
        }
        try setObjects(current, forKey: key)
    }

    /// Removes the destination at an index of an ordered relationship.
    public func removeObject(at index: Int, fromKey key: String) throws {
        try removeObjects(at: IndexSet(integer: index), fromKey: key)
    }

    /// Removes the destinations at indexes of an ordered relationship.
    public func removeObjects(at indexes: IndexSet, fromKey key: String) throws {
        let current = try orderedObjects(forKey: key)
        try checkIndexes(indexes, count: current.count, key: key)
        try setObjects(current.enumerated().filter { !indexes.contains($0.offset) }.map(\.element), forKey: key)
    }

    /// Replaces the destination at an index of an ordered relationship.
    public func replaceObject(at index: Int, with object: ManagedObject, inKey key: String) throws {
        try replaceObjects(at: IndexSet(integer: index), with: [object], inKey: key)
    }

    /// Replaces the destinations at indexes of an ordered relationship, one object per index.
    public func replaceObjects(at indexes: IndexSet, with objects: [ManagedObject], inKey key: String) throws {
        var current = try orderedObjects(forKey: key)
        try checkIndexes(indexes, count: current.count, key: key)
        guard objects.count == indexes.count else {
            throw CoreStackError.invalidFetchRequest("replace: \(objects.count) objects for \(indexes.count) indexes in \(entity.name).\(key)")
        }
        for (object, index) in zip(objects, indexes) { current[index] = object }
        var seen = Set<ManagedObjectID>()
        try setObjects(current.filter { seen.insert($0.objectID).inserted }, forKey: key)
    }

    /// Moves the destinations at `indexes` so they start at `destination` (in the final order).
    public func moveObjects(at indexes: IndexSet, to destination: Int, inKey key: String) throws {
        var current = try orderedObjects(forKey: key)
        try checkIndexes(indexes, count: current.count, key: key)
        let moving = indexes.map { current[$0] }
        current = current.enumerated().filter { !indexes.contains($0.offset) }.map(\.element)
        guard destination >= 0, destination <= current.count else {
            throw CoreStackError.invalidFetchRequest("move destination \(destination) out of range in \(entity.name).\(key)")
        }
        current.insert(contentsOf: moving, at: destination)
        try setObjects(current, forKey: key)
    }

    /// Moves one destination of an ordered relationship from one index to another.
    public func moveObject(from source: Int, to destination: Int, inKey key: String) throws {
        try moveObjects(at: IndexSet(integer: source), to: destination, inKey: key)
    }

    // MARK: Changes

    /// The properties changed since the object was fetched or last saved, with their new values.
    ///
    /// ```swift
    /// book.title = "Dune Messiah"
    /// book.changedValues() // ["title": .attribute("Dune Messiah")]
    /// ```
    public func changedValues() -> [String: PropertyValue] {
        guard faultState == .materialized else { return [:] }
        var out: [String: PropertyValue] = [:]
        let base = committed
        for (slot, a) in entity.allAttributes.enumerated() {
            let old = base.map { $0.values[slot] } ?? a.defaultValue
            if base == nil || old != values[slot] {
                if base == nil && values[slot].isNull { continue }
                out[a.name] = .attribute(values[slot])
            }
        }
        for (slot, r) in entity.allRelationships.enumerated() {
            switch relations[slot] {
            case .fault: continue
            case let .toOne(id):
                let old = base.flatMap { slot < $0.toOne.count ? $0.toOne[slot] : nil }
                if old != id { out[r.name] = .toOne(id) }
            case let .toMany(ids):
                let old = committedToMany[slot] ?? []
                if r.isOrdered ? Array(old) != Array(ids) : Set(old) != Set(ids) { out[r.name] = .toMany(Array(ids)) }
            }
        }
        return out
    }

    /// The values of these keys as last fetched or saved (all keys when `keys` is nil).
    public func committedValues(forKeys keys: [String]? = nil) -> [String: PropertyValue] {
        let names = keys ?? entity.propertyNames
        var out: [String: PropertyValue] = [:]
        for key in names {
            if let slot = entity.attributeSlots[key] {
                out[key] = .attribute(committed?.values[slot] ?? .null)
            } else if let slot = entity.relationshipSlots[key] {
                if entity.allRelationships[slot].isToMany {
                    out[key] = .toMany(Array(committedToMany[slot] ?? []))
                } else {
                    out[key] = .toOne(committed.flatMap { slot < $0.toOne.count ? $0.toOne[slot] : nil })
                }
            }
        }
        return out
    }

    // MARK: Helpers

    func context() throws -> ManagedObjectContext {
        guard let c = managedObjectContext else {
            throw CoreStackError.objectNotFound("\(objectID) is not in a context")
        }
        return c
    }

    func checkMutable() throws {
        if changeState == .deleted {
            throw CoreStackError.objectNotFound("\(objectID) was deleted")
        }
    }

    /// The destination IDs of a relationship slot, loading a to-many fault if needed.
    func destinationIDs(slot: Int) throws -> [ManagedObjectID] {
        try fireFault()
        switch relations[slot] {
        case let .toOne(id): return id.map { [$0] } ?? []
        case let .toMany(ids): return Array(ids)
        case .fault:
            return Array(try context().loadToMany(self, slot: slot))
        }
    }

    /// Sets a to-many slot, and its committed state, to destinations just read from the store.
    /// A set of up to 8 is checked for duplicates pair by pair and built without hashing; a
    /// larger one goes through `OrderedSet`'s general initialiser (which drops duplicates).
    ///
    /// ```swift
    /// book.setLoadedToMany(map[book.objectID] ?? [], slot: authorsSlot)
    /// ```
    func setLoadedToMany(_ ids: [ManagedObjectID], slot: Int) {
        let set: OrderedSet<ManagedObjectID>
        if ids.count <= 8, Self.allDistinct(ids) {
            set = OrderedSet(uncheckedUniqueElements: ids)
        } else {
            set = OrderedSet(ids)
        }
        relations[slot] = .toMany(set)
        committedToMany[slot] = set
    }

    /// Whether no two of a few IDs are equal (pairwise: cheaper than hashing for up to ~8).
    private static func allDistinct(_ ids: [ManagedObjectID]) -> Bool {
        for i in ids.indices {
            for j in ids.index(after: i)..<ids.endIndex where ids[i] == ids[j] { return false }
        }
        return true
    }

    /// Changes a to-many slot's destinations in place, loading the fault first; returns what the
    /// change returns. The set is taken out of the slot while it changes, so that (once any
    /// committed copy has been split off) a link costs O(1) amortised, not a copy of the set.
    func mutateToMany(slot: Int, _ change: (inout OrderedSet<ManagedObjectID>) -> Bool) throws -> Bool {
        try fireFault()
        var set: OrderedSet<ManagedObjectID>
        switch relations[slot] {
        case let .toMany(ids): set = ids
        case .fault: set = try context().loadToMany(self, slot: slot)
        case .toOne: return false
        }
        relations[slot] = .fault
        defer { relations[slot] = .toMany(set) }
        return change(&set)
    }

    /// Whether a to-many slot holds a destination, without copying the destinations.
    func toManyContains(slot: Int, _ id: ManagedObjectID) throws -> Bool {
        try fireFault()
        switch relations[slot] {
        case let .toMany(ids): return ids.contains(id)
        case .fault: return try context().loadToMany(self, slot: slot).contains(id)
        case let .toOne(cur): return cur == id
        }
    }

    private func orderedObjects(forKey key: String) throws -> [ManagedObject] {
        let slot = try entity.relationshipSlot(key)
        guard entity.allRelationships[slot].isOrdered else {
            throw CoreStackError.typeMismatch(entity: entity.name, key: key, expected: "an ordered relationship", got: "an index-based change")
        }
        return try objects(forKey: key)
    }

    private func checkIndexes(_ indexes: IndexSet, count: Int, key: String) throws {
        if let bad = indexes.first(where: { $0 < 0 || $0 >= count }) {
            throw CoreStackError.invalidFetchRequest("index \(bad) out of range 0..<\(count) in \(entity.name).\(key)")
        }
    }

    private func checkDestination(_ object: ManagedObject, slot: Int) throws {
        let dest = entity.destinations[slot]
        // The usual case first: the destination entity itself, no walk up its parents.
        guard object.entity === dest || object.entity.isKind(of: dest) else {
            throw CoreStackError.typeMismatch(
                entity: entity.name, key: entity.allRelationships[slot].name, expected: dest.name,
                got: "a \(object.entity.name)")
        }
        guard object.managedObjectContext === managedObjectContext else {
            throw CoreStackError.wrongContext("\(object.objectID) belongs to another context than \(objectID)")
        }
    }
}
