import CoreStack
import Foundation

// Editing in scratch contexts, merge QA and the reset demo: keys and `:` commands become
// ``EditCommand``s for the program; its answers (editors, previews, reports) come back as actions.
extension App {
    static func updateEditing(_ s: inout AppState, _ action: Action) -> [Command] {
        switch action {
        case let .perform(command):
            switch command {
            case .edit(.reset): s.busy = "Resetting the store"
            case .edit(.corrupt): s.busy = "Damaging the demo store and restarting the manager"
            case .edit(.reseed): s.busy = "Seeding the demo library"
            default: break
            }
            return [command]
        case let .showModal(modal):
            s.busy = nil
            s.modals.append(modal)
            return []
        case let .editResult(error):
            guard case var .editor(e)? = s.topModal else {
                if let error { setStatus(&s, error, .error) }
                return []
            }
            e.applying = false
            if let error {
                e.error = error
                s.modals[s.modals.count - 1] = .editor(e)
                return []
            }
            setStatus(&s, "\(e.field.key) set in \(s.currentContext) (not saved: :w saves, u undoes)", .info)
            guard !e.next.isEmpty else {
                s.modals.removeLast()
                return []
            }
            var next = EditorState(
                objectID: e.objectID, objectTitle: e.objectTitle, field: e.next[0], next: Array(e.next.dropFirst()), insertion: e.insertion)
            next.error = nil
            s.modals[s.modals.count - 1] = .editor(next)
            return []
        case let .contextsChanged(infos, current):
            s.contexts = infos
            s.currentContext = current
            s.store.contextName = current
            return []
        case let .pickStarted(p):
            s.picking = p
            pushNavigation(&s, label: "\(p.ownerTitle).\(p.key) ← pick")
            s.focus = .table
            setStatus(&s, "Pick a \(p.destination) for \(p.ownerTitle).\(p.key): Enter links the selected one, Esc gives up", .info)
            s.busy = "Fetching \(p.destination)"
            return [.openTable(.entity(p.destination), sort: [], sectioned: false, filter: nil, keepSelection: nil)]
        case let .storeReplaced(note, date):
            s.busy = nil
            s.modals.removeAll()
            s.navigation.removeAll()
            s.picking = nil
            s.table = TableState()
            s.detail = DetailState()
            s.pendingChanges = PendingChanges()
            s.saves.append(SaveLogEntry(date: date, contextName: "store", origin: .event, inserted: [], updated: [], deleted: [], note: note))
            s.saves.scroll.selection = max(0, s.saves.visibleIndices.count - 1)
            setStatus(&s, note.prefix(1).uppercased() + note.dropFirst(), .warning)
            return []
        default:
            return []
        }
    }

    /// Lines of the saves pane for another process's commit: one per history transaction (process,
    /// author or context, what changed), or one saying the store changed when it keeps no history.
    static func logRemote(_ s: inout AppState, _ change: RemoteStoreChange) {
        let own = String(ProcessInfo.processInfo.processIdentifier)
        var entries: [SaveLogEntry] = []
        for t in change.transactions {
            var ins: [String] = [], upd: [String] = [], del: [String] = []
            for c in t.changes {
                switch c.changeType {
                case .insert: ins.append(c.changedObjectURI)
                case .update: upd.append(c.changedObjectURI)
                case .delete: del.append(c.changedObjectURI)
                }
            }
            let who = [t.processID.map { "pid \($0)" }, t.author ?? t.contextName].compactMap { $0 }.joined(separator: " ")
            entries.append(SaveLogEntry(
                date: change.noticedAt, contextName: who.isEmpty ? "other process" : who, origin: .remote,
                inserted: ins, updated: upd, deleted: del,
                note: t.processID == own ? "(this process, another coordinator · transaction \(t.transactionNumber))" : "(other process · transaction \(t.transactionNumber))"))
        }
        if change.transactions.isEmpty {
            let note: String = switch change.kind {
            case .commit: "committed to the store (no history kept here: re-reading)"
            case .commitWithoutHistory: "committed to the store without adding history (sqlite3, a script?): re-reading"
            case .fileReplaced: "put another file at the store's path (or deleted it)"
            }
            entries.append(SaveLogEntry(
                date: change.noticedAt, contextName: "other process", origin: .remote, inserted: [], updated: [], deleted: [],
                note: note))
        }
        for e in entries { s.saves.append(e) }
        if s.saves.follow { s.saves.scroll.selection = max(0, s.saves.visibleIndices.count - 1) }
    }

    /// The object the focused pane shows: the selected row, or the detail's object.
    static func focusedObject(_ s: AppState) -> ManagedObjectID? {
        s.focus == .detail ? s.detail.snapshot?.objectID : s.table.selectedID ?? s.detail.snapshot?.objectID
    }

