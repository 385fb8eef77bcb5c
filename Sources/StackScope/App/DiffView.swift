import CoreStack
import Foundation

/// The diff view's logic, Elm-style as ``App``'s: ``update(_:_:)`` is the only place its state
/// changes (it returns the work for ``DiffViewProgram`` as ``Command``s), and ``render(_:)``
/// (Widgets/DiffViewWidget.swift) draws a state without touching anything else.
///
/// Keys: Tab / S-Tab the next / previous pane, ↑↓ (j k) PgUp PgDn g G move, Enter goes right
/// (entity → its objects → the object's two sides), Esc goes back left, `?` the help (``keyHelp``),
/// `M` mouse capture on/off, q (or Ctrl-C) quits; while the comparison runs, Esc quits too. The
/// mouse selects a pane and its line with a click and scrolls with the wheel.
///
/// ```swift
/// var state = DiffViewState(oldPath: "a.sqlite", newPath: "b.sqlite")
/// let commands = DiffView.update(&state, .compared(report))   // [.loadDetail(…)] for the first object
/// let frame = DiffView.render(state)
/// ```
public enum DiffView {
    /// Everything that can happen to the diff view.
    public enum Action: Sendable {
        /// A key pressed.
        case key(Key)
        /// The terminal has a new size.
        case resized(Size)
        /// The spinner's clock while the comparison runs.
        case tick
        /// How far the comparison got.
        case progress(String)
        /// The comparison finished.
        case compared(StoreDiffReport)
        /// The comparison (or opening a store) failed: one line.
        case failed(String)
        /// The two sides of the object of `row` of `entity` were read (or could not be).
        case detailLoaded(entity: String, row: DiffViewState.Row, DiffObjectDetail?, error: String?)
    }

    /// Work for the program, asked for by ``update(_:_:)``.
    public enum Command: Sendable, Hashable {
        /// Read the object of a line from both stores.
        case loadDetail(entity: String, row: DiffViewState.Row)
        /// Stop the comparison if it runs, close the stores and end.
        case quit
        /// Draw the whole screen again.
        case redraw
        /// Give the terminal back and stop (C-z).
        case suspend
    }

    /// Applies `action` and returns the work to do; the only place the state changes.
    public static func update(_ s: inout DiffViewState, _ action: Action) -> [Command] {
        switch action {
        case let .resized(size):
            s.size = size
            clampAll(&s)
            return []
        case .tick:
            s.spinnerPhase &+= 1
            return []
        case let .progress(text):
            if s.progress != nil { s.progress = text }
            return []
        case let .compared(report):
            s.progress = nil
            s.report = report
            s.entityScroll = ScrollState()
            let changed = report.entities.filter(\.hasChanges).count
            s.status = report.hasChanges
                ? "\(changed) of \(report.entities.count) entities changed · Enter opens · Tab next pane · q quits"
                : "No differences in the objects compared · q quits"
            return entityChanged(&s)
        case let .failed(message):
            s.progress = nil
            s.error = message
            s.status = "q quits"
            return []
        case let .detailLoaded(entity, row, detail, error):
            guard s.selectedEntity?.name == entity, s.selectedRow == row else { return [] }
            s.detail = detail
            s.detailError = error
            s.detailOffset = 0
            return []
        case let .key(key):
            return handleKey(&s, key)
        }
    }

    static func handleKey(_ s: inout DiffViewState, _ key: Key) -> [Command] {
        if case let .mouse(m) = key { return handleMouse(&s, m) }
        if s.help != nil, key != .ctrl("c") { return handleHelpKey(&s, key) }
        switch key {
        case .char("?"):
            s.help = HelpState()
            return []
        case .char("M"):
            s.mouseEnabled.toggle()
            s.status = s.mouseEnabled ? "Mouse on" : "Mouse off: the terminal selects text"
            return []
        case .ctrl("c"), .char("q"):
            s.quitRequested = true
            return [.quit]
        case .escape where s.progress != nil:
            s.quitRequested = true
            return [.quit]
        case .ctrl("l"): return [.redraw]
        case .ctrl("z"): return [.suspend]
        case .tab, .backTab:
            let panes = DiffViewState.Pane.allCases
            let i = panes.firstIndex(of: s.focus) ?? 0
            s.focus = panes[(i + (key == .tab ? 1 : panes.count - 1)) % panes.count]
            return []
        case .enter, .right, .char("l"):
            switch s.focus {
            case .entities where s.selectedEntity != nil: s.focus = .objects
            case .objects where s.selectedRow != nil: s.focus = .detail
            default: break
            }
            return []
        case .escape, .left, .char("h"):
            switch s.focus {
            case .detail: s.focus = .objects
            case .objects: s.focus = .entities
            case .entities: if key == .escape { s.status = "q quits" }
            }
            return []
        case .down, .char("j"): return move(&s, by: 1)
        case .up, .char("k"): return move(&s, by: -1)
        case .pageDown, .ctrl("d"): return move(&s, by: rows(s, s.focus))
        case .pageUp, .ctrl("u"): return move(&s, by: -rows(s, s.focus))
        case .home, .char("g"): return move(&s, by: -Int.max / 2)
        case .end, .char("G"): return move(&s, by: Int.max / 2)
        default:
            s.status = "\(key) does nothing here · ? help · Tab next pane · Enter opens · Esc back · q quits"
            return []
        }
    }

