import CoreStack
import Foundation

// MARK: - Modal keys

extension App {
    static func handleModalKey(_ s: inout AppState, _ modal: Modal, _ key: Key) -> [Command] {
        switch modal {
        case var .commandLine(cl):
            switch key {
            case .escape, .ctrl("c"):
                s.modals.removeLast()
            case .enter:
                s.modals.removeLast()
                let line = cl.line.text.trimmingCharacters(in: .whitespaces)
                guard !line.isEmpty else { return [] }
                s.commandHistory.removeAll { $0 == line }
                s.commandHistory.append(line)
                if s.commandHistory.count > 100 { s.commandHistory.removeFirst() }
                return execute(&s, line)
            case .tab:
                if let c = completions(s, cl.line.text).first { cl.line.set(c) }
                s.modals[s.modals.count - 1] = .commandLine(cl)
            case .right where cl.line.cursor == cl.line.chars.count:
                if let c = completions(s, cl.line.text).first { cl.line.set(c) }
                s.modals[s.modals.count - 1] = .commandLine(cl)
            case .up, .down:
                let h = s.commandHistory
                guard !h.isEmpty else { return [] }
                var i = cl.historyIndex ?? h.count
                i = key == .up ? max(0, i - 1) : i + 1
                if i >= h.count {
                    cl.historyIndex = nil
                    cl.line.set("")
                } else {
                    cl.historyIndex = i
                    cl.line.set(h[i])
                }
                s.modals[s.modals.count - 1] = .commandLine(cl)
            case .backspace where cl.line.chars.isEmpty:
                s.modals.removeLast()
            default:
                if cl.line.handle(key) {
                    cl.historyIndex = nil
                    s.modals[s.modals.count - 1] = .commandLine(cl)
                }
            }
            return []

        case var .prompt(p):
            switch key {
            case .escape, .ctrl("c"):
                s.modals.removeLast()
                return []
            case .enter:
                return submitPrompt(&s, p)
            default:
                if p.line.handle(key) {
                    // A filter is checked as the user types: the error and its position show in place.
                    if p.purpose == .filter { p.checkFilter() }
                    s.modals[s.modals.count - 1] = .prompt(p)
                }
                return []
            }

        case var .help(h):
            let rows = helpRows(filter: h.filter.text, focus: s.focus)
            switch KeyHelp.handle(&h, key, rowCount: { helpRows(filter: $0, focus: s.focus).count }, height: KeyHelp.listHeight(s.size)) {
            case .closed:
                s.modals.removeLast()
                return []
            case .open:
                s.modals[s.modals.count - 1] = .help(h)
                return []
            case let .chosen(i):
                s.modals.removeLast()
                guard rows.indices.contains(i) else { return [] }
                if let c = rows[i].command {
                    // Arguments to type: the command line opens with the name; none: it runs.
                    guard c.usage != c.name else { return update(&s, .commandLine(c.name)) }
                    var line = CommandLineState()
                    line.line = LineEditor(text: c.name + " ")
                    s.modals.append(.commandLine(line))
                    return []
                }
                guard let b = rows[i].binding else { return [] }
                return run(&s, b.command)
            }

        case var .confirm(c):
            if let choice = c.choices.first(where: { $0.key == key }) {
                s.modals.removeLast()
                return update(&s, choice.action)
            }
            let height = max(1, min(s.size.height - 4, c.lines.count + 4) - 3)
            // A statistics report: ↑↓ choose a value, Enter filters the table to it.
            if !c.filters.isEmpty {
                let lines = c.filters.keys.sorted()
                let at = c.selectedLine.flatMap { lines.firstIndex(of: $0) } ?? 0
                switch key {
                case .down, .char("j"), .up, .char("k"):
                    let next = key == .down || key == .char("j") ? min(lines.count - 1, at + 1) : max(0, at - 1)
                    c.selectedLine = lines[next]
                    let line = lines[next]
                    if line < c.scroll.offset { c.scroll.offset = line }
                    if line >= c.scroll.offset + height { c.scroll.offset = line - height + 1 }
                    s.modals[s.modals.count - 1] = .confirm(c)
                    return []
                case .enter:
                    s.modals.removeLast()
                    guard let line = c.selectedLine ?? lines.first, let filter = c.filters[line], let source = s.table.source else { return [] }
                    s.busy = "Filtering"
                    return [refilter(s, source, filter), .startTicking]
                default: break
                }
            }
            switch key {
            case .char("y") where c.onYes != nil, .char("Y") where c.onYes != nil, .enter:
                s.modals.removeLast()
                guard let yes = c.onYes else { return [] }
                return update(&s, yes)
            case .char("n"), .char("N"), .escape, .ctrl("c"), .char("q"):
                s.modals.removeLast()
                return []
            case .down, .char("j"): c.scroll.offset = min(max(0, c.lines.count - height), c.scroll.offset + 1)
            case .up, .char("k"): c.scroll.offset = max(0, c.scroll.offset - 1)
            case .pageDown: c.scroll.offset = min(max(0, c.lines.count - height), c.scroll.offset + height)
            case .pageUp: c.scroll.offset = max(0, c.scroll.offset - height)
            default: return []
            }
            s.modals[s.modals.count - 1] = .confirm(c)
            return []

        case var .model(m):
            let height = modelListHeight(s)
            switch key {
            case .escape, .ctrl("c"):
                s.modals.removeLast()
                return []
            case .char("q") where m.filter.chars.isEmpty:
                s.modals.removeLast()
                return []
            case .enter:
                guard let name = m.selectedEntity else { return [] }
                s.modals.removeLast()
                return execute(&s, "entity \(name)")
            case .tab:
                // Card → the selected entity among its neighbours (only they listed) → the whole
                // model drawn, at the selected entity's box → card.
                let selected = m.selectedEntity
                if m.showsWholeModel {
                    m.showsWholeModel = false
                } else if m.focus == nil {
                    m.focus = selected
                } else {
                    m.focus = nil
                    m.showsWholeModel = true
                }
                m.filter = LineEditor()
                m.scroll = ScrollState(selection: m.visibleEntities.firstIndex { $0.name == selected } ?? 0)
                m.cardOffset = 0
                m.column = 0
                m.scrollToSelectedBox()
            case .left where (m.focus != nil || m.showsWholeModel) && m.filter.chars.isEmpty:
                m.column = max(0, m.column - 8)
            case .right where (m.focus != nil || m.showsWholeModel) && m.filter.chars.isEmpty:
                let widest = m.selectedEntity.map { m.panel(for: $0).map(\.count).max() ?? 0 } ?? 0
                m.column = min(max(0, widest - 8), m.column + 8)
            case .down, .ctrl("n"):
                m.scroll.selection += 1
                m.cardOffset = 0
                m.column = 0
            case .up, .ctrl("p"):
                m.scroll.selection -= 1
                m.cardOffset = 0
                m.column = 0
            case .home: m.scroll.selection = 0
            case .end: m.scroll.selection = max(0, m.visibleEntities.count - 1)
            case .pageDown: m.cardOffset += max(1, height - 2)
            case .pageUp: m.cardOffset = max(0, m.cardOffset - max(1, height - 2))
            default:
                if m.filter.handle(key) {
                    m.scroll = ScrollState()
                    m.cardOffset = 0
                    m.column = 0
                }
            }
            let before = m.selectedEntity
            m.scroll.clamp(count: m.visibleEntities.count, height: height)
            if m.showsWholeModel, key != .pageUp, key != .pageDown, key != .left, key != .right {
                // A new entity selected (or the same after clamping): its box in view.
                if m.selectedEntity != nil || before != nil { m.scrollToSelectedBox() }
            }
            let cardLines = m.selectedEntity.map { m.panel(for: $0).count } ?? 0
            m.cardOffset = min(m.cardOffset, max(0, cardLines - (m.showsWholeModel ? 1 : height)))
            s.modals[s.modals.count - 1] = .model(m)
            return []

        case var .valueInspector(v):
            // The screen less the box, the summary line and the keys line.
            let height = max(1, s.size.height - 4)
            switch key {
            case .escape, .ctrl("c"), .char("q"), .enter:
                s.modals.removeLast()
                return []
            case .tab, .char("m"): v.nextMode()
            case .char(":"):
                s.modals.append(.commandLine(CommandLineState()))
                return []
            case .char("/"):
                s.modals.append(.prompt(PromptState(purpose: .search)))
                return []
            case .char("n"), .char("N"):
                guard let term = v.searchTerm else { return [] }
                findInInspector(&s, &v, term, forward: key == .char("n"))
            case .char("y"):
                let text = v.json
                setStatus(&s, "Copied the value as JSON (\(text.count) characters) to the clipboard", .info)
                return [.copy(text)]
            case .down, .char("j"): v.scroll(by: 1, height: height)
            case .up, .char("k"): v.scroll(by: -1, height: height)
            case .pageDown, .ctrl("d"), .char(" "): v.scroll(by: height, height: height)
            case .pageUp, .ctrl("u"): v.scroll(by: -height, height: height)
            case .char("g"), .home: v.offset = 0
            case .char("G"), .end: v.scroll(by: Int.max / 2, height: height)
            default: return []
            }
            s.modals[s.modals.count - 1] = .valueInspector(v)
            return []

        case let .plainTable(v):
            return handlePlainTableKey(&s, v, key)

        case var .editor(e):
            if key == .ctrl("o"), e.field.isMultiLine {
                _ = e.line.handle(.char("\n"))
                e.error = nil
                s.modals[s.modals.count - 1] = .editor(e)
                return []
            }
            switch key {
            case .escape, .ctrl("c"):
                s.modals.removeLast()
                if e.insertion {
                    let unset = ([e.field] + e.next).map(\.key).joined(separator: ", ")
                    setStatus(&s, "The \(e.objectTitle) stays, without \(unset) (required: set it before :w, or u undoes the insert)", .warning)
                } else {
                    setStatus(&s, "Edit cancelled: nothing changed", .info)
                }
                return []
            case .enter:
                guard !e.applying else { return [] }
                e.applying = true
                e.error = nil
                s.modals[s.modals.count - 1] = .editor(e)
                return [.edit(.setValue(e.objectID, key: e.field.key, text: e.line.text, isFilePath: e.field.isFilePath))]
            default:
                if e.line.handle(key) {
                    e.error = nil
                    s.modals[s.modals.count - 1] = .editor(e)
                }
                return []
            }
        }
    }

