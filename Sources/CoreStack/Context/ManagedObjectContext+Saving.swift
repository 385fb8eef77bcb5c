import Foundation
import OrderedCollections

extension ManagedObjectContext {
    /// Saves the context's changes: into the parent for a child context, into the store in one
    /// transaction for a root context. Validates first; on error nothing is saved and the
    /// changes stay in the context.
    ///
    /// A child makes the parent's copies of its inserted objects on its own queue (their
    /// `init(entity:objectID:)` runs there, with no context yet), then hands everything over in
    /// one block on the parent's queue: the parent (a main-queue context, say) is held only for
    /// that step and never shows part of the save.
    ///
    /// ```swift
    /// book.title = "Dune"
    /// try context.save()
    /// ```
    public func save() throws {
        checkQueue()
        lastSaveMergeResolutions = []
        lastSaveReplacedParentChanges = []
        let announcedFirst = announcePendingChanges()
        guard hasChanges else { return }
        postWillSave()
        let announcedSecond = announcePendingChanges()
        // A root context's merge policy merges objects that would break a uniqueness constraint
        // (the context's objectsDidChange announces the duplicates' removal before the save).
        let uniqueness = parent == nil ? try resolveUniquenessConflicts() : UniquenessMerges()
        let merged = uniqueness.changed
        do {
            try saveMerged(announcedFirst: announcedFirst, announcedSecond: announcedSecond, uniqueness: uniqueness)
        } catch {
            // A save that fails after merging leaves the context as it was before the merges.
            if merged { uniqueness.restore(in: self) }
            throw error
        }
    }

    /// The rest of ``save()`` once uniqueness conflicts are merged: validation, the write (or the
    /// push to the parent), the settling and the did-save.
    private func saveMerged(announcedFirst: Set<ManagedObject>, announcedSecond: Set<ManagedObject>, uniqueness: UniquenessMerges) throws {
        let merged = uniqueness.changed
        var announcedSecond = announcedSecond
        if merged { announcedSecond = announcePendingChanges() }
        let inserted = insertedObjects.values
        var updated = updatedObjects.values
        var deleted = deletedObjects.values
        // A root save gathers the inserts to promote to permanent IDs in the same pass.
        let temporaries = try validate(deleted: deleted, inserted: inserted, updated: updated, gatheringTemporaries: parent == nil)
        // The did-save's inserted set: the one objectsDidChange just announced when that is
        // exactly the objects saved as inserted (the usual "insert, then save"), else made anew.
        let announced = merged ? [] : announcedSecond.isEmpty ? announcedFirst : announcedFirst.isEmpty ? announcedSecond : []
        // Asked of each insert in turn (equal counts, so the same test as each announced object
        // being inserted): a look-up hashes the object's address and never reads the object, where
        // walking the set read every object's set positions, in hash order, a cache miss each.
        let insertedSet = announced.count == inserted.count && inserted.allSatisfy({ announced.contains($0) }) ? announced : Set(inserted)
        // Settle: everything saved is now committed. A root context settles each object as the
        // coordinator caches its new row (one pass); a child as its parent took the changes.
        var resolutions: [MergeResolution] = []
        var replaced: [ParentChangeReplacement] = []
        // The inserted objects' IDs, when the promotion collected them as it went.
        var insertedIDs: [ManagedObjectID]?
        if parent != nil {
            replaced = try pushToParent(inserted: inserted, updated: updated, deleted: deleted)
            for objects in [inserted, updated] {
                for o in objects { Self.settle(o, as: o.currentSnapshot()) }
            }
        } else {
            // The policy may have dropped changes (rollback) or whole objects (deleted in the
            // store): what was saved is what is left.
            (resolutions, updated, deleted, insertedIDs) = try saveToStore(
                inserted: inserted, updated: updated, deleted: deleted, temporaries: consume temporaries,
                uniquenessCheckedAt: uniqueness.checkedAtGeneration)
            // The uniqueness merges first (they came first), with their survivors as saved.
            if merged { resolutions = uniqueness.resolutions() + resolutions }
        }
        for o in deleted {
            registered[o.objectID] = nil
            o.managedObjectContext = nil
            o.changeState = .clean
        }
        insertedObjects.removeAll()
        updatedObjects.removeAll()
        deletedObjects.removeAll()
        let insertedIDSet = insertedIDs != nil ? Self.idSet(draining: &insertedIDs!) : Self.objectIDs(of: inserted)
        let saved = ContextDidSave(
            context: self, inserted: insertedSet, updated: Set(updated), deleted: Set(deleted),
            objectIDs: SavedObjectIDs(
                inserted: insertedIDSet, updated: Self.objectIDs(of: updated),
                deleted: Self.objectIDs(of: deleted)),
            mergeResolutions: resolutions, replacedParentChanges: replaced)
        lastSaveMergeResolutions = resolutions
        lastSaveReplacedParentChanges = replaced
        postDidSave(saved)
    }

