import Foundation

extension ManagedObjectContext {
    /// Throws ``CoreStackError/constraintConflict(_:)`` when saving would give two rows of an
    /// entity (sub-entities included) the same values for one of its uniqueness constraints: two
    /// objects of the save, or one of them and another stored row. Checked before anything is
    /// written, under any merge policy (the trump, overwrite and rollback policies have merged
    /// what they can before: ``resolveUniquenessConflicts()``; this check catches what is left). A
    /// stored row counts with its stored values even when this save changes or deletes it, as the
    /// store writes it: inserts and updates go before deletes and SQLite checks each row as it is
    /// written, so two objects swapping their values, or a row deleted and its value inserted
    /// again in one save, are conflicts (save in two steps).
    ///
    /// A model without constraints costs nothing; for an entity with some, the stored rows are
    /// read in SQL by the constraint's first property, 500 values per query. Constraints naming anything but
    /// stored attributes are left to the store (an SQLite store's unique index refuses them).
    func checkUniquenessConstraints(inserted: [ManagedObject], updated: [ManagedObject], deleted: [ManagedObject]) throws {
        let conflicts = try uniquenessConflicts(inserted: inserted, updated: updated)
        if !conflicts.isEmpty { throw CoreStackError.constraintConflict(conflicts) }
    }

    /// The uniqueness conflicts saving these objects would meet (see
    /// ``checkUniquenessConstraints(inserted:updated:deleted:)``).
    func uniquenessConflicts(inserted: [ManagedObject], updated: [ManagedObject]) throws -> [ConstraintConflict] {
        guard persistentStoreCoordinator.managedObjectModel.hasUniquenessConstraints else { return [] }
        // Objects of the save by the entity that declares each constraint (an entity inherits its
        // parent's constraints, which span the whole hierarchy).
        var byDeclaringEntity: [ObjectIdentifier: (entity: EntityDescription, objects: [ManagedObject])] = [:]
        var order: [ObjectIdentifier] = []
        for o in [inserted, updated].joined() {
            var e: EntityDescription? = o.entity
            while let entity = e {
                if !entity.uniquenessConstraints.isEmpty {
                    let key = ObjectIdentifier(entity)
                    if byDeclaringEntity[key] == nil {
                        byDeclaringEntity[key] = (entity, [])
                        order.append(key)
                    }
                    byDeclaringEntity[key]?.objects.append(o)
                }
                e = entity.superentity
            }
        }
        guard !order.isEmpty else { return [] }
        var conflicts: [ConstraintConflict] = []
        for key in order {
            guard let (entity, objects) = byDeclaringEntity[key] else { continue }
            for constraint in entity.uniquenessConstraints {
                guard let slots = Self.attributeSlots(constraint, of: entity) else { continue }
                conflicts += try constraintConflicts(entity: entity, constraint: constraint, slots: slots, objects: objects)
            }
        }
        return conflicts
    }

    /// The attribute slots of a constraint's properties (in the declaring entity, whose slots
    /// its sub-entities share), or nil when one is not a stored attribute.
    static func attributeSlots(_ constraint: [String], of entity: EntityDescription) -> [Int]? {
        guard !constraint.isEmpty else { return nil }
        var slots: [Int] = []
        for name in constraint {
            guard let slot = entity.attributeSlots[name], !entity.allAttributes[slot].isTransient else { return nil }
            slots.append(slot)
        }
        return slots
    }

    private func constraintConflicts(
        entity: EntityDescription, constraint: [String], slots: [Int], objects: [ManagedObject]
    ) throws -> [ConstraintConflict] {
        // The save's own objects by their values (a nil value never conflicts, as in SQL).
        var groups: [[AttributeValue]: [ManagedObject]] = [:]
        var keys: [[AttributeValue]] = []
        for o in objects {
            let values = slots.map { o.values.indices.contains($0) ? o.values[$0] : .null }
            if values.contains(where: \.isNull) { continue }
            if groups[values] == nil { keys.append(values) }
            groups[values, default: []].append(o)
        }
        guard !keys.isEmpty else { return [] }
        // Stored rows holding those values, other than the objects holding them in this save.
        var stored: [[AttributeValue]: ManagedObjectID] = [:]
        let firstValues = keys.map { $0[0] }
        var start = 0
        while start < firstValues.count {
            let chunk = firstValues[start..<min(start + 500, firstValues.count)]
            start += 500
            let predicate = Predicate.comparison(Comparison(.keyPath(constraint[0]), .in, .list(chunk.map { .constant($0) })))
            let (ids, columns) = try persistentStoreCoordinator.fetchObjectIDColumns(
                StoreFetchRequest(entity: entity, predicate: predicate), valuesAt: slots)
            for (row, id) in ids.enumerated() {
                let values = columns.map { $0[row] }
                guard stored[values] == nil, let holders = groups[values], !holders.contains(where: { $0.objectID == id }) else { continue }
                stored[values] = id
            }
        }
        var out: [ConstraintConflict] = []
        for values in keys {
            let holders = groups[values] ?? []
            let row = stored[values]
            guard holders.count > 1 || row != nil else { continue }
            out.append(ConstraintConflict(
                entity: entity.name, properties: constraint, values: values, objectIDs: holders.map(\.objectID), databaseObjectID: row))
        }
        return out
    }
}