    /// Moves the focused pane's selection (the detail scrolls) by `delta` lines.
    static func move(_ s: inout DiffViewState, by delta: Int) -> [Command] {
        switch s.focus {
        case .entities:
            let before = s.entityScroll.selection
            s.entityScroll.selection = before + delta
            s.entityScroll.clamp(count: s.entities.count, height: rows(s, .entities))
            return s.entityScroll.selection == before ? [] : entityChanged(&s)
        case .objects:
            let before = s.objectScroll.selection
            s.objectScroll.selection = before + delta
            s.objectScroll.clamp(count: s.rows.count, height: rows(s, .objects))
            return s.objectScroll.selection == before ? [] : rowChanged(&s)
        case .detail:
            let count = detailLineCount(s)
            s.detailOffset = min(max(0, count - rows(s, .detail)), max(0, s.detailOffset + delta))
            return []
        }
    }

    /// Another entity selected: its first line selected, and its detail asked for.
    static func entityChanged(_ s: inout DiffViewState) -> [Command] {
        s.objectScroll = ScrollState()
        return rowChanged(&s)
    }

    /// Another line selected: the detail shown goes, and the new one is asked for.
    static func rowChanged(_ s: inout DiffViewState) -> [Command] {
        s.detail = nil
        s.detailError = nil
        s.detailOffset = 0
        guard let entity = s.selectedEntity, let row = s.selectedRow else { return [] }
        return [.loadDetail(entity: entity.name, row: row)]
    }

    static func clampAll(_ s: inout DiffViewState) {
        s.entityScroll.clamp(count: s.entities.count, height: rows(s, .entities))
        s.objectScroll.clamp(count: s.rows.count, height: rows(s, .objects))
        s.detailOffset = min(s.detailOffset, max(0, detailLineCount(s) - rows(s, .detail)))
    }

    /// Lines of the detail: a line per property, then a blank and the relationship changes.
    static func detailLineCount(_ s: DiffViewState) -> Int {
        guard let d = s.detail else { return 0 }
        return d.lines.count + (d.changes.isEmpty ? 0 : d.changes.count + 2)
    }

    /// How many list lines a pane shows on the state's screen.
    static func rows(_ s: DiffViewState, _ pane: DiffViewState.Pane) -> Int {
        let l = Layout(size: s.size)
        switch pane {
        case .entities: return max(1, l.entities.height - 2)
        case .objects: return max(1, l.objects.height - 2)
        case .detail: return max(1, l.detail.height - 3)
        }
    }

    /// Where the panes go: the entities on the left, the objects above the detail on the right,
    /// a title line above and the status and keys lines below.
    struct Layout {
        var title: Rect
        var entities: Rect
        var objects: Rect
        var detail: Rect
        var status: Rect
        var footer: Rect

        init(size: Size) {
            let w = max(20, size.width), h = max(10, size.height)
            let bodyHeight = h - 3
            let left = min(36, max(22, w / 4))
            let top = max(5, bodyHeight * 2 / 5)
            title = Rect(x: 0, y: 0, width: w, height: 1)
            entities = Rect(x: 0, y: 1, width: left, height: bodyHeight)
            objects = Rect(x: left, y: 1, width: w - left, height: top)
            detail = Rect(x: left, y: 1 + top, width: w - left, height: bodyHeight - top)
            status = Rect(x: 0, y: h - 2, width: w, height: 1)
            footer = Rect(x: 0, y: h - 1, width: w, height: 1)
        }
    }
}
