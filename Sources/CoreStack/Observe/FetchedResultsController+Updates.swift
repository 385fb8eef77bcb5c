import Foundation

extension FetchedResultsController {
    // MARK: Following the context

    func contextObjectsDidChange(_ change: ObjectsDidChange) {
        if change.invalidatedAll {
            reloadAfterReset()
            return
        }
        let changed = Array(change.inserted) + Array(change.updated) + Array(change.refreshed) + Array(change.deleted)
        applyChanges(
            deleted: Array(change.deleted), inserted: Array(change.inserted),
            updated: Array(change.updated) + Array(change.refreshed), recheck: recheckCandidates(after: changed))
    }

    /// After a save: merge-policy resolution may have changed saved objects without an
    /// objectsDidChange, so saved objects are checked again (reporting only moves, inserts and deletes).
    func contextDidSave(_ saved: ContextDidSave) {
        applyChanges(deleted: Array(saved.deleted), inserted: [], updated: [], recheck: Array(saved.inserted) + Array(saved.updated))
    }

    /// The IDs among `ids` the controller keeps rows of without holding their objects (none when
    /// it retains its objects: the context holds those).
    func claimRows(_ ids: [ManagedObjectID]) -> [ManagedObjectID] {
        guard !retainsObjects, entity != nil else { return [] }
        return Array(filedKeys(for: ids).keys)
    }

    private func reloadAfterReset() {
        do {
            try performFetch()
        } catch {
            rebuild(FetchedRows(ids: [], sections: nil, sort: SortKeyColumns(width: descriptors.count), objects: []))
            delegate?.controllerDidPerformFetch(self)
            broadcaster.send(.didPerformFetch)
        }
    }

    /// Whether the predicate, a sort key or the section key path reads through a relationship.
    var readsThroughRelationships: Bool {
        let paths = Array(fetchRequest.predicate?.keyPaths ?? []) + descriptors.map(\.key) + [sectionNameKeyPath].compactMap { $0 }
        return paths.contains { $0.contains(".") }
    }

    /// With key paths through relationships, a change to any object may move fetched objects:
    /// recheck all of them, and the objects of the fetched entity related to the changed ones.
    private func recheckCandidates(after changed: [ManagedObject]) -> [ManagedObject] {
        guard !changed.isEmpty, readsThroughRelationships else { return [] }
        var out: [ManagedObject] = sectionStore.indices.flatMap { objects(ofSection: $0) }
        let context = managedObjectContext
        for o in changed where !o.isFault {
            for rel in o.relations {
                let ids: [ManagedObjectID]
                switch rel {
                case .fault: continue
                case let .toOne(id): ids = id.map { [$0] } ?? []
                case let .toMany(set): ids = Array(set)
                }
                for id in ids {
                    if let r = context.registeredObject(for: id), isCandidate(r) { out.append(r) }
                }
            }
        }
        return out
    }

    func isCandidate(_ o: ManagedObject) -> Bool {
        guard let entity, o is T else { return false }
        return fetchRequest.includesSubentities ? o.entity.isKind(of: entity) : o.entity === entity
    }

    // MARK: Applying changes

