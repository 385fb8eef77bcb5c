import CoreStack
import Foundation

/// The browser's logic, Elm-style: ``update(_:_:)`` is the only place state changes (it returns
/// the work to do as ``Command``s), and ``render(_:)`` draws a state into a frame without touching
/// anything else.
///
/// ```swift
/// var state = AppState(store: summary)
/// let commands = App.update(&state, .key(.char("j")))
/// let frame = App.render(state)
/// ```
public enum App {
    /// How long a row or a count stays marked after a save changed it.
    public static let markDuration: TimeInterval = 2
}

// MARK: - Update

extension App {
    /// Applies `action` to the state and returns the commands for the program to run (reading the store, saving, copying…);
    /// the only place the state changes.
    public static func update(_ s: inout AppState, _ action: Action) -> [Command] {
        switch action {
        case let .key(key): return handleKey(&s, key)
        case let .resized(size):
            s.size = size
            return settle(&s)
        case let .tick(date):
            s.now = date
            s.spinnerPhase &+= 1
            s.table.marks = s.table.marks.filter { date.timeIntervalSince($0.value.1) < markDuration }
            s.entities.changedAt = s.entities.changedAt.filter { date.timeIntervalSince($0.value) < markDuration }
            return []
        case let .run(id): return run(&s, id)
        case let .commandLine(line): return execute(&s, line)

        case let .entitiesLoaded(nodes, counts):
            s.entities.all = nodes
            s.entities.counts = counts
            s.entities.scroll.clamp(count: s.entities.visible.count, height: layout(s).entityRows)
            return []
        case let .plainRowsLoaded(loaded): return plainRowsLoaded(&s, loaded)
        case let .otherTablesCounted(counts):
            s.entities.tableCounts = counts
            return []
        case let .countsChanged(counts, date):
            for (name, n) in counts where s.entities.counts[name] != n {
                if s.entities.counts[name] != nil { s.entities.changedAt[name] = date }
                s.entities.counts[name] = n
            }
            return s.entities.changedAt.isEmpty ? [] : [.startTicking]
        case let .tableOpened(t):
            s.busy = nil
            s.table.sortShown = nil
            s.table.source = t.source
            s.table.columns = t.columns
            s.table.sort = t.sort
            s.table.sectioned = t.sectioned
            s.table.filter = t.filter
            s.table.rowCount = t.rowCount
            s.table.objectCount = t.objectCount
            s.table.error = nil
            s.table.generation += 1
            s.table.window = RowWindow()
            s.table.scroll.selection = t.selectedIndex ?? firstObjectRow(s.table)
            s.table.selectedColumn = min(s.table.selectedColumn, max(0, t.columns.count - 1))
            s.table.scroll.clamp(count: t.rowCount, height: layout(s).tableRows)
            s.table.selectedID = nil
            return settle(&s)
        case let .tableFailed(source, message):
            s.busy = nil
            if let shown = s.table.sortShown {
                (s.table.sort, s.table.sectioned) = shown
                s.table.sortShown = nil
            }
            if s.table.source == nil || s.table.source == source && s.table.rowCount == 0 && s.table.columns.isEmpty {
                s.table.source = source
                s.table.error = message
            }
            setStatus(&s, message, .error)
            return []
        case let .windowLoaded(generation, range, rows, changed):
            guard generation == s.table.generation else { return settle(&s) }
            s.table.window = RowWindow(range: range, rows: rows, generation: generation, changed: changed)
            fitColumns(&s.table, rows)
            return selectionSettled(&s)
        case let .tableChanged(change):
            if let source = change.source, source != s.table.source { return [] }
            s.table.rowCount = change.rowCount
            s.table.objectCount = change.objectCount
            s.table.generation += 1
            for (id, mark) in change.marks { s.table.marks[id] = (mark, change.date) }
            if let i = change.selectedIndex { s.table.scroll.selection = i }
            s.table.scroll.clamp(count: s.table.rowCount, height: layout(s).tableRows)
            // Forget the selected ID so the detail reloads with the window (the object may have changed).
            if !change.marks.isEmpty || change.selectedIndex == nil { s.table.selectedID = nil }
            var cmds = settle(&s)
            if !change.marks.isEmpty { cmds.append(.startTicking) }
            return cmds
        case let .relationshipChanged(source, keep):
            guard source == s.table.source else { return [] }
            return [.openTable(source, sort: s.table.sort, sectioned: s.table.sectioned, filter: s.table.filter, keepSelection: keep ?? s.table.selectedID)]
        case let .detailLoaded(snapshot, error):
            let sameObject = snapshot?.objectID == s.detail.snapshot?.objectID
            s.detail.snapshot = snapshot
            s.detail.error = error
            if !sameObject { s.detail.scroll = ScrollState() }
            s.detail.scroll.clamp(count: snapshot?.properties.count ?? 0, height: layout(s).detailRows)
            return []
        case let .saveLogged(entry):
            s.saves.append(entry)
            if s.saves.follow { s.saves.scroll.selection = max(0, s.saves.visibleIndices.count - 1) }
            s.saves.scroll.clamp(count: s.saves.visibleIndices.count, height: layout(s).savesRows)
            return []
        case let .progress(text):
            if s.busy != nil { s.busy = text }
            return []
        case let .searchFound(index, term):
            guard s.busy != nil else { return [] }  // cancelled
            s.busy = nil
            guard let index else {
                setStatus(&s, "No match for “\(term)”", .warning)
                return []
            }
            s.table.scroll.selection = index
            s.table.scroll.ensureVisible(height: layout(s).tableRows, count: s.table.rowCount)
            setStatus(&s, "Match for “\(term)” at row \(index + 1)", .info)
            s.table.selectedID = nil
            return settle(&s)
        case let .message(text, level):
            s.busy = nil
            setStatus(&s, text, level)
            return []
        case .quitNow:
            s.quitRequested = true
            return [.quit]
        case let .pendingChanged(p):
            s.pendingChanges = p
            return []
        case .saveAndQuit:
            s.busy = "Saving"
            return [.saveAll(thenQuit: true)]
        case let .remoteChanged(change):
            logRemote(&s, change)
            return [.mergeRemote(change)]
        case .perform, .showModal, .editResult, .contextsChanged, .pickStarted, .storeReplaced:
            return updateEditing(&s, action)
        }
    }