    /// The detail's selected property, when the detail pane has focus.
    static func focusedProperty(_ s: AppState) -> DetailProperty? {
        guard s.focus == .detail, let snap = s.detail.snapshot, snap.properties.indices.contains(s.detail.scroll.selection) else { return nil }
        return snap.properties[s.detail.scroll.selection]
    }

    /// Refuses an edit on a read-only store, saying why; true when editing may go on.
    static func mayEdit(_ s: inout AppState) -> Bool {
        guard s.store.readOnly else { return true }
        setStatus(&s, "Read-only: \(s.store.readOnlyReason ?? "the store is open read-only"); nothing can be edited or saved", .warning)
        return false
    }

    static func runEditing(_ s: inout AppState, _ id: CommandID) -> [Command] {
        switch id {
        case .edit:
            guard mayEdit(&s) else { return [] }
            if let p = focusedProperty(s), let owner = s.detail.snapshot?.objectID {
                return [.edit(.beginEdit(owner, key: p.name))]
            }
            guard s.focus == .table, let object = s.table.selectedID, s.table.columns.indices.contains(s.table.selectedColumn) else {
                setStatus(&s, "e edits the selected cell (objects pane) or property (detail pane)", .info)
                return []
            }
            return [.edit(.beginEdit(object, key: s.table.columns[s.table.selectedColumn].name))]
        case .insert:
            guard mayEdit(&s) else { return [] }
            guard let entity = s.table.entityName else { return [] }
            if case let .relationship(owner, key, _, _) = s.table.source {
                return [.edit(.insert(entity: entity, owner: owner, key: key))]
            }
            return [.edit(.insert(entity: entity))]
        case .delete:
            guard mayEdit(&s) else { return [] }
            guard let object = focusedObject(s) else { return [] }
            return [.edit(.previewDelete(object))]
        case .setNil:
            guard mayEdit(&s) else { return [] }
            if let p = focusedProperty(s), let owner = s.detail.snapshot?.objectID {
                return [.edit(.setNil(owner, key: p.name))]
            }
            guard s.focus == .table, let object = s.table.selectedID else { return [] }
            if case let .relationship(owner, key, _, _) = s.table.source {
                return [.edit(.unlink(owner: owner, key: key, target: object))]
            }
            guard s.table.columns.indices.contains(s.table.selectedColumn) else { return [] }
            return [.edit(.setNil(object, key: s.table.columns[s.table.selectedColumn].name))]
        case .write:
            guard mayEdit(&s) else { return [] }
            return [.edit(.previewSave)]
        case .discard: return [.edit(.previewDiscard)]
        case .undo: return [.edit(.undo)]
        case .redo: return [.edit(.redo)]
        case .contexts:
            s.modals.append(.confirm(contextPicker(s)))
            return []
        case .moveUp, .moveDown:
            guard mayEdit(&s) else { return [] }
            guard case let .relationship(owner, key, _, _) = s.table.source, s.focus == .table, let object = s.table.selectedID else {
                setStatus(&s, "J / K move an object in an ordered relationship's table (Enter on a to-many in the detail)", .info)
                return []
            }
            guard s.table.sort.isEmpty else {
                setStatus(&s, "The table is sorted: clear the sort (s on its column) to see and change the relationship's order", .info)
                return []
            }
            return [.edit(.move(owner: owner, key: key, object: object, by: id == .moveUp ? -1 : 1))]
        default: return []
        }
    }

    /// The context picker: each context with its pending changes and merge policy, a digit to
    /// switch to it, and keys to open new ones.
    static func contextPicker(_ s: AppState) -> ConfirmState {
        var lines: [String] = []
        var choices: [ConfirmChoice] = []
        for (i, c) in s.contexts.prefix(9).enumerated() {
            let mark = c.name == s.currentContext ? "▶" : " "
            let p = c.pending
            lines.append("\(mark) \(i + 1)  \(DisplayWidth.pad(c.name, to: 11)) \(DisplayWidth.pad(c.kind.rawValue, to: 12)) \(p.total) pending (+\(p.inserted) ~\(p.updated) −\(p.deleted))  policy \(c.mergePolicy)")
            choices.append(ConfirmChoice(key: .char(Character(String(i + 1))), label: "", action: .perform(.edit(.switchContext(c.name)))))
        }
        lines += ["", "1–9 switch · c new child of main · s new sibling (same coordinator) · o new context on its own coordinator"]
        choices += [
            ConfirmChoice(key: .char("c"), label: "new child", action: .perform(.edit(.newContext(.child)))),
            ConfirmChoice(key: .char("s"), label: "new sibling", action: .perform(.edit(.newContext(.sibling)))),
            ConfirmChoice(key: .char("o"), label: "new coordinator", action: .perform(.edit(.newContext(.coordinator)))),
        ]
        return ConfirmState(title: "Contexts", lines: lines, onYes: nil, choices: choices)
    }

