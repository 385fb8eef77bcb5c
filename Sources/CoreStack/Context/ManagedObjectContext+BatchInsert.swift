import Foundation

extension ManagedObjectContext {
    /// Runs a batch insert straight into the store (one transaction, no object made, no row
    /// cached) and returns the new objects' IDs as inserted (and the destinations of one-to-many
    /// relationships it set as updated), for ``mergeChanges(fromRemoteContextSave:into:)``.
    /// `executeBatchInsert(_:)` returns the IDs in the request's order.
    ///
    /// ```swift
    /// let changes = try context.execute(BatchInsertRequest(entityName: "Genre", objects: [["name": "Poetry"]]))
    /// ```
    /// - Throws: as `executeBatchInsert(_:)`; nothing is inserted then.
    public func execute(_ request: BatchInsertRequest) throws -> SavedObjectIDs {
        try executeBatchInsert(request).changes
    }

    /// Runs a batch insert straight into the store (one transaction, no object made, no row
    /// cached) and returns the new objects' IDs in the request's order, so that a later request
    /// can point relationships at them.
    ///
    /// ```swift
    /// let publisher = try context.executeBatchInsert(BatchInsertRequest(entityName: "Publisher", objects: [["name": "Lac"]]))
    /// let books = try context.executeBatchInsert(BatchInsertRequest(
    ///     entityName: "Book", objects: [["title": "Atlas"], ["title": "Fjord"]],
    ///     relationships: [["publisher": publisher.objectIDs], ["publisher": publisher.objectIDs]]))
    /// books.objectIDs.count   // 2, in the order of the objects
    /// ```
    /// - Throws: ``CoreStackError/unknownKey(entity:key:)`` for a key that is not an attribute (in
    ///   ``BatchInsertRequest/objects`` or ``BatchInsertRequest/columns``) or a relationship (in
    ///   ``BatchInsertRequest/relationships``),
    ///   ``CoreStackError/typeMismatch(entity:key:expected:got:)`` for a value of the wrong type, a
    ///   destination of the wrong entity or more than one destination for a to-one, or a
    ///   reserved ID (``BatchInsertRequest/objectIDs``) of another entity,
    ///   ``CoreStackError/objectNotFound(_:)`` for a temporary destination ID,
    ///   ``CoreStackError/validation(entity:property:objectID:reason:)`` for a required attribute
    ///   left without a value or a reserved ID the store already has a row for (one reserved ID
    ///   given to two inserts), ``CoreStackError/invalidModel(entity:property:reason:)`` for an
    ///   abstract entity, ``CoreStackError/invalidFetchRequest(_:)`` for more relationship
    ///   dictionaries than objects, a number of reserved IDs other than the number of objects, a
    ///   column named twice or a row of another width than the columns (the message names the row
    ///   and both widths), or a to-one whose inverse is ordered and whose destination is not
    ///   inserted in the same call; nothing is inserted then.
    @discardableResult
    public func executeBatchInsert(_ request: BatchInsertRequest) throws -> BatchInsertResult {
        try executeBatchInsert([request])[0]
    }