    /// Works out and applies what the changes do to the results, then reports them.
    /// `updated` objects are reported as updates when they stay in place; `recheck` objects only
    /// when they move, join or leave.
    func applyChanges(deleted: [ManagedObject], inserted: [ManagedObject], updated: [ManagedObject], recheck: [ManagedObject]) {
        guard entity != nil else { return }
        adoptPermanentIDs()
        var plan = ChangePlan<T>()
        var seen = Set<ObjectIdentifier>()
        let context = managedObjectContext
        // The candidates first, so that the keys they are filed under are looked up at once.
        var candidates: [(object: T, gone: Bool, reportUpdate: Bool)] = []
        func consider(_ mo: ManagedObject, gone: Bool, reportUpdate: Bool) {
            guard isCandidate(mo), let o = mo as? T, seen.insert(ObjectIdentifier(o)).inserted else { return }
            candidates.append((o, gone, reportUpdate))
        }
        for o in deleted { consider(o, gone: true, reportUpdate: false) }
        for o in inserted { consider(o, gone: false, reportUpdate: true) }
        for o in updated { consider(o, gone: false, reportUpdate: true) }
        for o in recheck { consider(o, gone: false, reportUpdate: false) }
        guard !candidates.isEmpty else { return }
        let filed = filedKeys(for: candidates.map(\.object.objectID))
        // Objects still in the context and matching the predicate, whose keys are read next.
        var live: [(object: T, old: RowKey?, reportUpdate: Bool)] = []
        for (o, gone, reportUpdate) in candidates {
            let old = filed[o.objectID]
            if gone || o.isDeleted || o.managedObjectContext !== context {
                if let old { plan.removals.append((o, old)) }
                continue
            }
            let matches: Bool
            do { matches = try fetchRequest.predicate.map { try PredicateEvaluator.evaluate($0, on: o) } ?? true } catch { matches = false }
            if matches {
                live.append((o, old, reportUpdate))
            } else if let old {
                plan.removals.append((o, old))
            }
        }
        // Keys of faults come from their rows (they stay faults); one object that cannot be read
        // (gone from the store) leaves the results.
        let keys: [RowKey?] = (try? readKeys(live.map(\.object))) ?? live.map { try? readKey($0.object) }
        for (entry, key) in zip(live, keys) {
            guard let key else {
                if let old = entry.old { plan.removals.append((entry.object, old)) }
                continue
            }
            if let old = entry.old {
                if old != key {
                    plan.moves.append((entry.object, old, key))
                } else if entry.reportUpdate {
                    plan.updates.append((entry.object, key))
                }
            } else {
                plan.insertions.append((entry.object, key))
            }
        }
        guard !plan.isEmpty else { return }
        let streaming = broadcaster.hasListeners
        delegate?.controllerWillChangeContent(self)
        if streaming { broadcaster.send(.willChangeContent) }
        do {
            let report = try perform(plan)
            deliver(report, streaming: streaming)
        } catch {
            // The results and the keys disagree (cannot happen unless objects changed without a
            // notification): close the batch and start over rather than report wrong index paths.
            delegate?.controllerDidChangeContent(self)
            if streaming { broadcaster.send(.didChangeContent) }
            reloadAfterReset()
        }
    }

    private struct Inconsistency: Error {}

