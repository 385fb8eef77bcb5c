import CoreStack
import Foundation

// The plain table view of a table under "Other tables": keys, and the rows read for it.
extension App {
    /// Rows of the plain table view on a screen of the state's size: the screen less the box,
    /// the header and the keys line.
    static func plainTableHeight(_ s: AppState) -> Int { max(1, s.size.height - 4) }

    static func handlePlainTableKey(_ s: inout AppState, _ view: PlainTableViewState, _ key: Key) -> [Command] {
        var v = view
        let height = plainTableHeight(s)
        switch key {
        case .escape, .ctrl("c"), .char("q"):
            s.modals.removeLast()
            return []
        case .down, .char("j"): v.scroll.selection += 1
        case .up, .char("k"): v.scroll.selection -= 1
        case .pageDown, .ctrl("d"), .char(" "): v.scroll.selection += height
        case .pageUp, .ctrl("u"): v.scroll.selection -= height
        case .char("g"), .home: v.scroll.selection = 0
        case .char("G"), .end: v.scroll.selection = max(0, v.rowCount - 1)
        case .left, .char("h"): v.selectedColumn = max(0, v.selectedColumn - 1)
        case .right, .char("l"): v.selectedColumn = min(max(0, v.columns.count - 1), v.selectedColumn + 1)
        case .char("s"):
            v.cycleSort()
            if let key = v.query.sort.first {
                setStatus(&s, "\(v.table) sorted by \(key.column) \(key.ascending ? "ascending" : "descending")", .info)
            } else {
                setStatus(&s, "\(v.table) in rowid order", .info)
            }
        case .char(":"):
            // :save-value FILE on the selected cell, and the other commands.
            s.modals.append(.commandLine(CommandLineState()))
            return []
        case .char("f"), .char("/"):
            s.modals[s.modals.count - 1] = .plainTable(v)
            s.modals.append(.prompt(PromptState(purpose: .search, text: v.query.filter?.text ?? "")))
            return []
        case .enter:
            guard let cell = selectedPlainCell(v) else { return [] }
            return [.plainTable(.inspect(cell))]
        default: return []
        }
        v.scroll.clamp(count: v.rowCount, height: height)
        s.modals[s.modals.count - 1] = .plainTable(v)
        return plainRowsNeeded(s, v)
    }

    /// The cell selected in the view: by `rowid`, or by its position in a table without one.
    static func selectedPlainCell(_ v: PlainTableViewState) -> PlainCell? {
        guard v.columns.indices.contains(v.selectedColumn), let row = v.window[v.scroll.selection] else { return nil }
        let column = v.columns[v.selectedColumn].name
        if let rowID = row.rowID { return PlainCell(table: v.table, column: column, row: .rowID(rowID)) }
        return PlainCell(table: v.table, column: column, row: .position(v.query, v.scroll.selection))
    }

    /// The read of the rows the view shows that are not there yet, if any.
    static func plainRowsNeeded(_ s: AppState, _ v: PlainTableViewState) -> [Command] {
        guard let range = v.needsRows(height: plainTableHeight(s)) else { return [] }
        return [.plainTable(.load(table: v.table, query: v.query, range: range, generation: v.generation))]
    }

    /// The filter prompt over the plain table view was submitted: rows containing `text` (all when empty).
    static func filterPlainTable(_ s: inout AppState, _ text: String) -> [Command] {
        guard case var .plainTable(v)? = s.modals.last else { return [] }
        v.filter(text)
        s.modals[s.modals.count - 1] = .plainTable(v)
        setStatus(&s, text.isEmpty ? "\(v.table): every row" : "\(v.table): rows containing “\(text)”", .info)
        return plainRowsNeeded(s, v)
    }

    static func plainRowsLoaded(_ s: inout AppState, _ loaded: PlainRowsLoaded) -> [Command] {
        guard let i = s.modals.lastIndex(where: { if case let .plainTable(v) = $0 { v.table == loaded.table } else { false } }),
              case var .plainTable(v) = s.modals[i], v.generation == loaded.generation
        else { return [] }
        v.rowCount = loaded.rowCount
        v.error = loaded.error
        for (k, row) in loaded.rows.enumerated() { v.window[loaded.range.lowerBound + k] = row }
        // Rows far from the view are dropped: the window stays a few pages whatever was scrolled.
        let height = plainTableHeight(s)
        if v.window.count > 8 * height { v.window = v.window.filter { abs($0.key - v.scroll.offset) <= 2 * height } }
        v.scroll.clamp(count: v.rowCount, height: height)
        s.modals[i] = .plainTable(v)
        return []
    }
}