    /// Runs several batch inserts as one save: one transaction, all or nothing (when one request
    /// is refused, or the store refuses the save, nothing of any of them is written). Returns one
    /// result per request, in order.
    ///
    /// With IDs reserved beforehand (``reserveObjectIDs(forEntityName:count:)``,
    /// ``BatchInsertRequest/objectIDs``), the requests can point relationships at each other's
    /// objects. A to-many whose inverse is a to-one and whose destinations are all inserted in
    /// this call is written in the destinations' own rows (foreign key and, for an ordered one,
    /// order key in their INSERT; they do not count as updated). A to-one whose inverse is an
    /// ordered to-many may be set when its destination is inserted in the same call: the object
    /// then comes after the ones that destination lists, in the order of the requests and rows.
    ///
    /// ```swift
    /// let book = try context.reserveObjectIDs(forEntityName: "Book", count: 1)
    /// let chapters = try context.reserveObjectIDs(forEntityName: "Chapter", count: 2)
    /// try context.executeBatchInsert([
    ///     BatchInsertRequest(entityName: "Chapter", objects: [["title": "Two"], ["title": "One"]], objectIDs: chapters),
    ///     BatchInsertRequest(entityName: "Book", objects: [["title": "Atlas"]],
    ///                        relationships: [["chapters": [chapters[1], chapters[0]]]], objectIDs: book),
    /// ])
    /// ```
    /// - Throws: as the single-request `executeBatchInsert(_:)`; nothing is inserted then.
    @discardableResult
    public func executeBatchInsert(_ requests: [BatchInsertRequest]) throws -> [BatchInsertResult] {
        checkQueue()
        let store = try persistentStoreCoordinator.requireStore()
        // Everything is checked before any key is taken or any row written.
        var prepared: [PreparedBatchInsert] = []
        prepared.reserveCapacity(requests.count)
        for request in requests { prepared.append(try prepareBatchInsert(request)) }

        let token = StoreIdentifiers.token(for: store.identifier)
        var inserted: [StoreRowChange] = []
        inserted.reserveCapacity(prepared.reduce(0) { $0 + $1.rows.count })
        var ranges: [Range<Int>] = []
        for n in prepared.indices {
            let entity = prepared[n].entity
            let ids: [ManagedObjectID]
            if let reserved = prepared[n].objectIDs {
                ids = reserved
            } else {
                ids = try store.newPrimaryKeys(for: entity, count: prepared[n].rows.count).map {
                    ManagedObjectID(entity: entity, storeToken: token, primaryKey: $0)
                }
            }
            let noDestinations = [ManagedObjectID?](repeating: nil, count: entity.allRelationships.count)
            let start = inserted.count
            let rows = prepared[n].rows, links = prepared[n].links
            prepared[n].rows = []
            prepared[n].links = []
            for (i, (values, id)) in zip(rows, ids).enumerated() {
                inserted.append(StoreRowChange(
                    objectID: id, values: values, toOne: i < links.count ? links[i].toOne : noDestinations, expectedVersion: 0,
                    toMany: i < links.count ? links[i].toMany : []))
            }
            ranges.append(start..<inserted.count)
        }
        let updated = try linkRowsInsertedTogether(&inserted)
        _ = try store.save(StoreSaveRequest(inserted: inserted))
        if !updated.isEmpty { persistentStoreCoordinator.forgetRows(updated) }
        return ranges.map { range in
            let ids = inserted[range].map(\.objectID)
            let ownUpdated = Set(inserted[range].flatMap { $0.toMany.filter(\.writesDestinationKeys).flatMap(\.current) })
            return BatchInsertResult(objectIDs: ids, updatedObjectIDs: Array(ownUpdated))
        }
    }

    /// Reserves `count` permanent IDs for new objects of an entity, as Core Data's coordinator
    /// does: the store raises the entity's last primary key (`Z_MAX` in `Z_PRIMARYKEY`, shared by
    /// the entity's whole inheritance tree) in a transaction of its own, so no later save or
    /// reservation hands them out again. Give them to ``BatchInsertRequest/objectIDs`` to insert
    /// objects under them, and point relationships at them before they exist.
    ///
    /// ```swift
    /// let ids = try context.reserveObjectIDs(forEntityName: "Book", count: 1_000)
    /// ids.count            // 1000, ascending, above every key the store gave out before
    /// ```
    /// - Throws: ``CoreStackError/unknownEntity(_:)`` for an entity the model lacks,
    ///   ``CoreStackError/invalidModel(entity:property:reason:)`` for an abstract one,
    ///   ``CoreStackError/invalidFetchRequest(_:)`` for a negative count,
    ///   ``CoreStackError/noStore(_:)`` when the coordinator has no store.
    public func reserveObjectIDs(forEntityName entityName: String, count: Int) throws -> [ManagedObjectID] {
        checkQueue()
        let entity = try model.requireEntity(entityName)
        if entity.isAbstract {
            throw CoreStackError.invalidModel(entity: entity.name, property: nil, reason: "an abstract entity cannot have instances")
        }
        guard count >= 0 else { throw CoreStackError.invalidFetchRequest("cannot reserve \(count) IDs of \(entity.name)") }
        let store = try persistentStoreCoordinator.requireStore()
        let token = StoreIdentifiers.token(for: store.identifier)
        return try store.newPrimaryKeys(for: entity, count: count).map {
            ManagedObjectID(entity: entity, storeToken: token, primaryKey: $0)
        }
    }

