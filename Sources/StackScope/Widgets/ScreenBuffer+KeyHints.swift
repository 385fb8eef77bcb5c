import Foundation

extension ScreenBuffer {
    /// Writes a line of key hints at row `y` (`Tab next pane  Enter open …`: each key in cyan,
    /// its label after it), as many as fit in the buffer's width.
    ///
    /// ```swift
    /// buffer.putKeyHints([("Enter", "open"), ("q", "quit")], y: size.height - 1)
    /// ```
    mutating func putKeyHints(_ hints: [(key: String, label: String)], y: Int) {
        var x = 0
        for (k, label) in hints {
            let need = DisplayWidth.of(k) + DisplayWidth.of(label) + 3
            if x + need > width { break }
            put(k, x: x + 1, y: y, style: Style(fg: .cyan, bold: true))
            put(label, x: x + 2 + DisplayWidth.of(k), y: y, style: .plain)
            x += need
        }
    }
}
