import Foundation

/// Watches one entity (sub-entities included) in a context and reports the objects inserted,
/// deleted and updated, as sets, to a delegate and an `AsyncStream`: always in the order inserted,
/// deleted, updated, and only for non-empty sets.
///
/// ```swift
/// let monitor = try EntityMonitor<Book>(
///     context: context, frequency: .onSave, filterPredicate: .key("title").contains("nerd", options: [.caseInsensitive, .diacriticInsensitive]))
/// monitor.delegate = badge
/// Task { for await event in monitor.events() { print(event) } }
/// ```
///
/// **Frequency.** ``Frequency/onChange`` reports at each `processPendingChanges` of the context
/// (its objectsDidChange: the end of each `perform` block, fetches, saves, merges);
/// ``Frequency/onSave`` reports what each save of the context wrote (its did-save).
///
/// **Filter.** With a filter predicate, an inserted object is reported when it matches; an
/// updated one when it matches, *or* when it no longer matches but was reported before (so the
/// delegate learns that it left; it is then forgotten until it matches again); a deleted one when
/// it matches (as last seen) or was reported before. Without a filter every object is reported.
/// Objects the filter cannot be evaluated on (a key path into a deleted object) count as not matching.
///
/// **Queue.** A monitor belongs to its context's queue, like managed objects: create it there;
/// its delegate is called there. It is not `Sendable`; its ``events()`` stream is and carries object IDs.
public final class EntityMonitor<T: ManagedObject> {
    /// When a monitor reports.
    public enum Frequency: Sendable, Hashable {
        /// At every `processPendingChanges` (objectsDidChange).
        case onChange
        /// After every save of the context (did-save).
        case onSave
    }

    /// The context watched.
    public let managedObjectContext: ManagedObjectContext
    /// The entity watched (its sub-entities too).
    public let entity: EntityDescription
    /// When the monitor reports.
    public let frequency: Frequency
    /// Narrows what is reported (see the type's documentation for updates of objects that stop matching).
    public let filterPredicate: Predicate?
    /// Told of each non-empty set, on the context's queue.
    public weak var delegate: (any EntityMonitorDelegate<T>)?

    private var token: ObservationToken?
    /// Objects reported and not yet reported as gone (identity while the context holds them).
    private var reported = Set<ObjectIdentifier>()
    private let broadcaster = EventBroadcaster<EntityMonitorEvent>()

    /// A monitor of the entity mapped to `T` (or of `entityName`), starting at once.
    /// Create it on the context's queue.
    ///
    /// ```swift
    /// let monitor = try EntityMonitor<Book>(context: context, frequency: .onChange)
    /// let all = try EntityMonitor<ManagedObject>(context: context, entityName: "Author")
    /// ```
    public init(
        context: ManagedObjectContext, entityName: String? = nil, frequency: Frequency = .onSave, filterPredicate: Predicate? = nil
    ) throws {
        managedObjectContext = context
        if let entityName {
            entity = try context.model.requireEntity(entityName)
        } else {
            entity = try context.entity(for: T.self)
        }
        self.frequency = frequency
        self.filterPredicate = filterPredicate
        switch frequency {
        case .onChange:
            token = context.addObjectsDidChangeObserver { [weak self] change in
                if change.invalidatedAll { self?.reported.removeAll() }
                self?.report(inserted: change.inserted, deleted: change.deleted, updated: change.updated)
            }
        case .onSave:
            token = context.addDidSaveObserver { [weak self] saved in
                self?.report(inserted: saved.inserted, deleted: saved.deleted, updated: saved.updated)
            }
        }
    }

    deinit { broadcaster.finish() }

    /// A stream of the monitor's reports (sets of object IDs), from now on, until the monitor goes
    /// away. Each call gives a new stream; its buffer is unbounded.
    ///
    /// ```swift
    /// for await event in monitor.events() {
    ///     if case let .inserted(ids) = event { print(ids.count, "new") }
    /// }
    /// ```
    public func events() -> AsyncStream<EntityMonitorEvent> {
        broadcaster.stream()
    }

    private func watched(_ objects: Set<ManagedObject>) -> [T] {
        objects.compactMap { o in o.entity.isKind(of: entity) ? o as? T : nil }
    }

    private func matches(_ o: T) -> Bool {
        guard let filterPredicate else { return true }
        return (try? PredicateEvaluator.evaluate(filterPredicate, on: o)) ?? false
    }

    private func report(inserted: Set<ManagedObject>, deleted: Set<ManagedObject>, updated: Set<ManagedObject>) {
        var ins = Set<T>(), del = Set<T>(), upd = Set<T>()
        for o in watched(inserted) where matches(o) {
            ins.insert(o)
            reported.insert(ObjectIdentifier(o))
        }
        for o in watched(deleted) {
            let before = reported.remove(ObjectIdentifier(o)) != nil
            if before || matches(o) { del.insert(o) }
        }
        for o in watched(updated) where !del.contains(o) && !ins.contains(o) {
            if matches(o) {
                upd.insert(o)
                reported.insert(ObjectIdentifier(o))
            } else if reported.remove(ObjectIdentifier(o)) != nil {
                upd.insert(o)
            }
        }
        let streaming = broadcaster.hasListeners
        if !ins.isEmpty {
            delegate?.entityMonitor(self, didInsert: ins)
            if streaming { broadcaster.send(.inserted(Set(ins.map(\.objectID)))) }
        }
        if !del.isEmpty {
            delegate?.entityMonitor(self, didDelete: del)
            if streaming { broadcaster.send(.deleted(Set(del.map(\.objectID)))) }
        }
        if !upd.isEmpty {
            delegate?.entityMonitor(self, didUpdate: upd)
            if streaming { broadcaster.send(.updated(Set(upd.map(\.objectID)))) }
        }
    }
}

/// Not `Sendable`: an entity monitor belongs to its context's queue, like managed objects.
/// Hand its `events()` stream (which is `Sendable`) to other tasks instead.
@available(*, unavailable)
extension EntityMonitor: Sendable {}
