import Foundation
import OrderedCollections

/// The undo stack of one ``ManagedObjectContext``, as Core Data's `NSUndoManager` on
/// `NSManagedObjectContext.undoManager`.
///
/// Named `ContextUndoManager` rather than `UndoManager`: Foundation on Linux already has an
/// `UndoManager` class, and a second type of that name would make every file that imports both
/// modules qualify it. This one records object-graph changes only (it takes no closures).
///
/// ```swift
/// context.undoManager = ContextUndoManager()
/// try context.performAndWait {
///     try context.undoGroup(named: "Edit title") { book.title = "Dune Messiah" }
///     context.undoManager?.undoActionName // "Edit title"
///     context.undo()                       // book.title == "Dune" again
///     context.redo()                       // "Dune Messiah"
/// }
/// ```
///
/// What a group records: attribute changes, to-one, to-many and ordered to-many relationship
/// changes (each side of an inverse is recorded, so undo puts both back), inserts (undo takes
/// the object out of the context) and deletes (undo brings the object back with its values and
/// relationships, together with what the delete rules cascaded or nullified in the same group).
/// Undo and redo change the objects as edits do: the context is dirty with the reverse changes
/// (also after a save, so saving again writes them), and they post objectsDidChange, so fetched
/// results controllers and monitors on the context follow.
///
/// Grouping: with ``groupsByEvent`` (the default), when no explicit group is open, the changes
/// announced by one ``ManagedObjectContext/processPendingChanges()`` (the end of a `perform`
/// block, a fetch, a save) form one group. ``beginUndoGrouping()`` / ``endUndoGrouping()`` (or
/// ``ManagedObjectContext/undoGroup(named:_:)``) make one group of everything in between.
/// ``ManagedObjectContext/rollback()`` and ``ManagedObjectContext/reset()`` clear both stacks.
///
/// The manager is confined to its context's queue, like the context's objects.
/// `@unchecked Sendable` so a context (itself `Sendable`) can hold it; every access happens on
/// the context's queue, which its entry points check.
public final class ContextUndoManager: @unchecked Sendable {
    /// The context recording into this manager (set by ``ManagedObjectContext/undoManager``).
    weak var context: ManagedObjectContext?

    /// How many groups the undo stack keeps (the oldest go first); 0 means no limit.
    ///
    /// ```swift
    /// context.undoManager?.levelsOfUndo = 20
    /// ```
    public var levelsOfUndo: Int = 0 {
        didSet { trim() }
    }

    /// Whether changes made outside an explicit group are grouped per
    /// ``ManagedObjectContext/processPendingChanges()`` (default true). When false, changes made
    /// outside ``beginUndoGrouping()`` / ``endUndoGrouping()`` are not recorded.
    public var groupsByEvent = true

    /// True while ``undo()`` runs.
    public private(set) var isUndoing = false
    /// True while ``redo()`` runs.
    public private(set) var isRedoing = false

    private var undoStack: [UndoGroup] = []
    private var redoStack: [UndoGroup] = []
    /// The group being recorded: explicit, or the implicit per-event group.
    private var open: UndoGroup?
    private var explicitDepth = 0
    private var disabledCount = 0

    /// A manager with an unlimited undo stack.
    ///
    /// ```swift
    /// context.undoManager = ContextUndoManager()
    /// ```
    public init(levelsOfUndo: Int = 0) {
        self.levelsOfUndo = levelsOfUndo
    }

    // MARK: State

    /// Whether ``undo()`` has something to undo (a recorded group, or changes of the group being
    /// recorded by event).
    public var canUndo: Bool {
        if !undoStack.isEmpty { return true }
        return explicitDepth == 0 && !(open?.entries.isEmpty ?? true)
    }

    /// Whether ``redo()`` has something to redo.
    public var canRedo: Bool { !redoStack.isEmpty }

    /// How many groups are open: the explicit ones plus the group being recorded by event.
    public var groupingLevel: Int { explicitDepth > 0 ? explicitDepth : (open == nil ? 0 : 1) }

    /// How many groups ``undo()`` can undo (the group being recorded by event counts when it has changes).
    public var undoCount: Int { undoStack.count + (explicitDepth == 0 && !(open?.entries.isEmpty ?? true) ? 1 : 0) }

