import Foundation

/// What deleting an object would do, by the model's delete rules, before anything is deleted:
/// the objects a cascade takes with it, the relationships that would be nullified, and the
/// relationships whose deny rule refuses the delete.
///
/// ```swift
/// let plan = try context.deletionPlan(for: publisher)
/// plan.cascaded.count   // books that would go too
/// plan.denied.isEmpty   // false: the save would fail with .deleteDenied
/// ```
public struct DeletionPlan: Sendable, Hashable {
    /// One relationship an object would lose its link to, or that refuses the delete.
    public struct Link: Sendable, Hashable {
        /// The object being deleted (the one asked about, or one the cascade reaches).
        public var source: ManagedObjectID
        /// The relationship on `source` (by name) and the objects it points at.
        public var relationship: String
        /// The objects that relationship points at.
        public var destinations: [ManagedObjectID]
        /// A link from `source` through `relationship` to `destinations`.
        public init(source: ManagedObjectID, relationship: String, destinations: [ManagedObjectID]) {
            self.source = source
            self.relationship = relationship
            self.destinations = destinations
        }
    }

    /// The object asked about.
    public var object: ManagedObjectID
    /// Objects deleted with it by cascade rules, in the order the cascade reaches them.
    public var cascaded: [ManagedObjectID] = []
    /// Links removed from the remaining objects by nullify (and cascade) rules.
    public var nullified: [Link] = []
    /// Deny rules with live destinations: the save would fail with ``CoreStackError/deleteDenied(entity:relationship:objectID:)``.
    public var denied: [Link] = []

    /// An empty plan for `object`.
    public init(object: ManagedObjectID) {
        self.object = object
    }

    /// Every object the delete removes: the object and what cascades.
    public var deletedObjects: [ManagedObjectID] { [object] + cascaded }
}

extension ManagedObjectContext {
    /// What deleting `object` would do by the delete rules (cascade, nullify, deny, no action),
    /// without changing anything: the answer for a confirmation before ``delete(_:)``.
    ///
    /// ```swift
    /// let plan = try context.deletionPlan(for: book)
    /// print("also deletes \(plan.cascaded.count) objects")
    /// ```
    public func deletionPlan(for object: ManagedObject) throws -> DeletionPlan {
        checkQueue()
        guard object.managedObjectContext === self else {
            throw CoreStackError.wrongContext("\(object.objectID) is not in this context")
        }
        var plan = DeletionPlan(object: object.objectID)
        var doomed: Set<ManagedObjectID> = [object.objectID]
        var queue = [object]
        var i = 0
        while i < queue.count {
            let o = queue[i]
            i += 1
            for (slot, r) in o.entity.allRelationships.enumerated() where r.deleteRule != .noAction {
                let live = try o.destinationIDs(slot: slot).filter { id in !(registeredObject(for: id)?.isDeleted ?? false) }
                guard !live.isEmpty else { continue }
                let link = DeletionPlan.Link(source: o.objectID, relationship: r.name, destinations: live)
                switch r.deleteRule {
                case .noAction: continue
                case .deny:
                    // A deny towards an object the same delete removes does not refuse it.
                    let blocking = live.filter { !doomed.contains($0) }
                    if !blocking.isEmpty { plan.denied.append(DeletionPlan.Link(source: o.objectID, relationship: r.name, destinations: blocking)) }
                case .nullify:
                    plan.nullified.append(link)
                case .cascade:
                    for id in live where !doomed.contains(id) {
                        doomed.insert(id)
                        plan.cascaded.append(id)
                        queue.append(try self.object(with: id))
                    }
                }
            }
        }
        // Links towards objects the delete removes anyway drop out: a nullify of them is not worth
        // listing, and a deny found before the cascade reached its destination no longer blocks.
        func surviving(_ links: [DeletionPlan.Link]) -> [DeletionPlan.Link] {
            links.compactMap { link in
                let remaining = link.destinations.filter { !doomed.contains($0) }
                return remaining.isEmpty ? nil : DeletionPlan.Link(source: link.source, relationship: link.relationship, destinations: remaining)
            }
        }
        plan.nullified = surviving(plan.nullified)
        plan.denied = surviving(plan.denied)
        return plan
    }
}
