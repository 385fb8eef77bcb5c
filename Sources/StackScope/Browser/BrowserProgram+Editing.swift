import CoreStack
import Foundation

// Editing, saving, merge QA and the reset demo: the program's side of ``EditCommand``. Edits go
// to the context in use; on the main context they first open a scratch child (`scratch-1`, …)
// and switch to it, so the main context only ever changes by saves.
extension BrowserProgram {
    var currentScratch: ScratchContexts.Scratch? { scratch.named(currentContextName) }

    /// The contexts as the status bar and the picker show them, main first.
    func contextInfos() -> [ContextInfo] {
        let root = session.rootContext
        let rootPolicy = root.performAndWait { root.mergePolicy.name }
        let nested = session.stack != nil
        var out = [ContextInfo(name: "main", kind: .main, pending: PendingChanges(of: session.mainContext), mergePolicy: rootPolicy + (nested ? " (root)" : ""))]
        for s in scratch.all {
            let c = s.context
            let undo = c.undoManager
            out.append(ContextInfo(
                name: s.name, kind: s.kind, pending: PendingChanges(of: c),
                mergePolicy: s.kind == .child ? rootPolicy + " (root)" : c.mergePolicy.name,
                canUndo: undo?.canUndo ?? false, canRedo: undo?.canRedo ?? false))
        }
        return out
    }

    func runEdit(_ edit: EditCommand) {
        if state.store.readOnly, edit.writes {
            dispatch(.message("Read-only: \(state.store.readOnlyReason ?? "the store is open read-only"); nothing is written", .warning))
            return
        }
        do {
            try perform(edit)
        } catch {
            let line = StackScopeErrorMessage.line(for: error)
            if case .setValue = edit { dispatch(.editResult(error: line)) } else { dispatch(.message(line, .error)) }
        }
    }