    static func layout(_ s: AppState) -> ScreenLayout { ScreenLayout(size: s.size, state: s) }

    static func setStatus(_ s: inout AppState, _ text: String, _ level: StatusState.Level) {
        s.status.message = text
        s.status.level = level
    }

    static func firstObjectRow(_ t: TableState) -> Int { t.sectioned && t.rowCount > 0 ? 1 : 0 }

    /// After anything that moved the table's view: ask for the rows it needs, or settle the selection.
    static func settle(_ s: inout AppState) -> [Command] {
        let l = layout(s)
        if l.tooSmall { return [] }
        s.entities.scroll.clamp(count: s.entities.visible.count, height: l.entityRows)
        s.saves.scroll.clamp(count: s.saves.visibleIndices.count, height: l.savesRows)
        guard s.table.source != nil else { return [] }
        s.table.scroll.clamp(count: s.table.rowCount, height: l.tableRows)
        let visible = s.table.scroll.offset..<min(s.table.rowCount, s.table.scroll.offset + l.tableRows)
        let w = s.table.window
        let covered = w.generation == s.table.generation && w.range.lowerBound <= visible.lowerBound
            && w.range.upperBound >= visible.upperBound && w.range.contains(s.table.scroll.selection) || s.table.rowCount == 0
        if !covered {
            let page = l.tableRows
            let lo = max(0, s.table.scroll.offset - page)
            let hi = min(s.table.rowCount, s.table.scroll.offset + 2 * page)
            return [.loadWindow(generation: s.table.generation, range: lo..<hi)]
        }
        return selectionSettled(&s)
    }

