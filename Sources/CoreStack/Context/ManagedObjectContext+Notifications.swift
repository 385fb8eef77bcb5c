import Foundation
import OrderedCollections

extension ManagedObjectContext {
    // MARK: Observing

    /// Calls `block` on the context's queue after each batch of changes.
    ///
    /// ```swift
    /// let token = context.addObjectsDidChangeObserver { change in print(change.updated) }
    /// ```
    public func addObjectsDidChangeObserver(_ block: @escaping (ObjectsDidChange) -> Void) -> ObservationToken {
        ObservationToken(id: observers.add(objectsDidChange: block), context: self)
    }

    /// Calls `block` on the context's queue before each save.
    public func addWillSaveObserver(_ block: @escaping (ManagedObjectContext) -> Void) -> ObservationToken {
        ObservationToken(id: observers.add(willSave: block), context: self)
    }

    /// Calls `block` on the context's queue after each save.
    ///
    /// ```swift
    /// let token = writer.addDidSaveObserver { saved in
    ///     let ids = saved.objectIDs
    ///     reader.perform { reader.mergeChanges(from: ids) }
    /// }
    /// ```
    public func addDidSaveObserver(_ block: @escaping (ContextDidSave) -> Void) -> ObservationToken {
        ObservationToken(id: observers.add(didSave: block), context: self)
    }

    /// Calls `block` on the context's queue after each save, once every did-save observer and
    /// the `managedObjectContextDidSave` notification have seen it. For the framework's own
    /// follow-ups (a stack saving the parent), so that what they start cannot reach observers
    /// before the save that caused it.
    func addAfterDidSaveObserver(_ block: @escaping (ContextDidSave) -> Void) -> ObservationToken {
        ObservationToken(id: observers.add(afterDidSave: block), context: self)
    }

    /// Stops an observer.
    public func removeObserver(_ token: ObservationToken) {
        observers.remove(token.id)
    }

    // MARK: Posting

    /// Announces the changes made since the last call (objectsDidChange). Contexts call it at the
    /// end of every `perform` block and before fetching and saving.
    public func processPendingChanges() {
        announcePendingChanges()
    }

    /// ``processPendingChanges()``, returning the inserted objects it announced (empty when it
    /// announced none): a save hands the same set to its did-save when it is every object it
    /// saves as inserted, instead of hashing them all again.
    @discardableResult
    func announcePendingChanges() -> Set<ManagedObject> {
        if link.recordsUndo { undoManager?.eventEnded() }
        guard !pendingChanges.isEmpty else { return [] }
        let p = pendingChanges
        pendingChanges = PendingChanges()
        let insertedObjects = p.inserted.values
        for o in insertedObjects { o.pendingInsertion = false }
        for o in p.updated.values { o.pendingUpdate = false }
        let change = ObjectsDidChange(
            context: self,
            inserted: Set(insertedObjects), updated: Set(p.updated.values.filter { !p.inserted.contains($0) }),
            deleted: Set(p.deleted.values), refreshed: Set(p.refreshed.values), invalidatedAll: p.invalidatedAll)
        for (_, f) in observers.objectsDidChange { f(change) }
        var info: [AnyHashable: Any] = [
            ContextNotificationKey.inserted: change.inserted,
            ContextNotificationKey.updated: change.updated,
            ContextNotificationKey.deleted: change.deleted,
            ContextNotificationKey.refreshed: change.refreshed,
        ]
        if p.invalidatedAll { info[ContextNotificationKey.invalidatedAll] = true }
        NotificationCenter.default.post(name: .managedObjectContextObjectsDidChange, object: self, userInfo: info)
        return change.inserted
    }

    func postWillSave() {
        for (_, f) in observers.willSave { f(self) }
        NotificationCenter.default.post(name: .managedObjectContextWillSave, object: self)
    }

    func postDidSave(_ saved: ContextDidSave) {
        for (_, f) in observers.didSave { f(saved) }
        NotificationCenter.default.post(
            name: .managedObjectContextDidSave, object: self,
            userInfo: [
                ContextNotificationKey.inserted: saved.inserted,
                ContextNotificationKey.updated: saved.updated,
                ContextNotificationKey.deleted: saved.deleted,
                ContextNotificationKey.insertedObjectIDs: saved.objectIDs.inserted,
                ContextNotificationKey.updatedObjectIDs: saved.objectIDs.updated,
                ContextNotificationKey.deletedObjectIDs: saved.objectIDs.deleted,
            ])
        notifyAutomaticMerges(saved.objectIDs)
        for (_, f) in observers.afterDidSave { f(saved) }
    }