    private func perform(_ edit: EditCommand) throws {
        switch edit {
        case let .beginEdit(id, key):
            let ctx = try editingContext()
            let o = try ctx.existingObject(with: id)
            guard let a = o.entity.attribute(named: key) else {
                if o.entity.relationship(named: key) != nil { return try perform(.beginLink(id, key: key)) }
                throw CoreStackError.unknownKey(entity: o.entity.name, key: key)
            }
            if a.type == .boolean {
                let now = try o.attributeValue(forKey: key)
                let new = AttributeValue.bool(!(now.boolValue ?? false))
                try change(ctx, "Toggle \(key)") { try o.setAttributeValue(new, forKey: key) }
                dispatch(.message("\(key) → \(ValueFormatter.detail(new)) in \(currentContextName) (not saved)", .info))
                return
            }
            if a.type == .transformable || a.type == .undefined || a.type == .objectID {
                throw BrowserError.notEditable(key: key, reason: "\(a.type.xcodeName) values are not edited in the browser")
            }
            let field = EditorField(
                key: key, typeDescription: ValueParser.describe(a),
                text: ValueParser.text(for: try o.attributeValue(forKey: key), type: a.type), isFilePath: a.type == .binaryData,
                isMultiLine: a.type == .string)
            dispatch(.showModal(.editor(EditorState(objectID: id, objectTitle: Self.describe(o), field: field))))

        case let .setValue(id, key, text, isFilePath):
            let ctx = data.context
            let o = try ctx.existingObject(with: id)
            guard let a = o.entity.attribute(named: key) else { throw CoreStackError.unknownKey(entity: o.entity.name, key: key) }
            let value = try ValueParser.parse(text, for: a, isFilePath: isFilePath)
            do {
                try o.validateValue(value, forKey: key)
            } catch let CoreStackError.validation(_, _, _, reason) {
                // The editor names the object already: the model's reason is enough.
                throw BrowserError.invalidValue(key: key, type: a.type.xcodeName, text: text, reason: "the model says \(reason)")
            }
            try change(ctx, "Edit \(key)") { try o.setAttributeValue(value, forKey: key) }
            dispatch(.editResult(error: nil))

        case let .setNil(id, key):
            let ctx = try editingContext()
            let o = try ctx.existingObject(with: id)
            if let a = o.entity.attribute(named: key) {
                guard a.isOptional else { throw BrowserError.notEditable(key: key, reason: "it is required (not optional), so it cannot be nil") }
                try change(ctx, "Clear \(key)") { try o.setAttributeValue(.null, forKey: key) }
            } else if let r = o.entity.relationship(named: key) {
                guard !r.isToMany else {
                    throw BrowserError.notEditable(key: key, reason: "open it (Enter) and press x on the object to unlink")
                }
                try change(ctx, "Unlink \(key)") { try o.setObject(nil, forKey: key) }
            } else {
                throw CoreStackError.unknownKey(entity: o.entity.name, key: key)
            }
            dispatch(.message("\(key) → nil in \(currentContextName) (not saved)", .info))

        case let .insert(entityName, ownerID, key):
            let ctx = try editingContext()
            let entity = try session.model.requireEntity(entityName)
            guard !entity.isAbstract else {
                throw BrowserError.notEditable(key: entityName, reason: "it is abstract: insert one of \(entity.subentities.map(\.name).sorted().joined(separator: ", "))")
            }
            var inserted: ManagedObject?
            var linked = ""
            try change(ctx, "Insert \(entityName)") {
                let o = try ctx.insertObject(forEntityName: entityName)
                inserted = o
                // From a relationship's table: into the relationship shown (its table lists only its objects).
                if let ownerID, let key {
                    let owner = try ctx.existingObject(with: ownerID)
                    guard let r = owner.entity.relationship(named: key) else { throw CoreStackError.unknownKey(entity: owner.entity.name, key: key) }
                    if r.isToMany { try owner.add(o, toKey: key) } else { try owner.setObject(o, forKey: key) }
                    linked = ", added to \(Self.describe(owner)).\(key)"
                }
                // The table selects the new row when it learns of it.
                data.selectedID = o.objectID
            }
            guard let o = inserted else { return }
            let fields = try o.entity.allAttributes.filter { !$0.isTransient && !$0.isOptional }.compactMap { a -> EditorField? in
                guard try o.attributeValue(forKey: a.name).isNull else { return nil }
                return EditorField(
                    key: a.name, typeDescription: ValueParser.describe(a), text: "", isFilePath: a.type == .binaryData, isMultiLine: a.type == .string)
            }
            dispatch(.message("Inserted a \(entityName)\(linked) in \(currentContextName) (defaults from the model; not saved)", .info))
            if let first = fields.first {
                dispatch(.showModal(.editor(EditorState(
                    objectID: o.objectID, objectTitle: "new \(entityName)", field: first, next: Array(fields.dropFirst()), insertion: true))))
            }

        case let .move(ownerID, key, id, by):
            let ctx = try editingContext()
            let owner = try ctx.existingObject(with: ownerID)
            guard let r = owner.entity.relationship(named: key) else { throw CoreStackError.unknownKey(entity: owner.entity.name, key: key) }
            guard r.isOrdered else { throw BrowserError.notEditable(key: key, reason: "it is not ordered: its objects have no order to change") }
            var objects = try owner.objects(forKey: key)
            guard let from = objects.firstIndex(where: { $0.objectID == id }) else {
                throw BrowserError.notEditable(key: key, reason: "the object is no longer in it")
            }
            let to = min(max(0, from + by), objects.count - 1)
            guard to != from else {
                dispatch(.message("Already \(by < 0 ? "first" : "last") in \(Self.describe(owner)).\(key)", .info))
                return
            }
            let moved = objects.remove(at: from)
            objects.insert(moved, at: to)
            try change(ctx, "Move in \(key)") { try owner.setObjects(objects, forKey: key) }
            dispatch(.message("Moved \(Self.describe(moved)) to \(to + 1) of \(objects.count) in \(Self.describe(owner)).\(key) in \(currentContextName) (not saved)", .info))

        case let .previewDelete(id):
            let ctx = try editingContext()
            let o = try ctx.existingObject(with: id)
            let plan = try ctx.deletionPlan(for: o)
            var lines = ["Deletes \(Self.describe(o)) in \(currentContextName) (saved only with :w)."]
            lines += Self.planLines(plan, in: ctx)
            if !plan.denied.isEmpty {
                lines.append("Refused: the deny rule above keeps the object while it has those destinations.")
                dispatch(.showModal(.confirm(ConfirmState(title: "Cannot delete \(Self.describe(o))", lines: lines, onYes: nil))))
            } else {
                dispatch(.showModal(.confirm(ConfirmState(title: "Delete \(Self.describe(o))?", lines: lines, onYes: .perform(.edit(.delete(id)))))))
            }

        case let .delete(id):
            let ctx = data.context
            let o = try ctx.existingObject(with: id)
            let plan = try ctx.deletionPlan(for: o)
            let title = Self.describe(o)
            try change(ctx, "Delete \(o.entity.name)") { try ctx.delete(o) }
            let extra = plan.cascaded.isEmpty ? "" : " and \(plan.cascaded.count) by cascade"
            dispatch(.message("Deleted \(title)\(extra) in \(currentContextName) (not saved: :w saves, u undoes)", .info))

        case let .beginLink(id, key):
            let ctx = try editingContext()
            let o = try ctx.existingObject(with: id)
            guard let r = o.entity.relationship(named: key) else { throw CoreStackError.unknownKey(entity: o.entity.name, key: key) }
            dispatch(.pickStarted(PickState(owner: id, ownerTitle: Self.describe(o), key: key, destination: r.destinationEntityName)))

        case let .link(owner, key, target):
            let ctx = data.context
            let o = try ctx.existingObject(with: owner)
            let t = try ctx.existingObject(with: target)
            guard let r = o.entity.relationship(named: key) else { throw CoreStackError.unknownKey(entity: o.entity.name, key: key) }
            try change(ctx, "Link \(key)") {
                if r.isToMany { try o.add(t, toKey: key) } else { try o.setObject(t, forKey: key) }
            }
            dispatch(.message("Linked \(Self.describe(t)) to \(Self.describe(o)).\(key) in \(currentContextName) (not saved)", .info))

        case let .unlink(owner, key, target):
            let ctx = try editingContext()
            let o = try ctx.existingObject(with: owner)
            guard let r = o.entity.relationship(named: key) else { throw CoreStackError.unknownKey(entity: o.entity.name, key: key) }
            try change(ctx, "Unlink \(key)") {
                if r.isToMany, let target { try o.remove(try ctx.existingObject(with: target), fromKey: key) } else { try o.setObject(nil, forKey: key) }
            }
            dispatch(.message("Unlinked from \(Self.describe(o)).\(key) in \(currentContextName) (not saved)", .info))

        case .previewSave, .previewDiscard:
            let ctx = data.context
            let saving = edit == .previewSave
            // Main and child contexts save through the stack: changes left above them (a save
            // that failed at the root) are saved again from here.
            let throughStack = (currentScratch?.kind ?? .main) == .main || currentScratch?.kind == .child
            guard ctx.hasChanges || saving && throughStack && stackHasChanges() else {
                throw BrowserError.nothingTo(saving ? "save in \(currentContextName)" : "discard in \(currentContextName)")
            }
            var lines = Self.changeLines(ctx)
            if lines.isEmpty { lines = ["No changes here; the main and root contexts hold changes a save did not write yet."] }
            let target = currentScratch?.kind.saveTarget ?? ContextInfo.Kind.main.saveTarget
            lines.insert(saving ? "Saving \(currentContextName) \(target):" : "Discarding drops these changes of \(currentContextName):", at: 0)
            dispatch(.showModal(.confirm(ConfirmState(
                title: saving ? "Save \(currentContextName)?" : "Discard the changes of \(currentContextName)?", lines: lines,
                onYes: .perform(.edit(saving ? .save : .discard))))))

        case .save:
            try save()

        case .discard:
            let ctx = data.context
            let n = PendingChanges(of: ctx).total
            ctx.rollback()
            ctx.undoManager?.removeAllActions()
            dispatch(.message("Discarded \(n) changed object\(n == 1 ? "" : "s") in \(currentContextName)", .info))

        case .undo, .redo:
            let ctx = data.context
            guard let undo = ctx.undoManager else { throw BrowserError.nothingTo("undo in \(currentContextName): edits happen in scratch contexts") }
            let name = edit == .undo ? undo.undoActionName : undo.redoActionName
            guard edit == .undo ? undo.canUndo : undo.canRedo else { throw BrowserError.nothingTo(edit == .undo ? "undo" : "redo") }
            if edit == .undo { undo.undo() } else { undo.redo() }
            ctx.processPendingChanges()
            reloadDetail()
            dispatch(.message("\(edit == .undo ? "Undid" : "Redid") \(name.isEmpty ? "the last edit" : name) in \(currentContextName)", .info))

        case let .switchContext(name):
            guard name == "main" || scratch.named(name) != nil else {
                throw BrowserError.unknownContext(name: name, known: ["main"] + scratch.all.map(\.name))
            }
            switchTo(name)

        case let .newContext(kind):
            let s = try scratch.open(kind)
            switchTo(s.name)
            dispatch(.message("Opened \(s.name): \(kind.rawValue), \(kind.saveTarget)", .info))

        case let .mergePolicy(name):
            guard let policy = MergePolicy(name: name) else {
                throw BrowserError.invalidValue(key: "mergepolicy", type: "merge policy", text: name, reason: "one of error, objecttrump, storetrump, overwrite, rollback")
            }
            let target: ManagedObjectContext
            if let s = currentScratch, s.kind != .child { target = s.context } else { target = session.rootContext }
            target.performAndWait { target.mergePolicy = policy }
            let whose = target === data.context ? currentContextName : "root (where \(currentContextName)'s saves meet the store)"
            dispatch(.message("Merge policy of \(whose): \(policy.name)", .info))

        case let .refreshObjects(ids, keep):
            let ctx = conflictContext ?? data.context
            try ctx.performAndWait {
                for id in ids { ctx.refresh(try ctx.existingObject(with: id), mergeChanges: keep) }
                ctx.processPendingChanges()
            }
            reloadDetail()
            dispatch(.message("Refreshed \(ids.count) object\(ids.count == 1 ? "" : "s") from the store, \(keep ? "keeping" : "dropping") local changes; :w saves again", .info))

        case .previewReset:
            let total = data.counts.filter { name, _ in session.model.entities.first { $0.name == name }?.superentity == nil }.values.reduce(0, +)
            var lines = ["Deletes the store file \(session.storeURL?.path ?? "(in memory)") with its -wal and -shm files,",
                         "\(total) objects in all, and starts again with an empty store."]
            let unsaved = contextInfos().filter { $0.pending.total > 0 }
            if !unsaved.isEmpty {
                lines.append("Unsaved changes that are lost:")
                lines += unsaved.map { "  \($0.name): \($0.pending.inserted) inserted, \($0.pending.updated) updated, \($0.pending.deleted) deleted" }
            }
            lines.append(session.manager != nil ? "Done by restarting the shared PersistentStoreManager on a new file." : "Done by CoreDataStack.resetStore().")
            dispatch(.showModal(.confirm(ConfirmState(title: "Reset the store?", lines: lines, onYes: .perform(.edit(.reset))))))

        case .reset:
            resetStore()
        case .corrupt:
            corruptDemoStore()
        case .reseed:
            reseed()
        case .history:
            dispatch(.showModal(.confirm(try historyReport())))
        case .showModel:
            dispatch(.showModal(.model(ModelViewState(graph: ModelGraph(model: session.model)))))
        case let .stats(entity, property, filter):
            try startStats(entity: entity, property: property, filter: filter)
        }
    }