    /// Marks a saved object clean with `snapshot` as its committed state.
    private static func settle(_ o: ManagedObject, as snapshot: RowSnapshot) {
        o.materialized.settle(as: snapshot)
        o.changeState = .clean
    }

    /// The IDs of `objects`, hashed straight into a set of the right size.
    ///
    ///
    /// The IDs are copied out in order first (each copy retains its entity), then moved into the
    /// set, which retains and releases nothing: hashing 100,000 IDs writes all over the set's
    /// memory, and an atomic retain or release right after such a write waits for it. (With
    /// `insert(_:)` in the loop, which also hands back a retained copy of the member it stored,
    /// this took ~3 % of saving 100,000 new objects.)
    private static func objectIDs(of objects: [ManagedObject]) -> Set<ManagedObjectID> {
        var ids = objects.map { $0.objectID }
        return idSet(draining: &ids)
    }

    /// The IDs moved out of `ids` (left empty) into a set of the right size (see
    /// ``objectIDs(of:)``); `ids` should be the only reference to its array, or popping copies it.
    private static func idSet(draining ids: inout [ManagedObjectID]) -> Set<ManagedObjectID> {
        var set = Set<ManagedObjectID>(minimumCapacity: ids.count)
        while let id = ids.popLast() { set.update(with: consume id) }
        return set
    }

    // MARK: Root save

    /// Writes the changes in one transaction and settles the saved objects with their new rows.
    /// `temporaries` are the inserts with temporary IDs (gathered by validation), let go once
    /// they are promoted (two arrays the size of the save, not kept through the write). Returns
    /// what the merge policy did when the store reported conflicts, the updated and deleted
    /// objects that were saved (those whose changes the policy dropped are left out), and the
    /// inserted objects' IDs, in order, when every insert was promoted here (the permanent IDs the
    /// coordinator gave, which each object took: no walk over the objects to read them again).
    private func saveToStore(
        inserted: [ManagedObject], updated: [ManagedObject], deleted: [ManagedObject], temporaries: consuming TemporaryInserts,
        uniquenessCheckedAt: UInt64?
    ) throws -> (resolutions: [MergeResolution], updated: [ManagedObject], deleted: [ManagedObject], insertedIDs: [ManagedObjectID]?) {
        let coordinator = persistentStoreCoordinator
        let store = try coordinator.requireStore()
        if store.isReadOnly { throw CoreStackError.readOnlyStore(store.url?.path ?? "store") }
        // Objects keep their permanent IDs even if the save fails (as in Core Data).
        // When every insert is promoted (the usual case), each one's row change for the first
        // attempt is made in the promotion's walk, once its references are rewritten, rather than
        // in a walk of its own.
        var firstChanges: [StoreRowChange]?
        var insertedIDs: [ManagedObjectID]?
        if !inserted.isEmpty && temporaries.objects.count == inserted.count {
            var changes: [StoreRowChange] = []
            changes.reserveCapacity(inserted.count)
            insertedIDs = try promoteToPermanentIDs(temporaries.objects, from: temporaries.ids, rewritingReferencesIn: updated) { _, o in
                changes.append(Self.rowChange(of: o, version: 0, coordinator: coordinator))
            }
            firstChanges = consume changes
        } else {
            try promoteToPermanentIDs(temporaries.objects, from: temporaries.ids, rewritingReferencesIn: updated)
        }
        _ = consume temporaries
        // A built-in policy runs only framework code, so every attempt runs under the
        // coordinator's save lock: after a conflict no other context of this coordinator can
        // write before the retry, which then conflicts only with other connections' commits. A
        // custom policy's closure is user code and runs with the lock released.
        let saved: (resolutions: [MergeResolution], updated: [ManagedObject], deleted: [ManagedObject])
        if case .custom = mergePolicy {
            saved = try saveAttempts(
                inserted: inserted, updated: updated, deleted: deleted, firstChanges: firstChanges.take(), savesHeld: false,
                uniquenessCheckedAt: uniquenessCheckedAt)
        } else {
            saved = try coordinator.holdingSaves {
                // Moved in, not copied: the store moves each row's arrays out of the request, which
                // would copy the whole array of changes were a second reference to it kept here.
                try saveAttempts(
                    inserted: inserted, updated: updated, deleted: deleted, firstChanges: firstChanges.take(), savesHeld: true,
                    uniquenessCheckedAt: uniquenessCheckedAt)
            }
        }
        return (saved.resolutions, saved.updated, saved.deleted, insertedIDs)
    }