    /// The window holds the selected row: note its object and load its detail when it changed.
    static func selectionSettled(_ s: inout AppState) -> [Command] {
        let id = s.table.window.row(s.table.scroll.selection)?.objectID
        // An empty table (a filter nothing matches, every object deleted) selects nothing: the
        // detail must not go on showing the object selected before.
        let stale = id == nil && s.table.rowCount == 0 && (s.detail.snapshot != nil || s.detail.error != nil)
        guard id != s.table.selectedID || (id != nil && s.detail.snapshot?.objectID != id) || stale else { return [] }
        s.table.selectedID = id
        return [.loadDetail(id)]
    }

    static func fitColumns(_ t: inout TableState, _ rows: [TableRow]) {
        for (i, _) in t.columns.enumerated() {
            var w = t.columns[i].width
            for case let .object(_, cells) in rows where i < cells.count {
                w = max(w, min(40, DisplayWidth.of(cells[i])))
            }
            t.columns[i].width = w
        }
    }
}

// MARK: - Keys

extension App {
    static func handleKey(_ s: inout AppState, _ key: Key) -> [Command] {
        if case let .mouse(m) = key { return handleMouse(&s, m) }
        if let modal = s.topModal { return handleModalKey(&s, modal, key) }
        if let busy = s.busy, key == .escape || key == .ctrl("c") {
            // Esc or Ctrl-C stops long work; the screen stays as it was before it started.
            s.busy = nil
            if let shown = s.table.sortShown {
                (s.table.sort, s.table.sectioned) = shown
                s.table.sortShown = nil
            }
            setStatus(&s, "Cancelled: \(busy)", .warning)
            return [.cancelWork]
        }
        if key == .ctrl("c") { return run(&s, .forceQuit) }
        if layout(s).tooSmall {
            if key == .char("q") { return run(&s, .quit) }
            return []
        }
        if case let .char(c) = key, let d = c.wholeNumberValue, c.isASCII, d > 0 || s.pendingCount != nil {
            s.pendingCount = min(99_999, (s.pendingCount ?? 0) * 10 + d)
            return []
        }
        guard let binding = Keymap.binding(for: key, scopes: [KeyScope(s.focus), .global]) else {
            s.pendingCount = nil
            setStatus(&s, "\(key) does nothing here (? lists the keys)", .info)
            return []
        }
        return run(&s, binding.command)
    }