    /// A column's figures over the table's objects and filter (``StatsCommand/renderText(_:width:)``),
    /// computed in the store's SQL on a background queue while the status line says so; Esc
    /// cancels the query (``SQLiteStore/columnStatistics(_:cancellation:)``), and a result that
    /// comes after a cancel is dropped.
    private func startStats(entity name: String, property: String, filter: String?) throws {
        guard let store = session.coordinator.persistentStore as? SQLiteStore else {
            throw BrowserError.nothingTo("compute: statistics run in SQL, and this store is not an SQLite file")
        }
        guard let entity = session.model.entity(named: name) else { throw CoreStackError.unknownEntity(name) }
        let request = ColumnStatisticsRequest(entity: entity, property: property, predicate: try filter.map { try CoreStack.Predicate(format: $0) })
        let cancellation = FetchCancellation()
        statsCancellation = cancellation
        let epoch = workEpoch
        let ref = ProgramRef(self)
        DispatchQueue.global().async {
            let result = Result { try store.columnStatistics(request, cancellation: cancellation) }
            DispatchQueue.main.async {
                guard let program = ref.program, program.workEpoch == epoch, !cancellation.isCancelled else { return }
                program.statsCancellation = nil
                switch result {
                case let .success(stats):
                    var lines = StatsCommand.renderText(stats).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                    lines.removeFirst()
                    if let filter { lines.insert("Filter:    \(filter)", at: 0) }
                    var report = ConfirmState(title: "\(name).\(property)", lines: lines, onYes: nil)
                    // The most common values' lines (after their table's header and rule) filter the table.
                    if let start = lines.firstIndex(of: "Most common") {
                        for (i, common) in stats.mostCommon.enumerated() where lines.indices.contains(start + 3 + i) {
                            guard let value = StatsCommand.filter(for: common.value, property: property) else { continue }
                            report.filters[start + 3 + i] = filter.map { "(\($0)) AND \(value)" } ?? value
                        }
                    }
                    // And the histogram's bins (after theirs): Enter keeps the objects in the bin's range.
                    if let start = lines.firstIndex(of: "Histogram") {
                        for i in stats.histogram.indices where lines.indices.contains(start + 3 + i) {
                            guard let range = StatsCommand.filter(forBin: i, of: stats) else { continue }
                            report.filters[start + 3 + i] = filter.map { "(\($0)) AND \(range)" } ?? range
                        }
                    }
                    report.selectedLine = report.filters.keys.min()
                    program.dispatch(.message("Statistics of \(name).\(property): \(stats.rowCount) objects", .info))
                    program.dispatch(.showModal(.confirm(report)))
                case let .failure(error):
                    program.dispatch(.message(StackScopeErrorMessage.line(for: error), .error))
                }
            }
        }
    }