    /// Tries the save, applying the merge policy after each conflict, at most four times.
    ///
    /// An updated object whose row would be written as it is stored (changed and changed back,
    /// or its changes rolled back by the policy) is not written, and a save left with no row to
    /// write writes nothing: no row version goes up, no history transaction is recorded, no
    /// other process is told of a change.
    ///
    /// `firstChanges`, when given, are the inserted objects' row changes made already (parallel
    /// to `inserted`), for the first attempt; a later attempt makes them anew.
    private func saveAttempts(
        inserted: [ManagedObject], updated: [ManagedObject], deleted: [ManagedObject], firstChanges: consuming [StoreRowChange]?,
        savesHeld: Bool, uniquenessCheckedAt: UInt64?
    ) throws -> (resolutions: [MergeResolution], updated: [ManagedObject], deleted: [ManagedObject]) {
        let coordinator = persistentStoreCoordinator
        // The merging before found no conflict left, and no save of this coordinator came since
        // (with a built-in policy, none can come now: the save lock is held): not asked again.
        if uniquenessCheckedAt == nil || uniquenessCheckedAt != coordinator.storeGeneration {
            try checkUniquenessConstraints(inserted: inserted, updated: updated, deleted: deleted)
        }
        var updated = updated, deleted = deleted
        var attempts = 0
        // By object, in the order first met; a later attempt's resolution replaces an earlier one.
        var resolutions: [MergeResolution] = []
        var position: [ManagedObjectID: Int] = [:]
        while true {
            attempts += 1
            if attempts > 1 {
                // The policy took these out of the save (rolled back, or gone from the store).
                updated = updated.filter { updatedObjects.contains($0) }
                deleted = deleted.filter { deletedObjects.contains($0) }
            }
            let written = updated.filter(Self.hasRowChanges)
            let unchanged = written.count == updated.count ? [] : updated.filter { !Self.hasRowChanges($0) }
            let request = storeSaveRequest(inserted: inserted, updated: written, deleted: deleted, insertedChanges: firstChanges.take())
            do {
                try coordinator.save(request, savesHeld: savesHeld) { i, snapshot in
                    Self.settle(i < inserted.count ? inserted[i] : written[i - inserted.count], as: snapshot)
                }
                for o in unchanged {
                    if let committed = o.committed { Self.settle(o, as: committed) } else { o.changeState = .clean }
                }
                return (resolutions, updated, deleted)
            } catch let CoreStackError.mergeConflict(reported) {
                let fresh = try coordinator.refreshSnapshots(for: reported.map(\.objectID))
                let conflicts = reported.map { describe($0, fresh: fresh) }
                guard mergePolicy != .error, attempts < 4 else { throw CoreStackError.mergeConflict(conflicts) }
                for r in try resolve(conflicts, fresh: fresh) {
                    if let i = position[r.conflict.objectID] {
                        resolutions[i] = r
                    } else {
                        position[r.conflict.objectID] = resolutions.count
                        resolutions.append(r)
                    }
                }
            }
        }
    }

    /// Whether saving `o` (an updated object) would write anything: a value, a to-one or a
    /// to-many that differs from its committed row. One array compare in the usual case (the
    /// values array is shared with the committed snapshot until a value is set).
    private static func hasRowChanges(_ o: ManagedObject) -> Bool {
        guard let committed = o.committed, !o.isFault else { return true }
        if o.values != committed.values { return true }
        for (slot, rel) in o.relations.enumerated() {
            switch rel {
            case let .toOne(id):
                let stored = slot < committed.toOne.count ? committed.toOne[slot] : nil
                if id != stored { return true }
            case let .toMany(set):
                if o.entity.allRelationships[slot].isTransient { continue }
                if (o.committedToMany[slot] ?? []) != set { return true }
            case .fault:
                continue
            }
        }
        return false
    }

    /// A conflict as the store reported it, with the context's, cached and store snapshots (the
    /// store's read right after the failed transaction, with its version).
    private func describe(_ conflict: MergeConflict, fresh: [ManagedObjectID: RowSnapshot]) -> MergeConflict {
        let id = conflict.objectID
        let o = registeredObject(for: id)
        let row = fresh[id]
        return MergeConflict(
            objectID: id, expectedVersion: conflict.expectedVersion, storeVersion: row?.version ?? 0,
            objectSnapshot: o.flatMap { $0.isFault ? nil : Self.propertySnapshot($0.currentSnapshot(), entity: $0.entity) } ?? [:],
            cachedSnapshot: o?.committed.map { Self.propertySnapshot($0, entity: id.entity) } ?? [:],
            persistedSnapshot: row.map { Self.propertySnapshot($0, entity: id.entity) })
    }

    /// A row as a snapshot keyed by property name: stored attributes, and to-one relationships as
    /// object IDs.
    static func propertySnapshot(_ row: RowSnapshot, entity: EntityDescription) -> [String: PropertyValue] {
        var out: [String: PropertyValue] = [:]
        for (slot, a) in entity.allAttributes.enumerated() where !a.isTransient && slot < row.values.count {
            out[a.name] = .attribute(row.values[slot])
        }
        for (slot, r) in entity.allRelationships.enumerated() where !r.isToMany && !r.isTransient {
            out[r.name] = .toOne(slot < row.toOne.count ? row.toOne[slot] : nil)
        }
        return out
    }