    static func run(_ s: inout AppState, _ id: CommandID) -> [Command] {
        let count = s.pendingCount
        s.pendingCount = nil
        let l = layout(s)
        switch id {
        case .quit:
            if quitWithScratchChanges(&s) { return [] }
            let p = s.contexts.first { $0.kind == .main }?.pending ?? (s.currentContext == "main" ? s.pendingChanges : PendingChanges())
            if p.total > 0 {
                s.modals.append(.confirm(ConfirmState(
                    title: "Quit with unsaved changes?",
                    lines: ["The main context has unsaved changes:",
                            "  \(p.inserted) inserted, \(p.updated) updated, \(p.deleted) deleted",
                            "Yes saves them to the store, then quits; no goes back."],
                    onYes: .saveAndQuit)))
                return []
            }
            s.quitRequested = true
            return [.quit]
        case .forceQuit:
            s.quitRequested = true
            return [.quit]
        case .help:
            s.modals.append(.help(HelpState()))
            return []
        case .model:
            return [.edit(.showModel)]
        case .columnStats:
            return executeEditing(&s, "stats", "") ?? []
        case .commandLine:
            s.modals.append(.commandLine(CommandLineState()))
            return []
        case .paneNext, .panePrevious:
            let panes = l.panes
            guard !panes.isEmpty else { return [] }
            let i = panes.firstIndex(of: s.focus) ?? 0
            s.focus = panes[(i + (id == .paneNext ? 1 : panes.count - 1)) % panes.count]
            return []
        case .focusEntities: s.focus = .entities; return []
        case .focusTable: s.focus = .table; return []
        case .focusDetail:
            s.focus = .detail
            if l.detail == nil { s.detailOnNarrow = true; s.showDetail = true }
            return []
        case .focusSaves: s.focus = .saves; return []
        case .down: return move(&s, by: count ?? 1)
        case .up: return move(&s, by: -(count ?? 1))
        case .pageDown: return move(&s, by: l.rows(of: s.focus) * (count ?? 1))
        case .pageUp: return move(&s, by: -l.rows(of: s.focus) * (count ?? 1))
        case .halfPageDown: return move(&s, by: max(1, l.rows(of: s.focus) / 2))
        case .halfPageUp: return move(&s, by: -max(1, l.rows(of: s.focus) / 2))
        case .top:
            if let count { return moveTo(&s, count - 1) }
            return moveTo(&s, 0)
        case .bottom:
            if let count { return moveTo(&s, count - 1) }
            return moveTo(&s, Int.max)
        case .left, .right: return horizontal(&s, right: id == .right)
        case .open: return open(&s)
        case .back: return back(&s)
        case .sort, .sortSecondary: return sort(&s, secondary: id == .sortSecondary)
        case .sections:
            guard let source = s.table.source else { return [] }
            var sort = s.table.sort
            if sort.isEmpty, s.table.columns.indices.contains(s.table.selectedColumn) {
                sort = [SortKey(column: s.table.columns[s.table.selectedColumn].name, ascending: true)]
            }
            guard !sort.isEmpty else { return [] }
            s.table.sort = sort
            s.table.sectioned.toggle()
            return [.openTable(source, sort: sort, sectioned: s.table.sectioned, filter: s.table.filter, keepSelection: s.table.selectedID)]
        case .filter:
            guard s.table.source != nil else { return [] }
            s.modals.append(.prompt(PromptState(purpose: .filter, text: s.table.filter ?? "")))
            return []
        case .clearFilter:
            guard let source = s.table.source, s.table.filter != nil else { return [] }
            setStatus(&s, "Filter cleared", .info)
            return [refilter(s, source, nil)]
        case .search:
            guard s.table.source != nil else { return [] }
            s.modals.append(.prompt(PromptState(purpose: .search, text: "")))
            return []
        case .searchNext, .searchPrevious:
            guard let term = s.table.search, !term.isEmpty else {
                setStatus(&s, "No search yet: / searches", .info)
                return []
            }
            let forward = id == .searchNext
            s.busy = "Searching “\(term)”"
            return [.search(term: term, from: s.table.scroll.selection + (forward ? 1 : -1), forward: forward)]
        case .refresh:
            s.busy = "Re-reading the store"
            return [.refresh]
        case .copy: return copy(&s)
        case .toggleMouse:
            s.mouseEnabled.toggle()
            setStatus(&s, s.mouseEnabled ? "Mouse on" : "Mouse off: the terminal selects text", .info)
            return []
        case .toggleDetail:
            if s.size.width >= 100 { s.showDetail.toggle() } else { s.detailOnNarrow.toggle() }
            if layout(s).detail == nil && s.focus == .detail { s.focus = .table }
            return settle(&s)
        case .zoom:
            s.zoomed.toggle()
            return settle(&s)
        case .redraw: return [.redraw]
        case .suspend: return [.suspend]
        case .savesFilterContext:
            let vis = s.saves.visibleIndices
            if s.saves.contextFilter != nil {
                s.saves.contextFilter = nil
            } else if vis.indices.contains(s.saves.scroll.selection) {
                s.saves.contextFilter = s.saves.entries[vis[s.saves.scroll.selection]].contextName
            }
            s.saves.scroll.selection = max(0, s.saves.visibleIndices.count - 1)
            s.saves.follow = true
            return settle(&s)
        case .savesFollow:
            s.saves.follow = true
            s.saves.scroll.selection = max(0, s.saves.visibleIndices.count - 1)
            return settle(&s)
        case .edit, .insert, .delete, .setNil, .write, .discard, .undo, .redo, .contexts, .moveUp, .moveDown:
            return runEditing(&s, id)
        }
    }