    /// The store's persistent history as a list: the last 200 transactions, each with when, who
    /// (process, author, context) and what it changed.
    private func historyReport() throws -> ConfirmState {
        guard let store = session.coordinator.persistentStore as? SQLiteStore, try store.hasPersistentHistory() else {
            throw BrowserError.nothingTo("show: this store keeps no persistent history (Core Data's ATRANSACTION tables)")
        }
        var request = PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
        request.fetchLimit = 0
        let all = try session.coordinator.execute(request).transactions
        let shown = all.suffix(200)
        var lines = ["\(all.count) transactions\(all.count > shown.count ? ", the last \(shown.count) shown" : ""); tracking \(store.tracksPersistentHistory ? "on" : "off") in this window", ""]
        let style = Date.ISO8601FormatStyle(timeZone: .current)
        for t in shown {
            var counts: [PersistentHistoryChange.ChangeType: Int] = [:]
            for c in t.changes { counts[c.changeType, default: 0] += 1 }
            let who = [t.processID.map { "pid \($0)" }, t.bundleID, t.author.map { "author \($0)" }, t.contextName.map { "context \($0)" }]
                .compactMap { $0 }.joined(separator: " · ")
            lines.append("#\(t.transactionNumber)  \(t.timestamp.formatted(style))  +\(counts[.insert] ?? 0) ~\(counts[.update] ?? 0) −\(counts[.delete] ?? 0)  \(who)")
        }
        return ConfirmState(title: "Persistent history of \(session.storeURL?.lastPathComponent ?? "the store")", lines: lines, onYes: nil)
    }