    /// Gives `objects` (registered here, with the temporary IDs `temporary`, parallel) permanent
    /// IDs from the store, and rewrites every reference to their old IDs held by the objects
    /// themselves and by `holders`.
    ///
    /// Each object is moved in the registry and has its references rewritten in one visit (one
    /// walk over the objects, not two), and `visit` then sees it there, promoted and rewritten,
    /// with its index; `holders` are rewritten after that walk (an object among them too is
    /// rewritten twice, the second time finding nothing to do). Only objects holding
    /// relationships can refer to the old IDs: each is rewritten where it stands (no list of
    /// holders made), its fields in one access.
    ///
    /// Returns the permanent IDs, parallel to `objects`: each object's ID now (the coordinator
    /// gives every temporary ID a permanent one, which the object takes).
    @discardableResult
    private func promoteToPermanentIDs(
        _ objects: [ManagedObject], from temporary: [ManagedObjectID], rewritingReferencesIn holders: some Sequence<ManagedObject>,
        visiting visit: (Int, ManagedObject) -> Void = { _, _ in }
    ) throws -> [ManagedObjectID] {
        guard !objects.isEmpty else { return [] }
        let permanent = try persistentStoreCoordinator.obtainPermanentIDs(for: temporary)
        let promotions = IDPromotionMap(temporary: temporary, permanent: permanent)
        let rewrites = !promotions.isEmpty
        registered.promote(objects, from: temporary, to: permanent) { i, o in
            if rewrites && !o.isFault && !o.materialized.relations.isEmpty { o.materialized.rewriteReferences(promotions) }
            visit(i, o)
        }
        if rewrites {
            for o in holders where !o.isFault && !o.materialized.relations.isEmpty {
                o.materialized.rewriteReferences(promotions)
            }
        }
        return permanent
    }

    /// The row change that saves `o`: its values, its to-one destinations and its changed to-many
    /// sets, every ID as the store knows it; `version` is the row version read (0 for an insert).
    private static func rowChange(of o: ManagedObject, version: Int64, coordinator c: PersistentStoreCoordinator) -> StoreRowChange {
        o.materialized.rowChange(objectID: o.objectID, values: o.values, entity: o.entity, version: version, coordinator: c)
    }

    /// The save's request; `insertedChanges`, when given, are the inserted objects' row changes
    /// made already (parallel to `inserted`).
    private func storeSaveRequest(
        inserted: [ManagedObject], updated: [ManagedObject], deleted: [ManagedObject], insertedChanges: consuming [StoreRowChange]? = nil
    ) -> StoreSaveRequest {
        let c = persistentStoreCoordinator
        var request = StoreSaveRequest(
            inserted: insertedChanges ?? inserted.map { Self.rowChange(of: $0, version: 0, coordinator: c) },
            updated: updated.map { Self.rowChange(of: $0, version: $0.committed?.version ?? 0, coordinator: c) },
            deleted: deleted.map { StoreRowDeletion(objectID: $0.objectID, expectedVersion: $0.committed?.version ?? 0) })
        request.transactionAuthor = transactionAuthor
        request.contextName = name
        return request
    }

    /// Applies the merge policy to conflicting objects so the save can be tried again, and
    /// returns, per object, the values that will win.
    private func resolve(_ conflicts: [MergeConflict], fresh: [ManagedObjectID: RowSnapshot]) throws -> [MergeResolution] {
        var drafts: [ConflictResolutionDraft] = []
        if case .custom = mergePolicy {
            drafts = conflicts.compactMap { c in
                guard let o = registeredObject(for: c.objectID), !o.isDeleted, fresh[o.objectID] != nil else { return nil }
                return ConflictResolutionDraft(conflict: c)
            }
        }
        if case let .custom(policy) = mergePolicy { try policy.resolver(&drafts) }
        var draftByID: [ManagedObjectID: ConflictResolutionDraft] = [:]
        for d in drafts { draftByID[d.conflict.objectID] = d }
        var out: [MergeResolution] = []
        for conflict in conflicts {
            guard let o = registeredObject(for: conflict.objectID) else { continue }
            guard let row = fresh[o.objectID] else {
                // Deleted in the store: nothing left to update or delete.
                updatedObjects.remove(o)
                deletedObjects.remove(o)
                forget(o)
                out.append(MergeResolution(conflict: conflict, policy: mergePolicy, winners: [:]))
                continue
            }
            let state = ObjectState(row: row, toMany: [:])
            switch mergePolicy {
            case .error:
                throw CoreStackError.mergeConflict(conflicts)
            case .overwrite:
                o.committed?.version = row.version
            case .mergeByPropertyObjectTrump:
                mergeState(state, into: o, keepLocalChanges: true)
            case .mergeByPropertyStoreTrump:
                storeTrump(row, into: o)
            case .rollback:
                updatedObjects.remove(o)
                deletedObjects.remove(o)
                o.changeState = .clean
                o.materialize(from: row)
            case .custom:
                if let draft = draftByID[o.objectID] {
                    try apply(draft, row: row, to: o)
                } else {
                    // A delete of the saving context: it goes through.
                    o.committed?.version = row.version
                }
            }
            var winners: [String: PropertyValue] = [:]
            if !o.isDeleted {
                let now = Self.propertySnapshot(o.currentSnapshot(), entity: o.entity)
                for key in conflict.changedKeys { winners[key] = now[key] }
            }
            out.append(MergeResolution(conflict: conflict, policy: mergePolicy, winners: winners))
        }
        return out
    }

