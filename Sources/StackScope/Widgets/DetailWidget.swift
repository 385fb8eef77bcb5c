import CoreStack
import Foundation

// The detail pane: the selected object's attributes and relationships.
extension App {
    static func renderDetail(_ s: AppState, _ r: Rect, _ b: inout ScreenBuffer) {
        let (border, titleStyle) = paneStyle(s, .detail)
        guard let snap = s.detail.snapshot else {
            b.box(r, title: "Detail", style: border, titleStyle: titleStyle)
            let inner = r.inset(1)
            let text = s.detail.error ?? "No object selected"
            for (i, line) in DisplayWidth.wrap(text, width: max(1, inner.width - 1)).prefix(max(0, inner.height)).enumerated() {
                b.put(line, x: inner.x + 1, y: inner.y + i, style: s.detail.error == nil ? .dim : Style(fg: .red, bold: true))
            }
            return
        }
        b.box(r, title: "\(snap.entityName): \(snap.title)", style: border, titleStyle: titleStyle)
        let inner = r.inset(1)
        guard inner.height > 1, inner.width > 8 else { return }
        b.put(snap.uri, x: inner.x, y: inner.y, maxWidth: inner.width, style: .dim)
        let nameWidth = min(max(8, snap.properties.map { DisplayWidth.of($0.name) + ($0.isRaw ? 1 : 0) }.max() ?? 8), inner.width / 3)
        let valueX = inner.x + nameWidth + 2
        let valueWidth = max(1, inner.maxX - valueX)
        var y = inner.y + 1
        var i = s.detail.scroll.offset
        while y < inner.maxY, i < snap.properties.count {
            let p = snap.properties[i]
            let selected = i == s.detail.scroll.selection
            let lines: [String]
            var style = Style.plain
            switch p.kind {
            case let .attribute(type):
                let v = DisplayWidth.wrap(p.value, width: valueWidth)
                lines = (v.isEmpty ? [""] : v) + (selected ? [type] : [])
                if p.value == "nil" { style = .dim }
            case let .toOne(destination, _):
                lines = ["→ " + p.value + "  (\(destination))"]
                style = Style(fg: .blue)
            case let .toMany(destination, count, ordered):
                lines = ["⇉ \(formatCount(count)) \(destination)\(ordered ? ", ordered" : "")"]
                style = Style(fg: .blue)
            }
            if p.changed { style = Style(fg: .yellow, bold: true) }
            let nameStyle = selected ? selectionStyle(s, .detail) : p.isRaw ? Style(fg: .yellow, bold: true) : Style.bold
            b.put(DisplayWidth.pad(p.name + (p.isRaw ? "≈" : ""), to: nameWidth), x: inner.x, y: y, style: nameStyle)
            if p.changed { b.put("*", x: inner.x + nameWidth, y: y, style: Style(fg: .yellow, bold: true)) }
            for (k, line) in lines.prefix(8).enumerated() where y < inner.maxY {
                let isTypeLine = selected && k == lines.count - 1 && !p.isRelationship
                b.put(line, x: valueX, y: y, maxWidth: valueWidth, style: isTypeLine ? .dim : style)
                y += 1
                _ = k
            }
            i += 1
        }
    }
}
