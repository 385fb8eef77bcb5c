import Foundation
import OrderedCollections

extension ManagedObjectContext {
    /// Merges objects that would break a uniqueness constraint into one, as Core Data's
    /// `NSMergePolicy.resolve(constraintConflicts:)` does under the trump, overwrite and rollback
    /// policies: the upsert of an import (insert an object with a key already stored; the save
    /// updates the stored object instead of failing). Called by a root context's save before it
    /// validates and writes; returns the merges it made (listed in the save's
    /// ``lastSaveMergeResolutions``) and when it last found the store free of conflicts (the
    /// save then does not ask again).
    ///
    /// For each conflict one object survives and the inserted objects holding its values (the
    /// duplicates) are merged into it and leave the context, never written:
    /// - With a stored row (``ConstraintConflict/databaseObjectID``), the row's object survives
    ///   with its object ID. Among the save's objects only, a stored (updated) object survives if
    ///   there is one, else the first inserted.
    /// - Attributes: object trump gives the survivor every value a duplicate set (its non-nil
    ///   values, the changed values of a new object), overwrite every value (nil included); store
    ///   trump keeps the survivor's values, rollback its stored values (dropping its own unsaved
    ///   changes to attributes). Duplicates merge in insertion order, so with object trump and
    ///   overwrite the last inserted wins.
    /// - Relationships: whatever pointed at a duplicate now points at the survivor (its to-many
    ///   destinations join the survivor's, under every policy); a duplicate's to-one destination
    ///   replaces the survivor's under object trump and overwrite, and fills it under store trump
    ///   and rollback only where the survivor has none.
    ///
    /// Nothing is merged when one conflict cannot be: an updated object holding another stored
    /// row's values, two stored objects holding the same values, or a stored row this save
    /// deletes or changes to other values (a delete-and-reinsert or a swap). The save then throws
    /// ``CoreStackError/constraintConflict(_:)`` with every conflict, as under ``MergePolicy/error``.
    /// ``MergePolicy/error`` merges nothing; a custom policy merges each conflict as the built-in
    /// policy its constraint closure picks (``CustomMergePolicy/init(name:constraintConflicts:resolve:)``; none: nothing is merged).
    func resolveUniquenessConflicts() throws -> UniquenessMerges {
        var out = UniquenessMerges()
        guard persistentStoreCoordinator.managedObjectModel.hasUniquenessConstraints else { return out }
        switch mergePolicy {
        case .error: return out
        case let .custom(policy) where policy.constraintResolver == nil: return out
        default: break
        }
        // Merging can make new conflicts (a duplicate's values reaching another constraint of the
        // survivor); each round removes at least one object, and what is left after a few rounds
        // is reported by the save's final check.
        for _ in 0..<4 {
            let generation = persistentStoreCoordinator.storeGeneration
            let conflicts = try uniquenessConflicts(inserted: insertedObjects.values, updated: updatedObjects.values)
            if conflicts.isEmpty {
                out.checkedAtGeneration = generation
                break
            }
            var plans: [(survivor: ManagedObject, duplicates: [ManagedObject], policy: MergePolicy, conflict: ConstraintConflict)] = []
            for c in conflicts {
                let policy = try builtInPolicy(for: c)
                guard policy != .error, let plan = try mergePlan(for: c) else { throw CoreStackError.constraintConflict(conflicts) }
                plans.append((plan.survivor, plan.duplicates, policy, c))
            }
            // Stored survivors not yet in memory are read together, not one by one.
            try fireFaults(plans.map(\.survivor))
            // What the merges will change, as it is now: put back if the save fails.
            if out.before.isEmpty { out.before = registered.values.map { ($0, undoImage(of: $0)) } }
            // An object merged away by one conflict stands for its survivor in the next.
            var mergedInto: [ObjectIdentifier: ManagedObject] = [:]
            func current(_ o: ManagedObject) -> ManagedObject {
                var o = o
                while let s = mergedInto[ObjectIdentifier(o)] { o = s }
                return o
            }
            var repointed: [ManagedObjectID: ManagedObjectID] = [:]
            for plan in plans {
                let survivor = current(plan.survivor)
                var keys = Set(plan.conflict.properties)
                var mergedAny = false
                for d in plan.duplicates {
                    let duplicate = current(d)
                    guard duplicate !== survivor, duplicate.isInserted else { continue }
                    for (slot, a) in duplicate.entity.allAttributes.enumerated() where !a.isTransient && !duplicate.values[slot].isNull {
                        keys.insert(a.name)
                    }
                    try merge(duplicate, into: survivor, by: plan.policy)
                    mergedInto[ObjectIdentifier(duplicate)] = survivor
                    repointed[duplicate.objectID] = survivor.objectID
                    mergedAny = true
                }
                if mergedAny {
                    out.merges.append(UniquenessMerges.Merge(survivor: survivor, conflict: plan.conflict, policy: plan.policy, keys: keys))
                }
            }
            repointOneWayReferences(repointed)
            // With one constraint per entity a merge cannot reach another constraint: nothing is
            // left to merge, as the query before the merges tells.
            if conflicts.allSatisfy({ model.entity(named: $0.entity)?.uniquenessConstraints.count == 1 }) {
                out.checkedAtGeneration = generation
                break
            }
        }
        return out
    }