    /// A custom policy's decision: the store's row, with the draft's values on top.
    private func apply(_ draft: ConflictResolutionDraft, row: RowSnapshot, to o: ManagedObject) throws {
        let e = o.entity
        for (slot, a) in e.allAttributes.enumerated() where !a.isTransient && slot < row.values.count {
            guard let chosen = draft.values[a.name] else {
                o.values[slot] = row.values[slot]
                continue
            }
            guard case let .attribute(v) = chosen, let coerced = AttributeCoercion.coerce(v, to: a.type) else {
                throw CoreStackError.typeMismatch(
                    entity: e.name, key: a.name, expected: a.type.xcodeName, got: "\(chosen) from the merge policy \(mergePolicy.name)")
            }
            o.values[slot] = coerced
        }
        for (slot, r) in e.allRelationships.enumerated() where !r.isToMany && !r.isTransient {
            let stored = slot < row.toOne.count ? row.toOne[slot] : nil
            guard let chosen = draft.values[r.name] else {
                o.relations[slot] = .toOne(stored)
                continue
            }
            guard case let .toOne(id) = chosen, id.map({ $0.entity.isKind(of: e.destinations[slot]) }) ?? true else {
                throw CoreStackError.typeMismatch(
                    entity: e.name, key: r.name, expected: r.destinationEntityName, got: "\(chosen) from the merge policy \(mergePolicy.name)")
            }
            o.relations[slot] = .toOne(id.map { persistentStoreCoordinator.canonicalID($0) })
        }
        o.committed = row
        if o.changeState == .clean {
            o.changeState = .updated
            updatedObjects.insert(o)
        }
    }

    /// Store trump: values the store changed win; the context's other changes stay.
    private func storeTrump(_ row: RowSnapshot, into o: ManagedObject) {
        guard let old = o.committed else { o.materialize(from: row); return }
        for i in o.values.indices where i < row.values.count && row.values[i] != old.values[i] {
            o.values[i] = row.values[i]
        }
        for (slot, r) in o.entity.allRelationships.enumerated() where !r.isToMany {
            let was = slot < old.toOne.count ? old.toOne[slot] : nil
            let now = slot < row.toOne.count ? row.toOne[slot] : nil
            if was != now { o.relations[slot] = .toOne(now) }
        }
        o.committed = row
    }

    // MARK: Child save

