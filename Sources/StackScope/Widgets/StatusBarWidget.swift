import CoreStack
import Foundation

// The status bar and the key-hint footer.
extension App {
    static func renderStatus(_ s: AppState, _ l: ScreenLayout, _ b: inout ScreenBuffer) {
        let r = l.status
        b.fill(r, style: Style(reverse: true))
        var left = ""
        var style = Style(reverse: true)
        if let busy = s.busy {
            left = " \(spinner[s.spinnerPhase % spinner.count]) \(busy)… (Esc cancels)"
        } else if let m = s.status.message {
            left = " " + m
            switch s.status.level {
            case .info: break
            case .warning: style = Style(fg: .yellow, bold: true, reverse: true)
            case .error: style = Style(fg: .red, bold: true, reverse: true)
            }
        }
        var right = "ctx \(s.store.contextName)"
        if let c = s.currentContextInfo, c.kind != .main { right += " (\(c.kind.rawValue))" }
        if let c = s.currentContextInfo, s.contexts.count > 1 || c.kind != .main { right += " · \(c.mergePolicy)" }
        right += " · \(s.pendingChanges.total) pending"
        if s.store.readOnly { right = "read-only · " + right }
        if let c = s.pendingCount { right = "\(c)  " + right }
        if !s.mouseEnabled { right = "mouse off · " + right }
        right += " "
        let rw = DisplayWidth.of(right)
        // Cut with an ellipsis when too long (notes at start are whole in the saves pane).
        let room = max(0, r.width - rw - 1)
        b.put(DisplayWidth.of(left) > room ? DisplayWidth.ellipsize(left, to: room) : left, x: 0, y: r.y, maxWidth: room, style: style)
        if rw < r.width { b.put(right, x: r.width - rw, y: r.y, style: Style(reverse: true)) }
    }

    static func renderFooter(_ s: AppState, _ l: ScreenLayout, _ b: inout ScreenBuffer) {
        let r = l.footer
        var x = 0
        let scopes = [KeyScope(s.focus), .global]
        var seen = Set<String>()
        for scope in scopes {
            for bnd in Keymap.all where bnd.scope == scope {
                guard let label = bnd.footer, let key = bnd.keys.first, !seen.contains(label) else { continue }
                seen.insert(label)
                let k = key.description
                let need = DisplayWidth.of(k) + DisplayWidth.of(label) + 3
                if x + need > r.width { return }
                b.put(k, x: x + 1, y: r.y, style: Style(fg: .cyan, bold: true))
                b.put(label, x: x + 2 + DisplayWidth.of(k), y: r.y, style: .plain)
                x += need
            }
        }
    }
}