    // MARK: Contexts

    /// The context edits go to: the one in use, or a new scratch child when that is the main context.
    private func editingContext() throws -> ManagedObjectContext {
        if currentScratch != nil { return data.context }
        let s = try scratch.open(.child)
        switchTo(s.name)
        dispatch(.message("Editing in \(s.name), a child of the main context (:w saves, :discard drops)", .info))
        return s.context
    }

    /// Makes `name` the context in use: the table is fetched again through it, as it sees the objects.
    func switchTo(_ name: String) {
        currentContextName = name
        data.context = scratch.named(name)?.context ?? session.mainContext
        if let source = state.table.source {
            do {
                let opened = try data.openTable(
                    source, sort: state.table.sort, sectioned: state.table.sectioned, filter: state.table.filter,
                    keepSelection: state.table.selectedID ?? data.selectedID)
                dispatch(.tableOpened(opened))
            } catch {
                dispatch(.tableFailed(source: source, message: StackScopeErrorMessage.line(for: error)))
            }
        }
        dispatch(.contextsChanged(contextInfos(), current: name))
    }

    /// One user action on a context: grouped for undo, announced to the table and detail.
    private func change(_ ctx: ManagedObjectContext, _ name: String, _ body: () throws -> Void) throws {
        let undo = ctx.undoManager
        undo?.beginUndoGrouping()
        defer {
            undo?.setActionName(name)
            undo?.endUndoGrouping()
            ctx.processPendingChanges()
            reloadDetail()
        }
        try body()
    }