    /// Pushes the changes into the parent and returns the parent's pending changes they replaced.
    private func pushToParent(
        inserted: [ManagedObject], updated: [ManagedObject], deleted: [ManagedObject]
    ) throws -> [ParentChangeReplacement] {
        guard let parent else { return [] }
        let c = persistentStoreCoordinator
        struct Push {
            var id: ManagedObjectID
            var entity: EntityDescription
            var values: [AttributeValue]
            var changedValueSlots: [Int]
            var relations: [(Int, RelationSlot)]
        }
        func push(_ o: ManagedObject, all: Bool) -> Push {
            var slots: [Int] = []
            for i in o.values.indices where all || o.committed == nil || o.values[i] != o.committed?.values[i] { slots.append(i) }
            var rels: [(Int, RelationSlot)] = []
            for (slot, rel) in o.relations.enumerated() {
                switch rel {
                case .fault: continue
                case let .toOne(id):
                    let old = o.committed.flatMap { slot < $0.toOne.count ? $0.toOne[slot] : nil }
                    if all || o.committed == nil || old != id { rels.append((slot, .toOne(id.map { c.canonicalID($0) }))) }
                case let .toMany(set):
                    if all || o.committedToMany[slot] != set {
                        rels.append((slot, .toMany(OrderedSet(set.map { c.canonicalID($0) }))))
                    }
                }
            }
            return Push(id: o.objectID, entity: o.entity, values: o.values, changedValueSlots: slots, relations: rels)
        }
        // The parent's copies of inserted objects are made and filled here, on this context's
        // queue: they belong to no context until the parent's step below registers them, so
        // nothing can see them half made, and the parent's queue (the main queue, for a
        // main-queue parent) is held only for that one short step.
        // Copied straight from the child's object: a `Push` (with its list of changed slots) per
        // inserted object was ~30 % of a main context's save of 20,000 new objects.
        let made: [ManagedObject] = inserted.map { child in
            let e = child.entity
            let o = e.managedObjectClass.init(entity: e, objectID: child.objectID)
            o.values = child.values
            o.relations = e.emptyRelations
            for (slot, rel) in child.relations.enumerated() {
                switch rel {
                case .fault: continue
                case let .toOne(id): o.relations[slot] = .toOne(id.map { c.canonicalID($0) })
                case let .toMany(set): o.relations[slot] = .toMany(OrderedSet(set.map { c.canonicalID($0) }))
                }
            }
            o.faultState = .materialized
            o.changeState = .inserted
            o.pendingInsertion = true
            return o
        }
        let ups = updated.map { push($0, all: false) }
        let dels = deleted.map(\.objectID)
        return try parent.performAndWait {
            var replaced: [ParentChangeReplacement] = []
            for o in made {
                o.managedObjectContext = parent
                parent.registered[o.objectID] = o
                parent.insertedObjects.insert(o)
                parent.pendingChanges.inserted.insert(o)
            }
            for p in ups {
                let o = try parent.object(with: p.id)
                try o.fireFault()
                if o.isDeleted { continue }
                let pending = o.hasChanges
                for i in p.changedValueSlots {
                    if pending, o.values[i] != p.values[i], o.committed.map({ $0.values[i] != o.values[i] }) ?? true,
                        !p.entity.allAttributes[i].isTransient
                    {
                        replaced.append(ParentChangeReplacement(
                            objectID: o.objectID, propertyName: p.entity.allAttributes[i].name,
                            parentValue: .attribute(o.values[i]), childValue: .attribute(p.values[i])))
                    }
                    o.values[i] = p.values[i]
                }
                for (slot, rel) in p.relations {
                    if case .toMany = rel, case .fault = o.relations[slot] { _ = try o.destinationIDs(slot: slot) }
                    if pending, let r = Self.replacement(of: o, slot: slot, by: rel) { replaced.append(r) }
                    o.relations[slot] = rel
                }
                parent.objectDidChange(o)
            }
            for id in dels {
                guard let o = parent.registeredObject(for: id) ?? (try? parent.object(with: id)) else { continue }
                try? o.fireFault()
                if o.isDeleted { continue }
                if o.changeState == .inserted {
                    parent.insertedObjects.remove(o)
                    parent.registered[o.objectID] = nil
                    o.changeState = .deleted
                } else {
                    parent.updatedObjects.remove(o)
                    o.changeState = .deleted
                    parent.deletedObjects.insert(o)
                }
                parent.pendingChanges.deleted.insert(o)
            }
            parent.processPendingChanges()
            return replaced
        }
    }

    /// The replacement of a parent's pending relationship change by a child's value, if the slot
    /// held one that differs.
    private static func replacement(of o: ManagedObject, slot: Int, by rel: RelationSlot) -> ParentChangeReplacement? {
        let r = o.entity.allRelationships[slot]
        if r.isTransient { return nil }
        switch (o.relations[slot], rel) {
        case let (.toOne(mine), .toOne(theirs)):
            let committed = o.committed.flatMap { slot < $0.toOne.count ? $0.toOne[slot] : nil }
            guard mine != theirs, o.committed == nil || committed != mine else { return nil }
            return ParentChangeReplacement(objectID: o.objectID, propertyName: r.name, parentValue: .toOne(mine), childValue: .toOne(theirs))
        case let (.toMany(mine), .toMany(theirs)):
            let committed = o.committedToMany[slot]
            let same = r.isOrdered ? mine == theirs : Set(mine) == Set(theirs)
            let pending = committed.map { r.isOrdered ? $0 != mine : Set($0) != Set(mine) } ?? (o.committed == nil)
            guard !same, pending else { return nil }
            return ParentChangeReplacement(
                objectID: o.objectID, propertyName: r.name, parentValue: .toMany(Array(mine)), childValue: .toMany(Array(theirs)))
        default:
            return nil
        }
    }

    // MARK: Validation

    /// Checks every inserted and updated object against the model's rules, and deleted objects
    /// against Deny delete rules. Throws the first failure.
    public func validateForSave() throws {
        try validate(
            deleted: deletedObjects.values, inserted: insertedObjects.values, updated: updatedObjects.values, gatheringTemporaries: false)
    }