    /// Rows of the model view's entity list (and of its card) on a screen of the state's size.
    static func modelListHeight(_ s: AppState) -> Int { max(1, s.size.height - 8) }

    static func predicateError(_ error: any Error) -> (String, Int?) {
        if case let CoreStackError.predicateSyntax(message, column, _) = error {
            return ("\(message) (at column \(column))", max(0, column - 1))
        }
        return (StackScopeErrorMessage.line(for: error), nil)
    }

    /// Opens the table again with another filter (empty: none), keeping its sort, sections and
    /// selected object.
    static func refilter(_ s: AppState, _ source: TableSource, _ filter: String?) -> Command {
        let f = filter?.trimmingCharacters(in: .whitespaces)
        return .openTable(
            source, sort: s.table.sort, sectioned: s.table.sectioned, filter: f?.isEmpty == false ? f : nil,
            keepSelection: s.table.selectedID)
    }

    static func submitPrompt(_ s: inout AppState, _ p: PromptState) -> [Command] {
        let text = p.line.text.trimmingCharacters(in: .whitespaces)
        switch p.purpose {
        case .filter:
            guard let source = s.table.source else {
                s.modals.removeLast()
                return []
            }
            var checked = p
            guard checked.checkFilter() else {
                s.modals[s.modals.count - 1] = .prompt(checked)
                return []
            }
            s.modals.removeLast()
            s.busy = "Filtering"
            return [refilter(s, source, text), .startTicking]
        case .search:
            s.modals.removeLast()
            // Over the plain table view: its filter (empty: every row).
            if case .plainTable? = s.modals.last { return filterPlainTable(&s, text) }
            guard !text.isEmpty else { return [] }
            // Over the value inspector: a search in what it shows.
            if case var .valueInspector(v)? = s.modals.last {
                findInInspector(&s, &v, text, forward: true)
                s.modals[s.modals.count - 1] = .valueInspector(v)
                return []
            }
            s.table.search = text
            s.busy = "Searching “\(text)”"
            return [.search(term: text, from: s.table.scroll.selection, forward: true)]
        }
    }