    static func listCount(_ s: AppState, _ pane: Pane) -> Int {
        switch pane {
        case .entities: s.entities.visible.count
        case .table: s.table.rowCount
        case .detail: s.detail.snapshot?.properties.count ?? 0
        case .saves: s.saves.visibleIndices.count
        }
    }

    static func move(_ s: inout AppState, by delta: Int) -> [Command] {
        let current: Int
        switch s.focus {
        case .entities: current = s.entities.scroll.selection
        case .table: current = s.table.scroll.selection
        case .detail: current = s.detail.scroll.selection
        case .saves: current = s.saves.scroll.selection
        }
        let (sum, overflow) = current.addingReportingOverflow(delta)
        return moveTo(&s, overflow ? (delta > 0 ? Int.max : 0) : sum)
    }

    static func moveTo(_ s: inout AppState, _ target: Int) -> [Command] {
        let n = listCount(s, s.focus)
        let l = layout(s)
        let t = n == 0 ? 0 : min(max(0, target), n - 1)
        switch s.focus {
        case .entities:
            s.entities.scroll.selection = t
            s.entities.scroll.ensureVisible(height: l.entityRows, count: n)
        case .table:
            var t = t
            // Section headers are not selectable: step over them in the direction of travel.
            if s.table.sectioned, case .section = s.table.window.row(t) {
                t = t + (t >= s.table.scroll.selection ? 1 : -1)
                if t < 0 { t = 1 }
                t = min(max(0, t), max(0, n - 1))
            }
            s.table.scroll.selection = t
            s.table.scroll.ensureVisible(height: l.tableRows, count: n)
            // A section's first row at the top of the view brings its header along.
            if s.table.sectioned, s.table.scroll.offset == t, t > 0, case .section = s.table.window.row(t - 1) {
                s.table.scroll.offset = t - 1
            }
            return settle(&s)
        case .detail:
            s.detail.scroll.selection = t
            s.detail.scroll.ensureVisible(height: l.detailRows, count: n)
        case .saves:
            s.saves.scroll.selection = t
            s.saves.follow = t >= n - 1
            s.saves.scroll.ensureVisible(height: l.savesRows, count: n)
        }
        return []
    }

    static func horizontal(_ s: inout AppState, right: Bool) -> [Command] {
        switch s.focus {
        case .entities:
            guard let name = s.entities.selectedName,
                  let node = s.entities.visible.first(where: { $0.name == name }), node.hasChildren else { return [] }
            if right { s.entities.collapsed.remove(name) } else { s.entities.collapsed.insert(name) }
            s.entities.scroll.clamp(count: s.entities.visible.count, height: layout(s).entityRows)
        case .table:
            let n = s.table.columns.count
            guard n > 0 else { return [] }
            s.table.selectedColumn = min(max(0, s.table.selectedColumn + (right ? 1 : -1)), n - 1)
        default: break
        }
        return []
    }