    /// ``validateForSave()`` on the given change sets (a save has them at hand already). With
    /// `gatheringTemporaries`, also returns the inserted objects with temporary IDs, gathered in
    /// the same pass (a root save promotes them next); else an empty list.
    @discardableResult
    private func validate(
        deleted: [ManagedObject], inserted: [ManagedObject], updated: [ManagedObject], gatheringTemporaries: Bool
    ) throws -> TemporaryInserts {
        for o in deleted {
            for (slot, r) in o.entity.allRelationships.enumerated() where r.deleteRule == .deny {
                let live = try o.destinationIDs(slot: slot).filter { id in
                    !(registeredObject(for: id)?.isDeleted ?? false)
                }
                if !live.isEmpty {
                    throw CoreStackError.deleteDenied(entity: o.entity.name, relationship: r.name, objectID: o.objectID.description)
                }
            }
        }
        // An entity's rules are read once per stretch of its objects (a save's inserts usually
        // come an entity at a time), not once per object: each read of an entity's field is a
        // run-time exclusivity check and a retain of the array (~3 % of saving 100,000 objects).
        var current: EntityDescription?
        var rules = (
            validated: [Int](), hasRules: [Bool](), attributes: [AttributeDescription](), validatedRelationships: [Int](),
            relationships: [RelationshipDescription]()
        )
        var temporaries = TemporaryInserts(capacity: gatheringTemporaries ? inserted.count : 0)
        for (list, objects) in [inserted, updated].enumerated() {
            let gathers = gatheringTemporaries && list == 0
            for o in objects {
                let e = o.entity
                if e !== current {
                    current = e
                    rules = (
                        e.validatedAttributeSlots, e.attributeHasRules, e.allAttributes, e.validatedRelationshipSlots,
                        e.allRelationships
                    )
                }
                try validate(
                    o, entity: e, validated: rules.validated, hasRules: rules.hasRules, attributes: rules.attributes,
                    validatedRelationships: rules.validatedRelationships, relationships: rules.relationships)
                if gathers { temporaries.gather(o) }
            }
        }
        return temporaries
    }

    /// Checks one object against its entity's rules (the entity's arrays passed in, read once
    /// for many objects). Only the relationships that can fail (`validatedRelationships`, see
    /// ``EntityDescription/validatedRelationshipSlots``) are looked at: an optional relationship
    /// with no count limits passes whatever it holds, and reading the rules of each relationship
    /// (fields of a class, each read a run-time exclusivity check) and the object's slots cost
    /// ~500 instructions an object for nothing.
    private func validate(
        _ o: ManagedObject, entity e: EntityDescription, validated: [Int], hasRules: [Bool], attributes: [AttributeDescription],
        validatedRelationships: [Int], relationships: [RelationshipDescription]
    ) throws {
        func fail(_ key: String?, _ reason: String) -> CoreStackError {
            .validation(entity: e.name, property: key, objectID: o.objectID.description, reason: reason)
        }
        for slot in validated {
            let v = o.values[slot]
            if !v.isNull && !hasRules[slot] { continue }
            let a = attributes[slot]
            if let reason = ManagedObject.ruleViolation(of: a, v) { throw fail(a.name, reason) }
        }
        if validatedRelationships.isEmpty { return }
        let relations = o.relations
        for slot in validatedRelationships {
            let r = relationships[slot]
            let count: Int
            switch relations[slot] {
            case .fault: continue
            case let .toOne(id): count = id == nil ? 0 : 1
            case let .toMany(set): count = set.count
            }
            if count == 0 {
                if !r.isOptional { throw fail(r.name, "a destination is required") }
                continue
            }
            if r.isToMany && r.minCount > 0 && count < r.minCount {
                throw fail(r.name, "\(count) destinations, at least \(r.minCount) required")
            }
            if r.isToMany && r.maxCount > 0 && count > r.maxCount {
                throw fail(r.name, "\(count) destinations, at most \(r.maxCount) allowed")
            }
        }
    }

    // MARK: Rollback, reset, refresh

    /// Drops every unsaved change: inserted objects leave, changed and deleted ones return to
    /// their last saved state.
    public func rollback() {
        checkQueue()
        for o in insertedObjects.values {
            registered[o.objectID] = nil
            o.managedObjectContext = nil
            pendingChanges.deleted.insert(o)
        }
        for o in Array(updatedObjects.values) + Array(deletedObjects.values) {
            if let s = o.committed {
                o.materialize(from: s, toMany: o.committedToMany)
            } else {
                o.turnIntoFault()
            }
            o.changeState = .clean
            pendingChanges.refreshed.insert(o)
        }
        // Objects touched only through inverses may hold changed relationships: refault them.
        for o in registered.values where !o.isFault && o.committed != nil && o.changeState == .clean {
            if o.changedValues().isEmpty { continue }
            if let s = o.committed { o.materialize(from: s, toMany: o.committedToMany) }
        }
        insertedObjects.removeAll()
        updatedObjects.removeAll()
        deletedObjects.removeAll()
        processPendingChanges()
        // As Core Data: rollback removes everything from the undo stack.
        undoManager?.removeAllActions()
    }

