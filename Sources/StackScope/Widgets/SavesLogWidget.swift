import CoreStack
import Foundation

// The saves pane: the did-save log, newest last.
extension App {
    /// `HH:mm:ss.SSS` in local time.
    static func clockTime(_ date: Date) -> String {
        let c = Calendar.current.dateComponents([.hour, .minute, .second, .nanosecond], from: date)
        let ms = (c.nanosecond ?? 0) / 1_000_000
        func two(_ n: Int?) -> String { let v = n ?? 0; return v < 10 ? "0\(v)" : "\(v)" }
        return "\(two(c.hour)):\(two(c.minute)):\(two(c.second)).\(ms < 10 ? "00" : ms < 100 ? "0" : "")\(ms)"
    }

    /// An entry's line after its marker: time, context, counts and note.
    static func savesLine(_ e: SaveLogEntry) -> String {
        var line = "\(clockTime(e.date))  \(DisplayWidth.pad(e.contextName, to: 22))  "
        if e.origin == .refresh {
            line += e.note ?? "refresh"
        } else {
            line += "+\(e.inserted.count) inserted  ~\(e.updated.count) updated  -\(e.deleted.count) deleted"
            if let note = e.note { line += "  " + note }
        }
        return line
    }

    /// The lines the `k`th visible entry takes in a saves pane `width` wide: one, and when it is
    /// expanded its whole note (when longer than the line) and its object IDs.
    static func savesEntryLines(_ s: AppState, _ k: Int, width: Int) -> Int {
        let vis = s.saves.visibleIndices
        guard vis.indices.contains(k) else { return 0 }
        let e = s.saves.entries[vis[k]]
        guard s.saves.expanded.contains(s.saves.dropped + vis[k]) else { return 1 }
        var n = 1
        if let note = e.note, DisplayWidth.of("▸ " + savesLine(e)) > width {
            n += DisplayWidth.wrap(note, width: max(1, width - 4)).count
        }
        return n + e.inserted.count + e.updated.count + e.deleted.count
    }

    /// The first entry the saves pane shows: the scroll offset, or a later one when the selected
    /// entry's expanded lines would otherwise end below the pane's `rows` (an entry expanded at
    /// the bottom, or a newer one followed below an expanded one).
    static func savesFirstShown(_ s: AppState, rows: Int, width: Int) -> Int {
        let selection = s.saves.scroll.selection
        var first = min(s.saves.scroll.offset, selection)
        var used = (first...max(first, selection)).reduce(0) { $0 + savesEntryLines(s, $1, width: width) }
        while first < selection, used > rows {
            used -= savesEntryLines(s, first, width: width)
            first += 1
        }
        return first
    }

    static func renderSaves(_ s: AppState, _ r: Rect, _ b: inout ScreenBuffer) {
        let (border, titleStyle) = paneStyle(s, .saves)
        var title = "Saves"
        if let f = s.saves.contextFilter { title += " · context \(f)" }
        if !s.saves.follow { title += " · paused (F follows)" }
        b.box(r, title: title, style: border, titleStyle: titleStyle)
        let inner = r.inset(1)
        let vis = s.saves.visibleIndices
        if vis.isEmpty {
            b.put("No saves yet. Saves of every context of the stack appear here, and other processes' saves marked ⇄.", x: inner.x + 1, y: inner.y, maxWidth: inner.width - 1, style: .dim)
            return
        }
        var y = inner.y
        var k = savesFirstShown(s, rows: inner.height, width: inner.width)
        while y < inner.maxY, k < vis.count {
            let idx = vis[k]
            let e = s.saves.entries[idx]
            let selected = k == s.saves.scroll.selection
            let line = savesLine(e)
            let expanded = s.saves.expanded.contains(s.saves.dropped + idx)
            let marker = (expanded ? "▾" : "▸") + (e.origin == .remote ? "⇄" : " ")
            let style = selected
                ? selectionStyle(s, .saves)
                : e.origin == .refresh || e.origin == .remote ? Style(fg: .magenta) : e.origin == .event ? Style(fg: .yellow) : .plain
            if selected { b.fill(Rect(x: inner.x, y: y, width: inner.width, height: 1), style: style) }
            b.put(marker + line, x: inner.x, y: y, maxWidth: inner.width, style: style)
            y += 1
            if expanded {
                // A note longer than the line (a reset's or a merge's) is shown whole below it.
                if let note = e.note, DisplayWidth.of(marker + line) > inner.width {
                    for part in DisplayWidth.wrap(note, width: max(1, inner.width - 4)) where y < inner.maxY {
                        b.put("    " + part, x: inner.x, y: y, maxWidth: inner.width, style: .dim)
                        y += 1
                    }
                }
                let ids = e.inserted.map { "+ " + $0 } + e.updated.map { "~ " + $0 } + e.deleted.map { "- " + $0 }
                for id in ids where y < inner.maxY {
                    b.put("    " + id, x: inner.x, y: y, maxWidth: inner.width, style: .dim)
                    y += 1
                }
            }
            k += 1
        }
    }
}
