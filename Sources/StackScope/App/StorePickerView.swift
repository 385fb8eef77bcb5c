import Foundation

/// The store picker's logic, Elm-style as ``App``'s: ``update(_:_:)`` is the only place its
/// state changes (it returns the work for ``StorePickerProgram`` as ``Command``s), and
/// ``render(_:)`` (Widgets/StorePickerWidget.swift) draws a state.
///
/// Keys: ↑↓ PgUp PgDn Home End move, typing filters the list by path (Backspace, Ctrl-U clear),
/// Enter opens the selected store in the browser (whose `q` comes back here), Esc clears the
/// filter or quits, `?` (with an empty filter) shows the help (``keyHelp``), Ctrl-C quits. The
/// mouse selects a store with a click and scrolls the list with the wheel.
///
/// ```swift
/// var picker = StorePickerState(folders: ["."])
/// _ = StorePickerView.update(&picker, .scanned(search, done: true))
/// StorePickerView.update(&picker, .key(.enter))   // [.open("./App.sqlite")]
/// ```
public enum StorePickerView {
    /// Everything that can happen to the picker.
    public enum Action: Sendable {
        /// A key pressed.
        case key(Key)
        /// The terminal has a new size.
        case resized(Size)
        /// The spinner's clock while the search runs.
        case tick
        /// What the search has found so far; `done` when it finished.
        case scanned(StoreSearch, done: Bool)
        /// The search failed: one line.
        case failed(String)
        /// The store at the path could not be opened: why.
        case openFailed(path: String, message: String)
        /// The browser quit and the picker is back; `note` is what it had to say (a failed save).
        case returned(note: String?)
    }

    /// Work for the program.
    public enum Command: Sendable, Hashable {
        /// Open the store at this path in the browser.
        case open(String)
        /// Stop the search and end.
        case quit
        /// Draw the whole screen again.
        case redraw
        /// Give the terminal back and stop (C-z).
        case suspend
    }

    /// Applies `action` and returns the work to do; the only place the state changes.
    public static func update(_ s: inout StorePickerState, _ action: Action) -> [Command] {
        switch action {
        case let .resized(size):
            s.size = size
            s.scroll.clamp(count: s.visible.count, height: listRows(s))
            return []
        case .tick:
            s.spinnerPhase &+= 1
            return []
        case let .scanned(search, done):
            let selected = s.selected?.path
            s.search = search
            s.scanning = !done
            // The selection stays on its store as others arrive before it.
            if let selected, let i = s.visible.firstIndex(where: { $0.path == selected }) { s.scroll.selection = i }
            s.scroll.clamp(count: s.visible.count, height: listRows(s))
            if done {
                s.status = search.stores.isEmpty
                    ? ("No Core Data store under \(s.folders.joined(separator: ", ")) · Esc quits", false)
                    : ("\(search.stores.count) \(search.stores.count == 1 ? "store" : "stores") · \(s.search.foldersSearched.formatted()) folders searched"
                        + (search.skippedFolders.isEmpty ? "" : " · \(search.skippedFolders.count) could not be read") + " · Enter opens", false)
            }
            return []
        case let .failed(message):
            s.scanning = false
            s.error = message
            s.status = (message, true)
            return []
        case let .openFailed(path, message):
            s.opening = nil
            s.status = ("\(s.shownPath(path)): \(message)", true)
            return []
        case let .returned(note):
            s.opening = nil
            s.status = note.map { ("Saving on leaving the store failed: \($0)", true) } ?? ("Back to the stores · Enter opens one · Esc quits", false)
            return []
        case let .key(key):
            return handleKey(&s, key)
        }
    }

    static func handleKey(_ s: inout StorePickerState, _ key: Key) -> [Command] {
        let height = listRows(s)
        if case let .mouse(m) = key { return handleMouse(&s, m) }
        if s.help != nil, key != .ctrl("c") { return handleHelpKey(&s, key) }
        switch key {
        case .char("?") where s.filter.chars.isEmpty:
            s.help = HelpState()
            return []
        case .ctrl("c"):
            s.quitRequested = true
            return [.quit]
        case .escape:
            if !s.filter.chars.isEmpty {
                s.filter = LineEditor()
                s.scroll = ScrollState()
                return []
            }
            s.quitRequested = true
            return [.quit]
        case .ctrl("l"): return [.redraw]
        case .ctrl("z"): return [.suspend]
        case .enter:
            guard let store = s.selected else {
                s.status = (s.scanning ? "Still searching: no store to open yet" : "No store to open", false)
                return []
            }
            guard s.opening == nil else { return [] }
            s.opening = store.path
            s.status = ("Opening \(s.shownPath(store.path))", false)
            return [.open(store.path)]
        case .down, .ctrl("n"): s.scroll.selection += 1
        case .up, .ctrl("p"): s.scroll.selection -= 1
        case .pageDown: s.scroll.selection += height
        case .pageUp: s.scroll.selection -= height
        case .home: s.scroll.selection = 0
        case .end: s.scroll.selection = max(0, s.visible.count - 1)
        default:
            guard s.filter.handle(key) else { return [] }
            s.scroll = ScrollState()
        }
        s.scroll.clamp(count: s.visible.count, height: height)
        return []
    }

    /// Rows of the list on the state's screen: all but the title, the box, the column header,
    /// the filter, status and keys lines.
    static func listRows(_ s: StorePickerState) -> Int { max(1, s.size.height - 7) }
}