    /// Searches the inspector's current mode and says where the term was found, or that it was not.
    static func findInInspector(_ s: inout AppState, _ v: inout ValueInspectorState, _ term: String, forward: Bool) {
        if let line = v.find(term, forward: forward) {
            setStatus(&s, "“\(term)” on line \(line + 1) of \(v.lineCount) (\(v.mode.rawValue))", .info)
        } else {
            setStatus(&s, "“\(term)” not found in the \(v.mode.rawValue) view", .warning)
        }
    }

    /// One row of the help screen: a section title, a binding or a `:` command.
    struct HelpRow {
        var title: String?
        var binding: Binding?
        var command: CommandLine.Entry?
    }

    /// The help screen's rows: the focused pane's keys first, then the global ones, then the
    /// `:` commands.
    static func helpRows(filter: String, focus: Pane = .table) -> [HelpRow] {
        let f = filter.lowercased()
        var rows: [HelpRow] = []
        let scopes = [KeyScope(focus)] + KeyScope.allCases.filter { $0 != KeyScope(focus) }
        for scope in scopes {
            let bs = Keymap.all.filter {
                $0.scope == scope
                    && (f.isEmpty || $0.help.lowercased().contains(f) || $0.command.rawValue.contains(f) || $0.keyLabel.lowercased().contains(f))
            }
            guard !bs.isEmpty else { continue }
            rows.append(HelpRow(title: scope.title))
            rows += bs.map { HelpRow(binding: $0) }
        }
        let commands = CommandLine.commands.filter {
            f.isEmpty || $0.usage.lowercased().contains(f) || $0.help.lowercased().contains(f)
        }
        if !commands.isEmpty {
            rows.append(HelpRow(title: "Command line"))
            rows += commands.map { HelpRow(command: $0) }
        }
        return rows
    }
}