    /// The built-in policy that merges a conflict: the context's, or the one a custom policy's
    /// constraint closure picks (``MergePolicy/error`` to leave it unmerged).
    private func builtInPolicy(for c: ConstraintConflict) throws -> MergePolicy {
        guard case let .custom(custom) = mergePolicy else { return mergePolicy }
        guard let pick = custom.constraintResolver else { return .error }
        let policy = try pick(c)
        if case .custom = policy { return .error }
        return policy
    }

    /// The survivor of a conflict and the inserted objects to merge into it, or nil when the
    /// conflict cannot be merged.
    private func mergePlan(for c: ConstraintConflict) throws -> (survivor: ManagedObject, duplicates: [ManagedObject])? {
        let holders = c.objectIDs.compactMap { registeredObject(for: $0) }
        guard holders.count == c.objectIDs.count else { return nil }
        let inserted = holders.filter(\.isInserted)
        let stored = holders.filter { !$0.isInserted }
        if let rowID = c.databaseObjectID {
            guard stored.isEmpty else { return nil }
            let survivor = try object(with: rowID)
            if survivor.isDeleted { return nil }
            // Changed in this save to other values: a swap, left to the final check.
            if !survivor.isFault, survivor.hasChanges {
                guard let entity = model.entity(named: c.entity), let slots = Self.attributeSlots(c.properties, of: entity),
                    slots.map({ survivor.values.indices.contains($0) ? survivor.values[$0] : .null }) == c.values
                else { return nil }
            }
            return (survivor, inserted)
        }
        if stored.count > 1 { return nil }
        if let survivor = stored.first { return (survivor, inserted) }
        guard let survivor = inserted.first else { return nil }
        return (survivor, Array(inserted.dropFirst()))
    }

    /// Merges an inserted duplicate into the survivor by the merge policy and removes it from
    /// the context.
    private func merge(_ duplicate: ManagedObject, into survivor: ManagedObject, by policy: MergePolicy) throws {
        try survivor.fireFault()
        let objectWins: Bool
        switch policy {
        case .mergeByPropertyObjectTrump, .overwrite: objectWins = true
        default: objectWins = false
        }
        // The duplicate's relationships, then the duplicate out of its partners' inverses.
        var destinations: [(slot: Int, ids: [ManagedObjectID])] = []
        for slot in duplicate.relations.indices {
            let ids = try duplicate.destinationIDs(slot: slot)
            if !ids.isEmpty { destinations.append((slot, ids)) }
        }
        for (slot, ids) in destinations {
            for id in ids {
                guard let partner = try? object(with: id) else { continue }
                try unlink(duplicate, slot: slot, from: partner)
            }
        }
        // Attributes, by name (the two may be of sibling sub-entities): those of the survivor.
        let target = survivor.entity
        switch policy {
        case .mergeByPropertyObjectTrump, .overwrite:
            for (slot, a) in duplicate.entity.allAttributes.enumerated() {
                guard let to = target.attributeSlots[a.name] else { continue }
                let v = duplicate.values[slot]
                if policy == .overwrite || !v.isNull { try survivor.setAttribute(slot: to, v) }
            }
        case .rollback:
            if let committed = survivor.committed {
                for (slot, a) in target.allAttributes.enumerated() where !a.isTransient && slot < committed.values.count {
                    try survivor.setAttribute(slot: slot, committed.values[slot])
                }
            }
        default:
            break
        }
        markDeleted(duplicate)
        // Relationships: the duplicate's partners move to the survivor.
        for (from, ids) in destinations {
            guard let slot = target.relationshipSlots[duplicate.entity.allRelationships[from].name] else { continue }
            let r = target.allRelationships[slot]
            if !r.isToMany, !objectWins, try !survivor.destinationIDs(slot: slot).isEmpty { continue }
            for id in ids {
                let partnerID = id == duplicate.objectID ? survivor.objectID : id
                guard let partner = try? object(with: partnerID), !partner.isDeleted,
                    partner.entity.isKind(of: target.destinations[slot])
                else { continue }
                try link(survivor, slot: slot, to: partner)
            }
        }
    }

    /// Points relationships without an inverse that hold a merged duplicate at its survivor
    /// (those with an inverse were moved by ``merge(_:into:)``).
    private func repointOneWayReferences(_ repointed: [ManagedObjectID: ManagedObjectID]) {
        guard !repointed.isEmpty else { return }
        // A survivor merged away in turn: its own survivor.
        var repointed = repointed
        for (id, s) in repointed {
            var s = s
            while let next = repointed[s], next != s { s = next }
            repointed[id] = s
        }
        for o in registered.values where !o.isFault && !o.isDeleted {
            for (slot, r) in o.entity.allRelationships.enumerated() where o.entity.inverseSlots[slot] == nil {
                switch o.relations[slot] {
                case let .toOne(id?):
                    if let s = repointed[id] {
                        noteWillChange(o, relationshipSlot: slot)
                        o.relations[slot] = .toOne(s)
                        objectDidChange(o, transientOnly: r.isTransient)
                    }
                case let .toMany(set):
                    guard set.contains(where: { repointed[$0] != nil }) else { continue }
                    noteWillChange(o, relationshipSlot: slot)
                    var out = set
                    out.removeAll()
                    for id in set { out.append(repointed[id] ?? id) }
                    o.relations[slot] = .toMany(out)
                    objectDidChange(o, transientOnly: r.isTransient)
                default:
                    break
                }
            }
        }
    }
}