    /// Applies a plan to the sections and returns the changes to report.
    private func perform(_ plan: ChangePlan<T>) throws -> ChangeReport<T> {
        // 1. Old positions, in the results before the change.
        func oldPosition(_ o: T, _ key: RowKey) throws -> (Int, Int) {
            guard let p = locate(o.objectID, key: key) else { throw Inconsistency() }
            return p
        }
        let removalPaths = try plan.removals.map { try oldPosition($0.0, $0.1) }
        let moveFrom = try plan.moves.map { try oldPosition($0.0, $0.1) }
        let updateFrom = try plan.updates.map { try oldPosition($0.0, $0.1) }

        // The objects the plan names, by ID (sections' descriptions are made of them).
        var known: [ManagedObjectID: T] = [:]
        for (o, _) in plan.removals { known[o.objectID] = o }
        for (o, _) in plan.insertions { known[o.objectID] = o }
        for (o, _, _) in plan.moves { known[o.objectID] = o }

        // 2. Sections that lose every object (they may be refilled below).
        var leaving: [Int: [Int]] = [:]
        for (s, r) in removalPaths + moveFrom { leaving[s, default: []].append(r) }
        var emptied: [AttributeValue: (index: Int, info: FetchedResultsSectionInfo<T>)] = [:]
        for (s, rows) in leaving where rows.count == sectionStore[s].count {
            emptied[sectionStore[s].key] = (s, info(ofSection: s, known: known))
        }

        // 3. Take the leaving objects out, last rows first.
        for (s, rows) in leaving { remove(rows: rows, from: s) }

        // 4. File the arriving objects at their new keys.
        let created = file(plan.insertions + plan.moves.map { ($0.0, $0.2) })

        // 5. Drop the sections left empty.
        sectionStore.removeAll { $0.ids.isEmpty }
        flattened = nil

        // 6. New positions, in the results after the change.
        func newPosition(_ o: T, _ key: RowKey) throws -> (Int, Int) {
            guard let p = locate(o.objectID, key: key) else { throw Inconsistency() }
            return p
        }
        let insertTo = try plan.insertions.map { try newPosition($0.0, $0.1) }
        let moveTo = try plan.moves.map { try newPosition($0.0, $0.2) }
        let updateTo = try plan.updates.map { try newPosition($0.0, $0.1) }

        var report = ChangeReport<T>()
        for (key, e) in emptied where !sectionSearch(key).found {
            report.sectionDeletes.append((e.info, e.index))
        }
        report.sectionDeletes.sort { $0.1 < $1.1 }
        for key in created {
            let (s, found) = sectionSearch(key)
            if found { report.sectionInserts.append((info(ofSection: s, known: known), s)) }
        }
        report.sectionInserts.sort { $0.1 < $1.1 }

        func path(_ p: (Int, Int)) -> IndexPath { IndexPath(indexes: [p.0, p.1]) }
        for (i, (o, _)) in plan.removals.enumerated() { report.objects.append(.delete(o, at: path(removalPaths[i]))) }
        for (i, (o, _)) in plan.insertions.enumerated() { report.objects.append(.insert(o, at: path(insertTo[i]))) }

        // 7. Moves: one that keeps its index path and its place among the objects that stay is an update.
        var leftBefore: [Int: [Int]] = [:], arrivedBefore: [Int: [Int]] = [:]
        for (s, r) in removalPaths + moveFrom { leftBefore[s, default: []].append(r) }
        for (s, r) in insertTo + moveTo { arrivedBefore[s, default: []].append(r) }
        for s in leftBefore.keys { leftBefore[s]?.sort() }
        for s in arrivedBefore.keys { arrivedBefore[s]?.sort() }
        func countBelow(_ rows: [Int]?, _ r: Int) -> Int {
            guard let rows else { return 0 }
            var lo = 0, hi = rows.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if rows[mid] < r { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }
        for (i, (o, oldKey, newKey)) in plan.moves.enumerated() {
            let from = moveFrom[i], to = moveTo[i]
            if from == to, oldKey.section == newKey.section,
                from.1 - countBelow(leftBefore[from.0], from.1) == to.1 - countBelow(arrivedBefore[to.0], to.1)
            {
                report.objects.append(.update(o, at: path(from), newIndexPath: path(to)))
            } else {
                report.objects.append(.move(o, from: path(from), to: path(to)))
            }
        }
        for (i, (o, _)) in plan.updates.enumerated() {
            report.objects.append(.update(o, at: path(updateFrom[i]), newIndexPath: path(updateTo[i])))
        }
        return report
    }

    /// Reports a batch's changes and its end (its start was reported before it was applied).
    private func deliver(_ report: ChangeReport<T>, streaming: Bool) {
        for (info, index) in report.sectionDeletes {
            let change = FetchedResultsSectionChange<T>.delete(info, at: index)
            delegate?.controller(self, didChangeSection: change)
            if streaming { broadcaster.send(.section(change.map(\.objectID))) }
        }
        for (info, index) in report.sectionInserts {
            let change = FetchedResultsSectionChange<T>.insert(info, at: index)
            delegate?.controller(self, didChangeSection: change)
            if streaming { broadcaster.send(.section(change.map(\.objectID))) }
        }
        for change in report.objects {
            delegate?.controller(self, didChange: change)
            if streaming { broadcaster.send(.object(change.map(\.objectID))) }
        }
        delegate?.controllerDidChangeContent(self)
        if streaming { broadcaster.send(.didChangeContent) }
    }
}

/// What a batch of changes does to the results, before it is applied.
struct ChangePlan<T: ManagedObject> {
    var removals: [(T, RowKey)] = []
    var insertions: [(T, RowKey)] = []
    /// Object, old keys, new keys.
    var moves: [(T, RowKey, RowKey)] = []
    var updates: [(T, RowKey)] = []

    var isEmpty: Bool { removals.isEmpty && insertions.isEmpty && moves.isEmpty && updates.isEmpty }
}

/// The changes to report for one batch, in delivery order.
struct ChangeReport<T: ManagedObject> {
    var sectionDeletes: [(FetchedResultsSectionInfo<T>, Int)] = []
    var sectionInserts: [(FetchedResultsSectionInfo<T>, Int)] = []
    /// Deletes, inserts, moves, updates.
    var objects: [FetchedResultsChange<T>] = []
}