// MARK: - Command line

extension App {
    /// Completions of a partial command line: command names first, then arguments (entities for
    /// `entity`, columns for `sort`, formats for `export`).
    public static func completions(_ s: AppState, _ text: String) -> [String] {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        if parts.count <= 1 {
            let prefix = parts.first ?? ""
            return CommandLine.names.filter { $0.hasPrefix(prefix) && $0 != prefix }
        }
        let head = parts[0]
        let arg = parts.last ?? ""
        let before = parts.dropLast().joined(separator: " ") + " "
        var options: [String] = []
        switch head {
        case "entity": options = s.entities.all.filter { $0.kind == .entity }.map(\.name)
        case "sort": options = parts.count == 2 ? s.table.columns.map(\.name) : ["asc", "desc"]
        case "export": options = parts.count == 2 ? ["csv", "json"] : []
        case "mouse": options = ["on", "off"]
        default: break
        }
        return options.filter { $0.lowercased().hasPrefix(arg.lowercased()) && $0 != arg }.map { before + $0 }
    }

    static func execute(_ s: inout AppState, _ line: String) -> [Command] {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        let head = trimmed.split(separator: " ", maxSplits: 1).first.map(String.init) ?? ""
        let rest = trimmed.dropFirst(head.count).trimmingCharacters(in: .whitespaces)
        switch head {
        case "q", "quit": return run(&s, .quit)
        case "q!", "quit!": return run(&s, .forceQuit)
        case "entity", "e":
            let entities = s.entities.all.filter { $0.kind == .entity }
            guard let node = entities.first(where: { $0.name == rest }) ?? entities.first(where: { $0.name.lowercased() == rest.lowercased() }) else {
                setStatus(&s, "No entity “\(rest)”: \(entities.map(\.name).joined(separator: ", "))", .error)
                return []
            }
            if let i = s.entities.visible.firstIndex(where: { $0.name == node.name }) { s.entities.scroll.selection = i }
            s.navigation.removeAll()
            s.focus = .table
            return openEntity(&s, node.name)
        case "filter":
            guard let source = s.table.source else { return [] }
            var prompt = PromptState(purpose: .filter, text: rest)
            guard prompt.checkFilter() else {
                s.modals.append(.prompt(prompt))
                return []
            }
            return [refilter(s, source, rest)]
        case "sort":
            let args = rest.split(separator: " ").map(String.init)
            guard let source = s.table.source, let column = args.first else { return [] }
            guard s.table.columns.contains(where: { $0.name == column }) else {
                setStatus(&s, "No column “\(column)” in \(source.entityName)", .error)
                return []
            }
            let ascending = args.count < 2 || args[1].lowercased().hasPrefix("a")
            return [.openTable(source, sort: [SortKey(column: column, ascending: ascending)], sectioned: s.table.sectioned, filter: s.table.filter, keepSelection: s.table.selectedID)]
        case "search":
            guard s.table.source != nil, !rest.isEmpty else { return [] }
            s.table.search = rest
            return [.search(term: rest, from: s.table.scroll.selection, forward: true)]
        case "export":
            let args = rest.split(separator: " ", maxSplits: 1).map(String.init)
            guard args.count == 2, ["csv", "json"].contains(args[0].lowercased()) else {
                setStatus(&s, "Usage: :export csv|json FILE", .error)
                return []
            }
            guard s.table.source != nil else { return [] }
            return [.export(format: args[0].lowercased(), path: args[1])]
        case "save-value":
            // A cell of a table under "Other tables": in the inspector, or selected in the table.
            let cell: PlainCell? = s.modals.last.flatMap { modal in
                switch modal {
                case let .valueInspector(v): v.plainCell
                case let .plainTable(v): selectedPlainCell(v)
                default: nil
                }
            }
            if let cell, !rest.isEmpty { return [.plainTable(.save(cell, path: rest))] }
            // The value in the inspector, else the binary value selected in the detail pane.
            let inspected = s.modals.reversed().lazy.compactMap { modal -> (objectID: ManagedObjectID, key: String)? in
                if case let .valueInspector(v) = modal { return v.source }
                return nil
            }.first
            var selected: (objectID: ManagedObjectID, key: String)?
            if s.focus == .detail, let snap = s.detail.snapshot, snap.properties.indices.contains(s.detail.scroll.selection) {
                let p = snap.properties[s.detail.scroll.selection]
                if case let .attribute(type) = p.kind, type.hasPrefix(ValueFormatter.typeName(.binaryData)) || type.hasPrefix(ValueFormatter.typeName(.transformable)) {
                    selected = (snap.objectID, p.name)
                }
            }
            guard let target = inspected ?? selected, !rest.isEmpty else {
                setStatus(&s, "Usage: :save-value FILE, in the value inspector, on a binary value in the detail pane or a cell of a table", .error)
                return []
            }
            return [.saveValue(target.objectID, key: target.key, path: rest)]
        case "refresh": return run(&s, .refresh)
        case "mouse":
            if rest == "on" { s.mouseEnabled = true } else if rest == "off" { s.mouseEnabled = false } else { s.mouseEnabled.toggle() }
            return []
        default:
            if let commands = executeEditing(&s, head, rest) { return commands }
            if let id = CommandID(rawValue: head) { return run(&s, id) }
            setStatus(&s, "Unknown command “\(head)” (Tab completes, :help lists keys)", .error)
            return []
        }
    }
}