    /// How many groups ``redo()`` can redo.
    public var redoCount: Int { redoStack.count }

    /// The name of the group ``undo()`` would undo ("" when it has none).
    public var undoActionName: String {
        if explicitDepth == 0, let open, !open.entries.isEmpty { return open.name }
        return undoStack.last?.name ?? ""
    }

    /// The name of the group ``redo()`` would redo ("" when it has none).
    public var redoActionName: String { redoStack.last?.name ?? "" }

    /// Names the group being recorded, or when none is open the last recorded one.
    ///
    /// ```swift
    /// context.undoManager?.setActionName("Rename")
    /// ```
    public func setActionName(_ name: String) {
        if let open {
            open.name = name
        } else if let last = undoStack.last {
            last.name = name
        }
    }

    /// Whether changes are recorded (see ``disableUndoRegistration()``).
    public var isUndoRegistrationEnabled: Bool { disabledCount == 0 }

    /// Stops recording until the matching ``enableUndoRegistration()`` (calls nest). Call the
    /// context's ``ManagedObjectContext/processPendingChanges()`` first, as with Core Data.
    ///
    /// ```swift
    /// undoManager.disableUndoRegistration()
    /// defer { undoManager.enableUndoRegistration() }
    /// try importer.run(in: context)
    /// ```
    public func disableUndoRegistration() { disabledCount += 1 }

    /// Resumes recording after ``disableUndoRegistration()``.
    public func enableUndoRegistration() { disabledCount = max(0, disabledCount - 1) }

    // MARK: Grouping

    /// Opens a group: every change until the matching ``endUndoGrouping()`` is undone in one
    /// step. Groups nest; only the outermost one is a step of the stack. A group being recorded
    /// by event is closed first.
    ///
    /// ```swift
    /// undoManager.beginUndoGrouping()
    /// book.title = "A"; book.pages = 10
    /// undoManager.endUndoGrouping()
    /// ```
    public func beginUndoGrouping() {
        if explicitDepth == 0 { closeOpenGroup() }
        explicitDepth += 1
        if open == nil { open = UndoGroup() }
    }

    /// Closes the group opened by the matching ``beginUndoGrouping()`` (a call without one is
    /// ignored).
    public func endUndoGrouping() {
        guard explicitDepth > 0 else { return }
        explicitDepth -= 1
        if explicitDepth == 0 { closeOpenGroup() }
    }

    // MARK: Undo and redo

    /// Undoes the last group (closing the group being recorded by event first) and posts the
    /// context's objectsDidChange. Returns false when there was nothing to undo, or when an
    /// explicit group is still open (undo it after ``endUndoGrouping()``).
    ///
    /// ```swift
    /// if context.undoManager?.canUndo == true { context.undo() }
    /// ```
    @discardableResult
    public func undo() -> Bool {
        guard let context, !isUndoing, !isRedoing, explicitDepth == 0 else { return false }
        context.checkQueue()
        context.processPendingChanges()  // ends the group being recorded by event
        closeOpenGroup()
        guard let group = undoStack.popLast() else { return false }
        isUndoing = true
        defer { isUndoing = false }
        for entry in group.entries.reversed() {
            context.applyUndoImage(entry.before, leaving: entry.after, to: entry.object)
        }
        redoStack.append(group)
        context.processPendingChanges()
        return true
    }

    /// Redoes the last undone group and posts the context's objectsDidChange. Returns false when
    /// there was nothing to redo. A new change after an undo clears what could be redone.
    ///
    /// ```swift
    /// context.undo()
    /// context.redo() // the change is back
    /// ```
    @discardableResult
    public func redo() -> Bool {
        guard let context, !isUndoing, !isRedoing, explicitDepth == 0 else { return false }
        context.checkQueue()
        context.processPendingChanges()
        closeOpenGroup()
        guard let group = redoStack.popLast() else { return false }
        isRedoing = true
        defer { isRedoing = false }
        for entry in group.entries {
            context.applyUndoImage(entry.after, leaving: entry.before, to: entry.object)
        }
        undoStack.append(group)
        trim()
        context.processPendingChanges()
        return true
    }