    /// `:` commands of editing; nil when `head` is not one of them.
    static func executeEditing(_ s: inout AppState, _ head: String, _ rest: String) -> [Command]? {
        switch head {
        case "w", "write", "save": return runEditing(&s, .write)
        case "discard": return runEditing(&s, .discard)
        case "undo": return runEditing(&s, .undo)
        case "redo": return runEditing(&s, .redo)
        case "insert": return runEditing(&s, .insert)
        case "delete": return runEditing(&s, .delete)
        case "ctx", "context":
            let args = rest.split(separator: " ").map(String.init)
            if args.isEmpty { return runEditing(&s, .contexts) }
            if args[0] == "new" {
                guard mayEdit(&s) else { return [] }
                let kind = args.count > 1 ? ContextInfo.Kind(rawValue: args[1].lowercased()) : .child
                guard let kind, kind != .main else {
                    setStatus(&s, "Usage: :ctx new [child|sibling|coordinator]", .error)
                    return []
                }
                return [.edit(.newContext(kind))]
            }
            return [.edit(.switchContext(args[0]))]
        case "mergepolicy", "policy":
            guard !rest.isEmpty else {
                setStatus(&s, "Merge policy of \(s.currentContext): \(s.currentContextInfo?.mergePolicy ?? "?") · :mergepolicy error|objecttrump|storetrump|overwrite|rollback", .info)
                return []
            }
            return [.edit(.mergePolicy(rest))]
        case "reset":
            guard mayEdit(&s) else { return [] }
            return [.edit(.previewReset)]
        case "corrupt":
            guard mayEdit(&s) else { return [] }
            s.modals.append(.confirm(ConfirmState(
                title: "Damage the demo store?",
                lines: ["Writes over the demo store file's header on disk and restarts the shared PersistentStoreManager on it.",
                        "The manager finds the file unreadable, moves it aside (quarantine) and creates a fresh store.",
                        "Unsaved changes in scratch contexts are lost."],
                onYes: .perform(.edit(.corrupt)))))
            return []
        case "history":
            return [.edit(.history)]
        case "stats", "freq":
            // The named property, else the selected column, of the table shown (its filter too).
            guard let entity = s.table.entityName else {
                setStatus(&s, ":stats needs a table: open an entity first", .error)
                return []
            }
            let column = s.table.columns.indices.contains(s.table.selectedColumn) ? s.table.columns[s.table.selectedColumn].name : nil
            guard let property = rest.isEmpty ? column : rest else {
                setStatus(&s, "Usage: :stats [PROPERTY] (default: the selected column)", .error)
                return []
            }
            s.busy = "Computing the statistics of \(entity).\(property) (Esc cancels)"
            return [.edit(.stats(entity: entity, property: property, filter: s.table.filter))]
        case "reseed":
            guard mayEdit(&s) else { return [] }
            // Objects of root entities (sub-entities' are counted in their parents').
            let held = s.entities.all.filter { $0.depth == 0 }.reduce(0) { $0 + (s.entities.counts[$1.name] ?? 0) }
            if held > 0 {
                s.modals.append(.confirm(ConfirmState(
                    title: "Add a second demo library?",
                    lines: ["The store already holds \(held) objects: :reseed adds the demo library beside them",
                            "(about 300 objects more, the same titles and ISBNs again).",
                            "To start again from the demo library alone, :reset first, then :reseed."],
                    onYes: .perform(.edit(.reseed)))))
                return []
            }
            s.busy = "Seeding the demo library"
            return [.edit(.reseed)]
        default: return nil
        }
    }

    /// The quit question when scratch contexts hold unsaved changes.
    static func quitWithScratchChanges(_ s: inout AppState) -> Bool {
        let unsaved = s.contexts.filter { $0.kind != .main && $0.pending.total > 0 }
        guard !unsaved.isEmpty else { return false }
        var lines = ["These scratch contexts have changes that are not saved:"]
        lines += unsaved.map { "  \($0.name): \($0.pending.inserted) inserted, \($0.pending.updated) updated, \($0.pending.deleted) deleted" }
        lines += ["Yes quits and drops them; no goes back (:ctx NAME then :w saves one)."]
        s.modals.append(.confirm(ConfirmState(title: "Quit and lose unsaved changes?", lines: lines, onYes: .quitNow)))
        return true
    }
}