    static func open(_ s: inout AppState) -> [Command] {
        switch s.focus {
        case .entities:
            guard let name = s.entities.selectedName else { return [] }
            // "Other tables": the heading folds, a table opens as plain rows.
            switch s.entities.visible[s.entities.scroll.selection].kind {
            case .otherTablesHeading: return horizontal(&s, right: s.entities.collapsed.contains(name))
            case .otherTable: return [.plainTable(.open(table: name))]
            case .entity: break
            }
            s.navigation.removeAll()
            s.focus = .table
            return openEntity(&s, name)
        case .table:
            guard let selected = s.table.selectedID else { return [] }
            if let pick = s.picking {
                s.picking = nil
                let commands = back(&s)
                return [.edit(.link(owner: pick.owner, key: pick.key, target: selected))] + commands
            }
            s.focus = .detail
            if layout(s).detail == nil {
                s.detailOnNarrow = true
                s.showDetail = true
            }
            return settle(&s)
        case .detail:
            guard let snap = s.detail.snapshot, snap.properties.indices.contains(s.detail.scroll.selection) else { return [] }
            let p = snap.properties[s.detail.scroll.selection]
            // To-one: the object's detail stays in focus; to-many: its objects' table.
            let destination: String
            let focus: Pane
            switch p.kind {
            case let .attribute(type):
                // A binary value opens full screen in the value inspector.
                guard type.hasPrefix(ValueFormatter.typeName(.binaryData)) || type.hasPrefix(ValueFormatter.typeName(.transformable)) else { return [] }
                guard !p.value.hasPrefix("nil") else {
                    setStatus(&s, "\(p.name) is nil", .info)
                    return []
                }
                return [.inspectValue(snap.objectID, key: p.name, title: "\(snap.title).\(p.name)")]
            case let .toOne(d, target):
                guard target != nil else {
                    setStatus(&s, "\(p.name) is empty", .info)
                    return []
                }
                (destination, focus) = (d, .detail)
            case let .toMany(d, _, _):
                (destination, focus) = (d, .table)
            }
            pushNavigation(&s, label: "\(snap.title).\(p.name)")
            s.focus = focus
            let source = TableSource.relationship(owner: snap.objectID, key: p.name, destination: destination, title: "\(snap.title) › \(p.name)")
            return [.openTable(source, sort: [], sectioned: false, filter: nil, keepSelection: nil)]
        case .saves:
            let vis = s.saves.visibleIndices
            guard vis.indices.contains(s.saves.scroll.selection) else { return [] }
            let abs = s.saves.dropped + vis[s.saves.scroll.selection]
            if s.saves.expanded.contains(abs) { s.saves.expanded.remove(abs) } else { s.saves.expanded.insert(abs) }
            return []
        }
    }

    static func openEntity(_ s: inout AppState, _ name: String) -> [Command] {
        s.busy = "Fetching \(name)"
        s.table.scroll = ScrollState()
        s.table.columnOffset = 0
        s.table.selectedColumn = 0
        s.table.search = nil
        return [.openTable(.entity(name), sort: [], sectioned: false, filter: nil, keepSelection: nil), .startTicking]
    }

    static func pushNavigation(_ s: inout AppState, label: String) {
        s.navigation.append(NavigationEntry(table: s.table, focus: s.focus, label: label, detail: s.detail))
        s.table.scroll = ScrollState()
        s.table.selectedColumn = 0
        s.table.columnOffset = 0
        s.table.search = nil
    }

    static func back(_ s: inout AppState) -> [Command] {
        if s.picking != nil {
            s.picking = nil
            setStatus(&s, "Nothing linked", .info)
        }
        if let entry = s.navigation.popLast(), let source = entry.table.source {
            let old = entry.table
            // The table as it was, rows included, until it is fetched again; a newer generation,
            // so rows still on their way from the table being left are not taken for it.
            let generation = s.table.generation + 1
            s.table = old
            s.table.generation = generation
            s.table.window.generation = generation
            s.detail = entry.detail
            s.focus = entry.focus == .detail ? .detail : entry.focus
            return [.openTable(source, sort: old.sort, sectioned: old.sectioned, filter: old.filter, keepSelection: old.selectedID)]
        }
        if s.focus == .detail {
            s.focus = .table
            return []
        }
        if s.zoomed {
            s.zoomed = false
            return settle(&s)
        }
        s.status = StatusState()
        return []
    }