    /// Empties both stacks and drops the group being recorded.
    ///
    /// ```swift
    /// context.undoManager?.removeAllActions()
    /// ```
    public func removeAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        open = explicitDepth > 0 ? UndoGroup() : nil
    }

    // MARK: Recording (called by the context)

    /// Notes that `object` is about to change; `slot` names the relationship slot about to
    /// change, if any. The first call for an object in a group keeps its state before the change.
    func willChange(_ object: ManagedObject, relationshipSlot slot: Int?) {
        guard disabledCount == 0, !isUndoing, !isRedoing, let context else { return }
        if open == nil {
            guard groupsByEvent else { return }
            open = UndoGroup()
        }
        guard let group = open else { return }
        if !redoStack.isEmpty { redoStack.removeAll() }
        let key = ObjectIdentifier(object)
        if let i = group.index[key] {
            // A to-many slot unloaded when the object was first noted is loaded now, before its
            // first change: that is its state before the group.
            if let slot, group.entries[i].before.present, slot < group.entries[i].before.relations.count,
                case .fault = group.entries[i].before.relations[slot], slot < object.relations.count
            {
                group.entries[i].before.relations[slot] = object.relations[slot]
            }
            return
        }
        group.index[key] = group.entries.count
        let image = context.undoImage(of: object)
        group.entries.append(UndoEntry(object: object, before: image, after: image))
    }

    /// Called when the context announces its pending changes: ends the group recorded by event.
    func eventEnded() {
        if explicitDepth == 0 { closeOpenGroup() }
    }

    private func closeOpenGroup() {
        guard let group = open else { return }
        open = nil
        guard let context else { return }
        var kept: [UndoEntry] = []
        kept.reserveCapacity(group.entries.count)
        for var entry in group.entries {
            entry.after = context.undoImage(of: entry.object)
            if !entry.before.sameState(as: entry.after) { kept.append(entry) }
        }
        guard !kept.isEmpty else { return }
        group.entries = kept
        group.index = [:]
        undoStack.append(group)
        trim()
    }

    private func trim() {
        if levelsOfUndo > 0, undoStack.count > levelsOfUndo {
            undoStack.removeFirst(undoStack.count - levelsOfUndo)
        }
        if levelsOfUndo > 0, redoStack.count > levelsOfUndo {
            redoStack.removeFirst(redoStack.count - levelsOfUndo)
        }
    }
}

/// One step of the undo stack: the objects it changed, each before and after.
final class UndoGroup {
    var name = ""
    var entries: [UndoEntry] = []
    var index: [ObjectIdentifier: Int] = [:]
}

/// One object's state before and after a group.
struct UndoEntry {
    let object: ManagedObject
    var before: UndoImage
    var after: UndoImage
}

/// An object's state as the undo stack keeps it: whether it is in the context (not deleted), its
/// attribute values and its relationship slots (to-many slots never loaded stay `.fault`: unchanged).
struct UndoImage {
    var present: Bool
    var values: [AttributeValue]
    var relations: [RelationSlot]

    func sameState(as other: UndoImage) -> Bool {
        guard present == other.present else { return false }
        if !present { return true }
        guard values == other.values, relations.count == other.relations.count else { return false }
        for i in relations.indices where !Self.sameSlot(relations[i], other.relations[i]) { return false }
        return true
    }

    /// Whether two slots hold the same destinations (a `.fault` slot matches anything: it was not
    /// loaded, so not changed).
    static func sameSlot(_ a: RelationSlot, _ b: RelationSlot) -> Bool {
        switch (a, b) {
        case (.fault, _), (_, .fault): true
        case let (.toOne(x), .toOne(y)): x == y
        case let (.toMany(x), .toMany(y)): x == y
        default: false
        }
    }
}

extension ManagedObjectContext {
    /// Records the state of `object` before a change, when an undo manager is attached.
    @inline(__always)
    func noteWillChange(_ object: ManagedObject, relationshipSlot slot: Int? = nil) {
        if link.recordsUndo { undoManager?.willChange(object, relationshipSlot: slot) }
    }

    /// The object's state for the undo stack.
    func undoImage(of o: ManagedObject) -> UndoImage {
        let present = o.managedObjectContext === self && !o.isDeleted && registered[o.objectID] === o
        if o.isFault { return UndoImage(present: present, values: [], relations: []) }
        return UndoImage(present: present, values: o.values, relations: o.relations)
    }