    /// One request checked: its rows by attribute slot, the relationships of each, its reserved IDs.
    private struct PreparedBatchInsert {
        let entity: EntityDescription
        var rows: [[AttributeValue]]
        var links: [(toOne: [ManagedObjectID?], toMany: [ToManyChange])]
        let objectIDs: [ManagedObjectID]?
    }

    /// Checks one request (values, relationships, reserved IDs) without touching the store.
    private func prepareBatchInsert(_ request: BatchInsertRequest) throws -> PreparedBatchInsert {
        let entity = try model.requireEntity(request.entityName)
        if entity.isAbstract {
            throw CoreStackError.invalidModel(entity: entity.name, property: nil, reason: "an abstract entity cannot have instances")
        }
        let count = request.objectCount
        guard request.relationships.count <= count else {
            throw CoreStackError.invalidFetchRequest(
                "a batch insert of \(entity.name) has \(request.relationships.count) relationship dictionaries for \(count) objects")
        }
        var reserved: [ManagedObjectID]?
        if let given = request.objectIDs {
            guard given.count == count else {
                throw CoreStackError.invalidFetchRequest(
                    "a batch insert of \(entity.name) has \(given.count) reserved object IDs for \(count) objects")
            }
            var ids: [ManagedObjectID] = []
            ids.reserveCapacity(given.count)
            for id in given {
                let id = persistentStoreCoordinator.canonicalID(id)
                guard id.entity === entity else {
                    throw CoreStackError.typeMismatch(entity: entity.name, key: "objectIDs", expected: entity.name, got: id.entity.name)
                }
                guard !id.isTemporaryID else {
                    throw CoreStackError.objectNotFound("\(id) is temporary: a batch insert takes reserved permanent IDs only")
                }
                ids.append(id)
            }
            reserved = ids
        }
        var rows: [[AttributeValue]] = []
        rows.reserveCapacity(count)
        switch request.payload {
        case .objects(let objects):
            // The required attributes, found once per request rather than once per row.
            let required = entity.allAttributes.indices.filter { !entity.allAttributes[$0].isOptional && !entity.allAttributes[$0].isTransient }
            for (n, object) in objects.enumerated() {
                var values = entity.defaultValues
                for (key, value) in object {
                    guard let slot = entity.attributeSlots[key] else { throw CoreStackError.unknownKey(entity: entity.name, key: key) }
                    values[slot] = try BatchInsertColumns.coerce(value, to: entity.attributeTypes[slot], key: key, of: entity)
                }
                try BatchInsertColumns.checkRequired(values, slots: required, of: entity, row: n)
                rows.append(values)
            }
        case .rows(let names, let given):
            // Names to slots and types once; each row then only coerces and stores its values.
            let columns = try BatchInsertColumns(names, of: entity)
            for (n, row) in given.enumerated() { rows.append(try columns.values(of: row, row: n)) }
        }
        let noDestinations = [ManagedObjectID?](repeating: nil, count: entity.allRelationships.count)
        var links: [(toOne: [ManagedObjectID?], toMany: [ToManyChange])] = []
        links.reserveCapacity(request.relationships.count)
        for object in request.relationships {
            var toOne = noDestinations
            var toMany: [ToManyChange] = []
            for (name, destinations) in object {
                try batchInsertRelationship(name, of: entity, destinations: destinations, toOne: &toOne, toMany: &toMany)
            }
            links.append((toOne, toMany))
        }
        return PreparedBatchInsert(entity: entity, rows: rows, links: links, objectIDs: reserved)
    }