    static func sort(_ s: inout AppState, secondary: Bool) -> [Command] {
        guard let source = s.table.source, s.table.columns.indices.contains(s.table.selectedColumn) else { return [] }
        let column = s.table.columns[s.table.selectedColumn].name
        var sort = s.table.sort
        if !secondary {
            if let first = sort.first, first.column == column {
                sort = first.ascending ? [SortKey(column: column, ascending: false)] : []
            } else {
                sort = [SortKey(column: column, ascending: true)]
            }
        } else if let i = sort.firstIndex(where: { $0.column == column }) {
            if sort[i].ascending { sort[i].ascending = false } else { sort.remove(at: i) }
        } else {
            sort.append(SortKey(column: column, ascending: true))
        }
        let sectioned = s.table.sectioned && !sort.isEmpty
        setStatus(&s, sort.isEmpty ? "Unsorted (store order)" : "Sorted by " + sort.map { "\($0.column) \($0.ascending ? "↑" : "↓")" }.joined(separator: ", "), .info)
        s.busy = "Sorting"
        // Noted at once, so keys typed before the fetch lands build on it; Esc puts back what is shown.
        if s.table.sortShown == nil { s.table.sortShown = (s.table.sort, s.table.sectioned) }
        s.table.sort = sort
        s.table.sectioned = sectioned
        return [.openTable(source, sort: sort, sectioned: sectioned, filter: s.table.filter, keepSelection: s.table.selectedID), .startTicking]
    }

    static func copy(_ s: inout AppState) -> [Command] {
        var text: String?
        switch s.focus {
        case .table, .entities:
            if case let .object(_, cells) = s.table.window.row(s.table.scroll.selection) {
                text = s.focus == .table && cells.indices.contains(s.table.selectedColumn) ? cells[s.table.selectedColumn] : cells.joined(separator: "\t")
            }
        case .detail:
            if let snap = s.detail.snapshot, snap.properties.indices.contains(s.detail.scroll.selection) {
                text = snap.properties[s.detail.scroll.selection].value
            }
        case .saves:
            let vis = s.saves.visibleIndices
            if vis.indices.contains(s.saves.scroll.selection) {
                let e = s.saves.entries[vis[s.saves.scroll.selection]]
                text = (e.inserted + e.updated + e.deleted).joined(separator: "\n")
            }
        }
        guard let text else {
            setStatus(&s, "Nothing selected to copy", .info)
            return []
        }
        setStatus(&s, "Copied \(text.count) characters to the clipboard", .info)
        return [.copy(text)]
    }
}

// MARK: - Mouse

extension App {
    static func handleMouse(_ s: inout AppState, _ m: MouseEvent) -> [Command] {
        guard s.mouseEnabled, s.modals.isEmpty else { return [] }
        let l = layout(s)
        guard let pane = l.pane(atX: m.x, y: m.y), let rect = l.rect(of: pane) else { return [] }
        switch m.kind {
        case .wheelUp, .wheelDown:
            let old = s.focus
            s.focus = pane
            let cmds = move(&s, by: m.kind == .wheelDown ? 3 : -3)
            s.focus = old
            return cmds
        case .press:
            s.focus = pane
            let headerRows = pane == .table || pane == .detail ? 2 : 1
            let row = m.y - rect.y - headerRows
            guard row >= 0 else { return [] }
            if pane == .saves {
                // Entries shown expanded take more than one line.
                let width = rect.width - 2
                var k = savesFirstShown(s, rows: l.savesRows, width: width)
                var y = 0
                while k < listCount(s, .saves) {
                    let lines = savesEntryLines(s, k, width: width)
                    if row < y + lines { return moveTo(&s, k) }
                    y += lines
                    k += 1
                }
                return []
            }
            let offset: Int
            switch pane {
            case .entities: offset = s.entities.scroll.offset
            case .table: offset = s.table.scroll.offset
            case .detail: offset = s.detail.scroll.offset
            case .saves: offset = s.saves.scroll.offset
            }
            guard offset + row < listCount(s, pane) else { return [] }
            return moveTo(&s, offset + row)
        case .release: return []
        }
    }
}
