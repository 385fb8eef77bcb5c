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
        var k = s.saves.scroll.offset
        while y < inner.maxY, k < vis.count {
            let idx = vis[k]
            let e = s.saves.entries[idx]
            let selected = k == s.saves.scroll.selection
            let time = clockTime(e.date)
            var line = "\(time)  \(DisplayWidth.pad(e.contextName, to: 22))  "
            if e.origin == .refresh {
                line += e.note ?? "refresh"
            } else {
                line += "+\(e.inserted.count) inserted  ~\(e.updated.count) updated  -\(e.deleted.count) deleted"
                if let note = e.note { line += "  " + note }
            }
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