    /// Puts `o` in the state `target`, coming from `current` (the other side of the same group):
    /// only what the group changed is written, with temporary IDs replaced by permanent ones.
    func applyUndoImage(_ target: UndoImage, leaving current: UndoImage, to o: ManagedObject) {
        let c = persistentStoreCoordinator
        func canonical(_ slot: RelationSlot) -> RelationSlot {
            switch slot {
            case .fault: return .fault
            case let .toOne(id): return .toOne(id.map { c.canonicalID($0) })
            case let .toMany(set): return .toMany(OrderedSet(set.map { c.canonicalID($0) }))
            }
        }
        let isHere = o.managedObjectContext === self && !o.isDeleted && registered[o.objectID] === o
        if !target.present {
            if isHere { markDeleted(o) }
            return
        }
        if !isHere {
            // Undo of a delete, or redo of an insert.
            if o.managedObjectContext === self, o.isDeleted, deletedObjects.contains(o) {
                // Deleted and not saved: it comes back as it was.
                deletedObjects.remove(o)
                o.changeState = .clean
            } else {
                // Inserted and taken out, or deleted and saved: it comes back as a new object.
                o.managedObjectContext = self
                o.committed = nil
                o.committedToMany = [:]
                o.faultBatch = nil
                o.faultState = .materialized
                o.changeState = .inserted
                registered[o.objectID] = o
                insertedObjects.insert(o)
            }
            if !target.values.isEmpty { o.values = target.values }
            if o.changeState == .inserted {
                o.relations = target.relations.enumerated().map { slot, rel in
                    if case .fault = rel {
                        return o.entity.allRelationships[slot].isToMany ? .toMany([]) : .toOne(nil)
                    }
                    return canonical(rel)
                }
                if o.relations.count != o.entity.allRelationships.count { o.relations = o.entity.emptyRelations }
            } else {
                for (slot, rel) in target.relations.enumerated() where slot < o.relations.count {
                    if case .fault = rel { continue }
                    o.relations[slot] = canonical(rel)
                }
                noteChangedByUndo(o)
            }
            pendingChanges.deleted.remove(o)
            pendingChanges.inserted.insert(o)
            o.pendingInsertion = true
            return
        }
        if o.isFault { try? o.fireFault() }
        if o.isFault { return }
        for i in target.values.indices where i < current.values.count && i < o.values.count {
            if target.values[i] != current.values[i] { o.values[i] = target.values[i] }
        }
        for slot in target.relations.indices where slot < current.relations.count && slot < o.relations.count {
            if case .fault = target.relations[slot] { continue }
            if UndoImage.sameSlot(target.relations[slot], current.relations[slot]) { continue }
            o.relations[slot] = canonical(target.relations[slot])
        }
        noteChangedByUndo(o)
    }

    /// Marks an object that undo or redo changed: updated (or clean again when it is back to its
    /// committed state), and announced at the next objectsDidChange.
    private func noteChangedByUndo(_ o: ManagedObject) {
        if o.changeState == .clean || o.changeState == .updated {
            if o.changedValues().isEmpty {
                o.changeState = .clean
                updatedObjects.remove(o)
            } else {
                o.changeState = .updated
                updatedObjects.insert(o)
            }
        }
        if !o.pendingInsertion && !o.pendingUpdate {
            o.pendingUpdate = true
            pendingChanges.updated.insert(o)
        }
    }

    /// Undoes the last group of the context's ``undoManager`` (a no-op without one).
    ///
    /// ```swift
    /// context.undo()
    /// ```
    public func undo() {
        undoManager?.undo()
    }

    /// Redoes the last undone group of the context's ``undoManager`` (a no-op without one).
    ///
    /// ```swift
    /// context.redo()
    /// ```
    public func redo() {
        undoManager?.redo()
    }

    /// Runs `body` as one named undo group: one ``undo()`` reverses every change it made. Without
    /// an undo manager it just runs `body`.
    ///
    /// ```swift
    /// try context.undoGroup(named: "Edit title") {
    ///     try book.setValue("Dune", forKey: "title")
    /// }
    /// context.undoManager?.undoActionName // "Edit title"
    /// ```
    public func undoGroup<T>(named name: String, _ body: () throws -> T) rethrows -> T {
        guard let manager = undoManager else { return try body() }
        manager.beginUndoGrouping()
        manager.setActionName(name)
        defer { manager.endUndoGrouping() }
        return try body()
    }
}
