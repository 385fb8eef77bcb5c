import CoreStack
import Foundation

// MARK: - Render

extension App {
    static let spinner = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

    /// Draws the state into a frame of the state's size. Pure: reads nothing but the state.
    public static func render(_ s: AppState) -> Frame {
        var b = ScreenBuffer(size: s.size)
        let l = layout(s)
        if l.tooSmall {
            renderTooSmall(s, &b)
            return Frame(buffer: b, cursor: nil, mouse: s.mouseEnabled)
        }
        renderTitle(s, l, &b)
        if let r = l.entities { renderEntities(s, r, &b) }
        if let r = l.table { renderTable(s, r, &b) }
        if let r = l.detail { renderDetail(s, r, &b) }
        if let r = l.saves { renderSaves(s, r, &b) }
        renderStatus(s, l, &b)
        renderFooter(s, l, &b)
        var cursor: (x: Int, y: Int)?
        for modal in s.modals {
            if let c = renderModal(s, modal, l, &b) { cursor = c }
        }
        return Frame(buffer: b, cursor: cursor, mouse: s.mouseEnabled, pictures: pictures(s))
    }

    static func renderTooSmall(_ s: AppState, _ b: inout ScreenBuffer) {
        let m = ScreenLayout.minimum
        let lines = ["Terminal too small", "\(s.size.width)×\(s.size.height), need \(m.width)×\(m.height)", "q quits"]
        let top = max(0, (s.size.height - lines.count) / 2)
        for (i, line) in lines.enumerated() {
            let text = DisplayWidth.truncate(line, to: s.size.width)
            b.put(text, x: max(0, (s.size.width - DisplayWidth.of(text)) / 2), y: top + i, style: i == 0 ? .bold : .plain)
        }
    }

    static func paneStyle(_ s: AppState, _ pane: Pane) -> (border: Style, title: Style) {
        s.focus == pane && s.modals.isEmpty
            ? (Style(fg: .cyan, bold: true), Style(fg: .cyan, bold: true, reverse: false))
            : (Style.dim, Style.bold)
    }

    /// The selected row's style: reverse in the focused pane, underlined elsewhere.
    static func selectionStyle(_ s: AppState, _ pane: Pane) -> Style {
        s.focus == pane && s.modals.isEmpty ? Style(reverse: true) : Style(bold: true, underline: true)
    }

    static func renderTitle(_ s: AppState, _ l: ScreenLayout, _ b: inout ScreenBuffer) {
        let bar = Style(reverse: true)
        b.fill(l.title, style: bar)
        var text = " stackscope"
        if s.store.readOnly { text += "  [read-only]" }
        text += "  model \(s.store.modelVersion)  \(s.store.path)"
        b.put(text, x: 0, y: 0, maxWidth: l.title.width, style: bar.with(bold: true))
        if !s.navigation.isEmpty, case let .relationship(_, _, _, title)? = s.table.source {
            let crumb = " " + (s.navigation.map { $0.table.source?.entityName ?? "" } + [title]).joined(separator: " › ") + " "
            let w = DisplayWidth.of(crumb)
            if w < l.title.width / 2 { b.put(crumb, x: l.title.width - w, y: 0, style: bar) }
        }
    }
}