    /// Reads the detail of the object shown again (its values changed in the context in use).
    func reloadDetail() {
        guard let id = state.detail.snapshot?.objectID ?? state.table.selectedID else { return }
        do {
            dispatch(.detailLoaded(try data.detail(for: id), error: nil))
        } catch {
            dispatch(.detailLoaded(nil, error: StackScopeErrorMessage.line(for: error)))
        }
    }

    /// Whether the main context (or, in a nested stack, the root) holds changes not on disk yet.
    private func stackHasChanges() -> Bool {
        let main = session.mainContext
        let root = session.rootContext
        return main.performAndWait { main.hasChanges } || root.performAndWait { root.hasChanges }
    }

    // MARK: Saving

    private func save() throws {
        let ctx = data.context
        let kind = currentScratch?.kind ?? .main
        let replaced = kind == .child ? Self.replacedInParent(ctx, name: currentContextName) : []
        let counts = PendingChanges(of: ctx)
        do {
            conflictContext = ctx
            if ctx.hasChanges { try ctx.save() }
            ctx.undoManager?.removeAllActions()
            var resolutions = ctx.lastSaveMergeResolutions
            if kind == .child || kind == .main {
                conflictContext = session.rootContext
                let root = session.rootContext
                try session.saveAll()
                resolutions += root.performAndWait { root.lastSaveMergeResolutions }
            }
            conflictContext = nil
            // A save may delete (cascade) objects the main context never read: its monitors miss those.
            data.recount()
            // The saved values are no longer unsaved changes: the rows and the detail drop their marks.
            data.changesSettled()
            reloadDetail()
            let where_ = kind.saveTarget
            dispatch(.message("Saved \(currentContextName): \(counts.inserted) inserted, \(counts.updated) updated, \(counts.deleted) deleted; \(where_)", .info))
            var lines: [String] = []
            if !replaced.isEmpty {
                lines.append("\(currentContextName) is a child of main: its save pushed into main with no conflict check,")
                lines.append("so it replaced values main had taken from an earlier save (no merge policy runs here):")
                lines += replaced
            }
            if !resolutions.isEmpty {
                if !lines.isEmpty { lines.append("") }
                lines += Self.resolutionLines(resolutions, in: ctx)
            }
            if !lines.isEmpty {
                // Through the main queue, as the did-saves of this save came: after them.
                MainMailbox(self).post(.saveLogged(SaveLogEntry(
                    date: clock(), contextName: currentContextName, origin: .event, inserted: [], updated: [], deleted: [],
                    note: replaced.isEmpty ? "merge: \(resolutions.count) conflict\(resolutions.count == 1 ? "" : "s") resolved by policy" : "replaced \(replaced.count) values in main")))
                dispatch(.showModal(.confirm(ConfirmState(title: "Save of \(currentContextName): what won", lines: lines, onYes: nil))))
            }
        } catch let CoreStackError.mergeConflict(conflicts) {
            let who = conflictContext === data.context ? currentContextName : "root"
            var lines = ["Optimistic locking: these objects changed in the store since \(who) read them.",
                         "The merge policy is “error”, so nothing was saved and the changes stay in \(who).", ""]
            let failed = conflictContext ?? data.context
            for c in conflicts {
                // The object by its name first, then the framework's account (which names it by key).
                let name = failed.performAndWait { (try? failed.existingObject(with: c.sourceObjectID)).map(Self.describe) }
                if let name { lines.append(name + ":") }
                lines += c.description.split(separator: "\n").map { "  " + $0 }
            }
            lines += ["", "k: refresh keeping your changes (object trump by hand) · x: refresh dropping them",
                      ":mergepolicy objecttrump|storetrump|overwrite|rollback, then :w, saves again under that policy"]
            let ids = conflicts.map(\.sourceObjectID)
            let choices = [
                ConfirmChoice(key: .char("k"), label: "keep mine", action: .perform(.edit(.refreshObjects(ids, keepChanges: true)))),
                ConfirmChoice(key: .char("x"), label: "drop mine", action: .perform(.edit(.refreshObjects(ids, keepChanges: false)))),
            ]
            MainMailbox(self).post(.saveLogged(SaveLogEntry(
                date: clock(), contextName: who, origin: .event, inserted: [], updated: [], deleted: [],
                note: "conflict: \(conflicts.count) object\(conflicts.count == 1 ? "" : "s"), policy error, nothing saved")))
            dispatch(.showModal(.confirm(ConfirmState(title: "Merge conflict saving \(currentContextName)", lines: lines, onYes: nil, choices: choices))))
        }
    }