    /// Forgets every object: the context is as new. Objects obtained before are no longer usable.
    public func reset() {
        checkQueue()
        for o in registered.values { o.managedObjectContext = nil }
        registered.removeAll()
        insertedObjects.removeAll()
        updatedObjects.removeAll()
        deletedObjects.removeAll()
        for o in pendingChanges.inserted.values { o.pendingInsertion = false }
        for o in pendingChanges.updated.values { o.pendingUpdate = false }
        pendingChanges = PendingChanges()
        pendingChanges.invalidatedAll = true
        processPendingChanges()
        // The objects the undo stack refers to are forgotten: nothing is left to undo.
        undoManager?.removeAllActions()
    }

    /// Refreshes an object: with `mergeChanges` false it becomes a fault and loses its unsaved
    /// changes; with true it takes the latest saved values and keeps its own changes on top.
    ///
    /// ```swift
    /// context.refresh(book, mergeChanges: false)
    /// ```
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        checkQueue()
        guard object.managedObjectContext === self, !object.isInserted else { return }
        if parent == nil, !object.objectID.isTemporaryID {
            _ = try? persistentStoreCoordinator.refreshSnapshots(for: [object.objectID])
        }
        if mergeChanges, !object.isFault, let states = try? snapshots(for: [object.objectID]), let s = states[object.objectID] {
            mergeState(s, into: object, keepLocalChanges: true)
        } else {
            updatedObjects.remove(object)
            if object.changeState == .updated { object.changeState = .clean }
            object.turnIntoFault()
        }
        pendingChanges.refreshed.insert(object)
    }

    /// Turns every unchanged object back into a fault (Core Data's `refreshAllObjects`).
    public func refreshAllObjects() {
        checkQueue()
        for o in registered.values where !o.hasChanges { refresh(o, mergeChanges: false) }
        processPendingChanges()
    }

    /// Gives objects permanent IDs before they are saved (reserving their primary keys).
    ///
    /// ```swift
    /// try context.obtainPermanentIDs(for: [book])
    /// book.objectID.isTemporaryID // false
    /// ```
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws {
        checkQueue()
        let temps = objects.filter { $0.objectID.isTemporaryID && $0.managedObjectContext === self }
        try promoteToPermanentIDs(temps, from: temps.map { $0.objectID }, rewritingReferencesIn: registered.values)
    }
}

extension MaterializedFields {
    /// The row change that saves the object holding these fields (see
    /// `ManagedObjectContext.rowChange(of:version:coordinator:)`).
    ///
    /// A method of the fields, so that the object's relationship slots and committed to-many
    /// sets are read in one access to its field: each read of `relations` or `committedToMany`
    /// through the object is a run-time exclusivity check of its own (three per object saved).
    fileprivate func rowChange(
        objectID: ManagedObjectID, values: [AttributeValue], entity: EntityDescription, version: Int64,
        coordinator c: PersistentStoreCoordinator
    ) -> StoreRowChange {
        var toOne: [ManagedObjectID?] = []
        toOne.reserveCapacity(relations.count)
        var toMany: [ToManyChange] = []
        for slot in relations.indices {
            switch relations[slot] {
            case let .toOne(id): toOne.append(id.map { c.canonicalID($0) })
            case .fault: toOne.append(nil)
            case let .toMany(set):
                toOne.append(nil)
                if entity.allRelationships[slot].isTransient { continue }
                let old = committedToMany[slot] ?? []
                if old == set { continue }
                let current = Self.storeIDs(of: set, coordinator: c)
                // Room for every to-many slot left at once: grown one change at a time, an
                // object with two to-many relationships reallocated the array on the second.
                if toMany.capacity == 0 { toMany.reserveCapacity(relations.count - slot) }
                if old.isEmpty {
                    // Nothing committed (a new object's set): every member is added, none
                    // removed; no sets to build.
                    toMany.append(ToManyChange(slot: slot, current: current, added: current, removed: []))
                    continue
                }
                let oldIDs = Set(old.map { c.canonicalID($0) })
                let newIDs = Set(current)
                toMany.append(
                    ToManyChange(
                        slot: slot, current: current, added: current.filter { !oldIDs.contains($0) },
                        removed: old.map { c.canonicalID($0) }.filter { !newIDs.contains($0) }))
            }
        }
        return StoreRowChange(objectID: objectID, values: values, toOne: toOne, expectedVersion: version, toMany: toMany)
    }

    /// The members of `set` as the store knows them (each through
    /// ``PersistentStoreCoordinator/canonicalID(_:)``): the set's own array when no member is
    /// temporary, the usual case once the save's promotion has rewritten them, so no array is
    /// made and no member copied (each copy of an ID retains its entity).
    private static func storeIDs(of set: OrderedSet<ManagedObjectID>, coordinator c: PersistentStoreCoordinator) -> [ManagedObjectID] {
        let elements = set.elements
        for i in elements.indices where elements[i].isTemporary {
            return elements.map { c.canonicalID($0) }
        }
        return elements
    }
}