    /// Hands a save to the contexts that merge automatically: the siblings under the same parent,
    /// or for a root context the other root contexts of the coordinator.
    private func notifyAutomaticMerges(_ ids: SavedObjectIDs) {
        let targets: [ManagedObjectContext]
        if let parent {
            parent.childrenLock.lock()
            targets = parent.children.compactMap(\.context)
            parent.childrenLock.unlock()
        } else {
            targets = persistentStoreCoordinator.contexts
        }
        for target in targets where target !== self && target.automaticallyMergesChangesFromParent {
            target.perform { target.mergeChanges(from: ids) }
        }
        // Children of this context see its new state too when they merge from their parent.
        childrenLock.lock()
        let kids = children.compactMap(\.context)
        childrenLock.unlock()
        if parent == nil {
            for kid in kids where kid.automaticallyMergesChangesFromParent {
                kid.perform { kid.mergeChanges(from: ids) }
            }
        }
    }

    // MARK: Merging

    /// Merges a did-save notification posted by another context (on this context's queue).
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .managedObjectContextDidSave, object: writer, queue: nil) { note in
    ///     reader.performAndWait { reader.mergeChanges(fromContextDidSave: note) }
    /// }
    /// ```
    public func mergeChanges(fromContextDidSave notification: Notification) {
        let info = notification.userInfo ?? [:]
        func ids(_ key: String) -> Set<ManagedObjectID> { info[key] as? Set<ManagedObjectID> ?? [] }
        mergeChanges(
            from: SavedObjectIDs(
                inserted: ids(ContextNotificationKey.insertedObjectIDs),
                updated: ids(ContextNotificationKey.updatedObjectIDs),
                deleted: ids(ContextNotificationKey.deletedObjectIDs)))
    }

    /// Merges saved changes: updated objects are refreshed (keeping this context's own unsaved
    /// changes), deleted ones leave the context, inserted ones are announced. Call on the context's queue.
    public func mergeChanges(from ids: SavedObjectIDs) {
        checkQueue()
        // Updated objects: refresh materialised ones from the new state.
        let toRefresh = ids.updated.compactMap { registeredObject(for: $0) }.filter { !$0.isFault && !$0.isDeleted }
        if !toRefresh.isEmpty, let states = try? snapshots(for: toRefresh.map(\.objectID)) {
            for o in toRefresh {
                guard let s = states[o.objectID] ?? states[persistentStoreCoordinator.canonicalID(o.objectID)] else { continue }
                mergeState(s, into: o, keepLocalChanges: true)
                pendingChanges.updated.insert(o)
                pendingChanges.refreshed.insert(o)
            }
        }
        for id in ids.updated {
            if let o = registeredObject(for: id), o.isFault { pendingChanges.refreshed.insert(o) }
        }
        // Rows a fetched-results controller keeps by ID without the context holding their
        // objects: registered as faults so that their changes are reported like the others'.
        let claims = observers.rowClaims
        if !claims.isEmpty {
            let unheld = ids.updated.union(ids.deleted).filter { registeredObject(for: $0) == nil }
            var claimed = Set<ManagedObjectID>()
            if !unheld.isEmpty { for (_, claim) in claims { claimed.formUnion(claim(Array(unheld))) } }
            for id in claimed {
                guard let o = try? object(with: id) else { continue }
                if ids.deleted.contains(id) {
                    forget(o)
                    pendingChanges.deleted.insert(o)
                } else {
                    pendingChanges.refreshed.insert(o)
                }
            }
        }
        for id in ids.inserted {
            if registeredObject(for: id) == nil, let o = try? object(with: id) {
                pendingChanges.inserted.insert(o)
                o.pendingInsertion = true
            }
        }
        for id in ids.deleted {
            guard let o = registeredObject(for: id) else { continue }
            forget(o)
            pendingChanges.deleted.insert(o)
        }
        processPendingChanges()
    }

    /// Applies a newer committed state to an object; with `keepLocalChanges`, properties changed
    /// in this context keep their values (object trump).
    func mergeState(_ s: ObjectState, into o: ManagedObject, keepLocalChanges: Bool) {
        guard keepLocalChanges, o.hasChanges, let old = o.committed else {
            o.materialize(from: s.row, toMany: s.toMany)
            return
        }
        var values = s.row.values
        for i in values.indices where i < old.values.count && o.values[i] != old.values[i] { values[i] = o.values[i] }
        var relations = o.relations
        for (slot, r) in o.entity.allRelationships.enumerated() {
            if r.isToMany {
                if case let .toMany(cur) = relations[slot], cur == (o.committedToMany[slot] ?? cur) {
                    relations[slot] = s.toMany[slot].map { .toMany($0) } ?? .fault
                }
            } else if case let .toOne(cur) = relations[slot], cur == (slot < old.toOne.count ? old.toOne[slot] : nil) {
                relations[slot] = .toOne(slot < s.row.toOne.count ? s.row.toOne[slot] : nil)
            }
        }
        o.values = values
        o.relations = relations
        o.committed = s.row
        for (slot, set) in s.toMany { o.committedToMany[slot] = set }
    }

    /// Removes an object from the context entirely.
    func forget(_ o: ManagedObject) {
        let id = o.objectID
        registered[id] = nil
        insertedObjects.remove(o)
        updatedObjects.remove(o)
        deletedObjects.remove(o)
        o.managedObjectContext = nil
    }
}