    // MARK: Describing changes

    static func describe(_ o: ManagedObject) -> String { "\(o.entity.name) “\(ValueFormatter.displayName(of: o))”" }

    static func format(_ v: PropertyValue?, in ctx: ManagedObjectContext) -> String {
        switch v {
        case nil: return "nil"
        case let .attribute(a)?: return a.isNull ? "nil" : ValueFormatter.cell(a)
        case let .toOne(id)?: return id.flatMap { try? ctx.existingObject(with: $0) }.map(describe) ?? "nil"
        case let .toMany(ids)?: return "\(ids.count) objects"
        }
    }

    /// The pending changes of a context, for the save and discard previews: inserted objects with
    /// their values, updated ones with each changed property as old → new, deleted ones.
    static func changeLines(_ ctx: ManagedObjectContext) -> [String] {
        var lines: [String] = []
        let byName: (ManagedObject, ManagedObject) -> Bool = { describe($0) < describe($1) }
        let inserted = ctx.inserted.sorted(by: byName)
        let updated = ctx.updated.sorted(by: byName)
        let deleted = ctx.deleted.sorted(by: byName)
        if !inserted.isEmpty {
            lines.append("Inserted (\(inserted.count)):")
            for o in inserted {
                lines.append("  + \(describe(o))")
                for a in o.entity.allAttributes where !a.isTransient {
                    if let v = try? o.attributeValue(forKey: a.name), !v.isNull { lines.append("      \(a.name): \(ValueFormatter.cell(v))") }
                }
            }
        }
        if !updated.isEmpty {
            lines.append("Updated (\(updated.count)):")
            for o in updated {
                lines.append("  ~ \(describe(o))")
                let changed = o.changedValues()
                let old = o.committedValues(forKeys: Array(changed.keys))
                for key in changed.keys.sorted() {
                    if case let .toMany(now)? = changed[key], case let .toMany(was)? = old[key] {
                        let added = Set(now).subtracting(was).count, removed = Set(was).subtracting(now).count
                        lines.append("      \(key): \(was.count) → \(now.count) objects (+\(added) −\(removed))")
                    } else {
                        lines.append("      \(key): \(format(old[key], in: ctx)) → \(format(changed[key], in: ctx))")
                    }
                }
            }
        }
        if !deleted.isEmpty {
            lines.append("Deleted (\(deleted.count), cascades included):")
            lines += deleted.map { "  − \(describe($0))" }
        }
        return lines
    }