    /// Checks one relationship of one batch-inserted object and records where it goes: the row's
    /// foreign key (`toOne`), or a to-many change (join rows, or the destinations' foreign keys).
    private func batchInsertRelationship(
        _ name: String, of entity: EntityDescription, destinations: [ManagedObjectID],
        toOne: inout [ManagedObjectID?], toMany: inout [ToManyChange]
    ) throws {
        guard let slot = entity.relationshipSlots[name], !entity.allRelationships[slot].isTransient else {
            throw CoreStackError.unknownKey(entity: entity.name, key: name)
        }
        let relationship = entity.allRelationships[slot]
        let destination = entity.destinations[slot]
        var ids: [ManagedObjectID] = []
        ids.reserveCapacity(destinations.count)
        for id in destinations {
            let id = persistentStoreCoordinator.canonicalID(id)
            guard !id.isTemporaryID else {
                throw CoreStackError.objectNotFound("\(id) is temporary: a batch insert links to saved objects only")
            }
            guard id.entity.isKind(of: destination) else {
                throw CoreStackError.typeMismatch(entity: entity.name, key: name, expected: destination.name, got: id.entity.name)
            }
            ids.append(id)
        }
        if !relationship.isToMany {
            guard ids.count <= 1 else {
                throw CoreStackError.typeMismatch(entity: entity.name, key: name, expected: "at most one \(destination.name)", got: "\(ids.count) objects")
            }
            // A to-one whose inverse is ordered is checked once every row of the call is known
            // (`linkRowsInsertedTogether`): its destination must be one of them.
            toOne[slot] = ids.first
            return
        }
        // The inverse by slot (`inverseRelationship(of:)` would look the name up again).
        let ownsForeignKeys = entity.inverseSlots[slot].map { !destination.allRelationships[$0].isToMany } ?? false
        toMany.append(ToManyChange(slot: slot, current: ids, added: ids, removed: [], writesDestinationKeys: ownsForeignKeys))
    }

    /// Links the rows of one batch-insert call to each other and returns the existing objects the
    /// call updates.
    ///
    /// A to-one whose inverse is an ordered to-many joins its destination's list (the destination
    /// must be inserted in this call); a to-many kept by the destinations' foreign keys whose
    /// destinations are all inserted in this call sets those rows' foreign keys itself (so their
    /// INSERTs write the keys, and the order keys, as a context's save does) instead of updating
    /// them afterwards.
    private func linkRowsInsertedTogether(_ inserted: inout [StoreRowChange]) throws -> Set<ManagedObjectID> {
        var position: [ManagedObjectID: Int] = [:]
        func positions() -> [ManagedObjectID: Int] {
            if position.isEmpty {
                position.reserveCapacity(inserted.count)
                for (n, change) in inserted.enumerated() { position[change.objectID] = n }
            }
            return position
        }
        // To-ones with an ordered inverse: appended to the destination's list, in row order.
        for n in inserted.indices {
            let entity = inserted[n].objectID.entity
            for slot in entity.allRelationships.indices {
                guard slot < inserted[n].toOne.count, let dest = inserted[n].toOne[slot],
                    let inverseSlot = entity.inverseSlots[slot]
                else { continue }
                let inverse = entity.destinations[slot].allRelationships[inverseSlot]
                guard inverse.isOrdered else { continue }
                guard let d = positions()[dest] else {
                    throw CoreStackError.invalidFetchRequest(
                        "a batch insert cannot set \(entity.name).\(entity.allRelationships[slot].name) to \(dest): its inverse "
                            + "\(inverse.name) is ordered and that object is not inserted in the same call; set the ordered to-many instead")
                }
                let member = inserted[n].objectID
                if let k = inserted[d].toMany.firstIndex(where: { $0.slot == inverseSlot }) {
                    if !inserted[d].toMany[k].current.contains(member) {
                        inserted[d].toMany[k].current.append(member)
                        inserted[d].toMany[k].added.append(member)
                    }
                } else {
                    inserted[d].toMany.append(ToManyChange(
                        slot: inverseSlot, current: [member], added: [member], removed: [], writesDestinationKeys: true))
                }
            }
        }
        // To-manys kept by foreign keys whose destinations are all rows of this call.
        var updated: Set<ManagedObjectID> = []
        for n in inserted.indices where !inserted[n].toMany.isEmpty {
            let source = inserted[n].objectID
            for k in inserted[n].toMany.indices where inserted[n].toMany[k].writesDestinationKeys {
                let change = inserted[n].toMany[k]
                guard let inverseSlot = source.entity.inverseSlots[change.slot] else { continue }
                let rows = change.current.map { positions()[$0] }
                guard rows.allSatisfy({ $0 != nil }) else {
                    updated.formUnion(change.current)
                    continue
                }
                for case let d? in rows where inverseSlot < inserted[d].toOne.count {
                    inserted[d].toOne[inverseSlot] = source
                }
                inserted[n].toMany[k].writesDestinationKeys = false
            }
        }
        return updated
    }
}
