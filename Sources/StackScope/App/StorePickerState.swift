import Foundation

/// The store picker's whole state (`stackscope DIR` on a terminal): the stores found under the
/// folders so far (``StoreSearch``), while the search runs how far it got, a filter typed to
/// narrow the list by path, and the selection. A value: ``StorePickerView/update(_:_:)`` changes
/// it, ``StorePickerView/render(_:)`` draws it.
///
/// ```swift
/// var picker = StorePickerState(folders: ["Stores"])
/// _ = StorePickerView.update(&picker, .scanned(search, done: true))
/// picker.filter.set("app")
/// picker.visible.map(\.path)   // ["Stores/App.sqlite"]
/// ```
public struct StorePickerState: Sendable {
    /// The folders searched.
    public var folders: [String]
    /// The terminal size in cells.
    public var size = Size(width: 80, height: 24)
    /// What the search found so far (all of it once ``scanning`` is nil).
    public var search = StoreSearch()
    /// While the search runs: true (the status line shows its progress with a spinner).
    public var scanning = true
    /// Why the search failed (a folder that does not exist), shown in place of the list.
    public var error: String?
    /// Text typed to keep only the stores whose path contains it (any case).
    public var filter = LineEditor()
    /// The selected store in ``visible`` and the list's scroll.
    public var scroll = ScrollState()
    /// The status line's message, and whether it is an error.
    public var status: (text: String, isError: Bool)?
    /// The store being opened (Enter), until the browser takes over or it fails.
    public var opening: String?
    /// The frame of the spinner, advanced by ticks while the search runs.
    public var spinnerPhase = 0
    /// Set by Esc or Ctrl-C: the program ends.
    public var quitRequested = false
    /// The `?` help, while shown.
    public var help: HelpState?

    /// A picker over the stores under `folders`, the search still to run.
    public init(folders: [String]) {
        self.folders = folders
    }

    /// The stores listed: those whose path as shown (``shownPath(_:)``) contains the filter (any case), by path.
    public var visible: [FoundStore] {
        let text = filter.text.trimmingCharacters(in: .whitespaces).lowercased()
        let all = search.stores.sorted { $0.path < $1.path }
        return text.isEmpty ? all : all.filter { shownPath($0.path).lowercased().contains(text) }
    }

    /// The selected store, nil when none is listed.
    public var selected: FoundStore? {
        let v = visible
        return v.indices.contains(scroll.selection) ? v[scroll.selection] : nil
    }

    /// A store's path as the list shows it: under the folder searched (the title names it), else whole.
    ///
    /// ```swift
    /// StorePickerState(folders: ["/data"]).shownPath("/data/app/App.sqlite")   // "app/App.sqlite"
    /// ```
    public func shownPath(_ path: String) -> String {
        for folder in folders {
            let prefix = folder.hasSuffix("/") ? folder : folder + "/"
            if path.hasPrefix(prefix), path.count > prefix.count { return String(path.dropFirst(prefix.count)) }
        }
        return path
    }

    /// What the search has done: `412 folders, 10,020 files, 3 stores, 2 folders could not be read`.
    public var progressLine: String {
        var parts = ["\(search.foldersSearched.formatted()) folders", "\(search.filesExamined.formatted()) files examined",
                     "\(search.stores.count) \(search.stores.count == 1 ? "store" : "stores")"]
        let skipped = search.skippedFolders.count
        if skipped > 0 { parts.append("\(skipped) \(skipped == 1 ? "folder" : "folders") could not be read") }
        if !search.skippedFiles.isEmpty { parts.append("\(search.skippedFiles.count) files could not be read") }
        return parts.joined(separator: ", ")
    }
}