    static func planLines(_ plan: DeletionPlan, in ctx: ManagedObjectContext) -> [String] {
        func name(_ id: ManagedObjectID) -> String { (try? ctx.existingObject(with: id)).map(describe) ?? id.uriRepresentation().lastPathComponent }
        func names(_ ids: [ManagedObjectID]) -> String {
            ids.prefix(3).map(name).joined(separator: ", ") + (ids.count > 3 ? " and \(ids.count - 3) more" : "")
        }
        var lines: [String] = []
        if !plan.cascaded.isEmpty { lines.append("Cascade: also deletes \(plan.cascaded.count): \(names(plan.cascaded))") }
        for l in plan.nullified { lines.append("Nullify: \(name(l.source)).\(l.relationship) loses its link to \(names(l.destinations))") }
        for l in plan.denied { lines.append("Deny: \(name(l.source)).\(l.relationship) still has \(names(l.destinations))") }
        if lines.isEmpty { lines.append("No relationships are affected.") }
        return lines
    }

    /// The values a child's save will replace in its parent: properties the child changed whose
    /// value in the parent is no longer the one the child read (another save changed them since).
    static func replacedInParent(_ ctx: ManagedObjectContext, name: String) -> [String] {
        guard let parent = ctx.parent else { return [] }
        var lines: [String] = []
        for o in ctx.updated.sorted(by: { describe($0) < describe($1) }) {
            // Attributes and to-one relationships: a to-many's members are merged by the push, not replaced.
            let changed = o.changedValues().filter { key, _ in o.entity.attribute(named: key) != nil || o.entity.relationship(named: key)?.isToMany == false }
            guard !changed.isEmpty else { continue }
            let read = o.committedValues(forKeys: Array(changed.keys))
            let inParent: [String: PropertyValue] = parent.performAndWait {
                guard let p = try? parent.existingObject(with: o.objectID) else { return [:] }
                var now: [String: PropertyValue] = [:]
                for key in changed.keys {
                    if p.entity.attribute(named: key) != nil {
                        if let v = try? p.attributeValue(forKey: key) { now[key] = .attribute(v) }
                    } else if let target = try? p.object(forKey: key) {
                        now[key] = .toOne(target.objectID)
                    } else {
                        now[key] = .toOne(nil)
                    }
                }
                return now
            }
            for key in changed.keys.sorted() where inParent[key] != nil && inParent[key] != read[key] {
                lines.append("  \(describe(o)).\(key): read \(format(read[key], in: ctx)), main had \(format(inParent[key], in: ctx)), now \(format(changed[key], in: ctx)) (\(name) won)")
            }
        }
        return lines
    }

    /// What a merge policy did, per object and property: the value the context read (cached),
    /// the store's, the context's, and the one that won.
    static func resolutionLines(_ resolutions: [MergeResolution], in ctx: ManagedObjectContext) -> [String] {
        var lines = ["Optimistic locking found these objects changed in the store since they were read;",
                     "the merge policy decided, per property (cached = what the context had read):"]
        for r in resolutions {
            let c = r.conflict
            let object = (try? ctx.existingObject(with: c.sourceObjectID)).map(describe) ?? c.sourceObjectID.uriRepresentation().lastPathComponent
            lines.append("  \(object) under \(r.policy.name) (version \(c.oldVersionNumber) → \(c.newVersionNumber)):")
            if c.persistedSnapshot == nil { lines.append("    deleted in the store") }
            for key in r.winners.keys.sorted() {
                let cached = format(c.cachedSnapshot[key], in: ctx)
                let store = c.persistedSnapshot.map { format($0[key], in: ctx) } ?? "deleted"
                let mine = format(c.objectSnapshot[key], in: ctx)
                let won = format(r.winners[key], in: ctx)
                let who = won == mine && won != store ? "context" : won == store && won != mine ? "store" : "same"
                lines.append("    \(key): cached \(cached) · store \(store) · context \(mine) → \(won) (\(who))")
            }
        }
        return lines
    }
}

extension EditCommand {
    /// Whether the command changes a context or the store (refused on a read-only store).
    var writes: Bool {
        switch self {
        case .switchContext, .newContext, .mergePolicy, .previewDiscard, .discard, .history, .showModel, .stats: false
        default: true
        }
    }
}
