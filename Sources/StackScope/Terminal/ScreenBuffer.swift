/// A grid of cells that the app renders into and a backend paints: the pure output of `render`.
/// Writing text splits it into grapheme clusters measured by ``DisplayWidth``; a wide glyph that
/// does not fit at the right edge becomes a blank, and overwriting either half of a wide glyph
/// blanks the other half, so the grid always matches what the terminal shows.
///
/// ```swift
/// var buffer = ScreenBuffer(size: Size(width: 20, height: 2))
/// buffer.put("漢字 ok", x: 0, y: 0)
/// buffer.lines()[0]     // "漢字 ok             "
/// ```
public struct ScreenBuffer: Sendable, Equatable {
    /// The buffer's size.
    public private(set) var size: Size
    /// The cells, row by row.
    public private(set) var cells: [Cell]

    /// Creates a buffer of `size` with every cell set to `fill`.
    public init(size: Size, fill: Cell = .blank) {
        self.size = size
        self.cells = Array(repeating: fill, count: size.width * size.height)
    }

    /// The number of columns.
    public var width: Int { size.width }
    /// The number of rows.
    public var height: Int { size.height }
    /// The whole buffer as a rectangle at the origin.
    public var bounds: Rect { Rect(x: 0, y: 0, width: size.width, height: size.height) }

    /// The cell at (`x`, `y`), or a blank for a position outside the buffer.
    public subscript(x: Int, y: Int) -> Cell {
        get { inBounds(x, y) ? cells[y * size.width + x] : .blank }
    }

    @inline(__always) func inBounds(_ x: Int, _ y: Int) -> Bool { x >= 0 && y >= 0 && x < size.width && y < size.height }

    /// Sets one cell, keeping wide glyphs whole (a half that is overwritten blanks the other half).
    public mutating func set(_ x: Int, _ y: Int, _ cell: Cell) {
        guard inBounds(x, y) else { return }
        let i = y * size.width + x
        let old = cells[i]
        if old.width == 2, x + 1 < size.width { cells[i + 1] = Cell(text: " ", width: 1, style: cells[i + 1].style) }
        if old.width == 0, x > 0, cells[i - 1].width == 2 { cells[i - 1] = Cell(text: " ", width: 1, style: cells[i - 1].style) }
        if cell.width == 2 {
            guard x + 1 < size.width else {
                cells[i] = Cell(text: " ", width: 1, style: cell.style)
                return
            }
            let next = cells[i + 1]
            if next.width == 2, x + 2 < size.width { cells[i + 2] = Cell(text: " ", width: 1, style: cells[i + 2].style) }
            cells[i] = cell
            cells[i + 1] = .continuation(cell.style)
        } else {
            cells[i] = cell
        }
    }

    /// Writes `text` at (x, y) in at most `maxWidth` cells (to the right edge when nil) and returns
    /// the number of cells used. Control characters are drawn as a dim `?`; newlines end the text.
    @discardableResult
    public mutating func put(_ text: String, x: Int, y: Int, maxWidth: Int? = nil, style: Style = .plain) -> Int {
        guard y >= 0, y < size.height else { return 0 }
        let limit = min(maxWidth ?? (size.width - x), size.width - x)
        guard limit > 0 else { return 0 }
        var used = 0
        for c in text {
            if c == "\n" || c == "\r\n" { break }
            guard let g = DisplayWidth.glyph(c) else { continue }
            if used + g.width > limit {
                if g.width == 2, used < limit { set(x + used, y, Cell(text: " ", width: 1, style: style)); used += 1 }
                break
            }
            if x + used >= 0 {
                set(x + used, y, Cell(text: g.text, width: UInt8(g.width), style: g.isPlaceholder ? style.with(dim: true) : style))
            }
            used += g.width
        }
        return used
    }

    /// Fills a rectangle with blanks of a style.
    public mutating func fill(_ rect: Rect, style: Style = .plain, with text: String = " ") {
        for y in max(0, rect.y)..<min(size.height, rect.maxY) {
            for x in max(0, rect.x)..<min(size.width, rect.maxX) {
                set(x, y, Cell(text: text, width: 1, style: style))
            }
        }
    }

    /// Changes the style of the cells of a rectangle, keeping their text.
    public mutating func restyle(_ rect: Rect, _ transform: (Style) -> Style) {
        for y in max(0, rect.y)..<min(size.height, rect.maxY) {
            for x in max(0, rect.x)..<min(size.width, rect.maxX) {
                cells[y * size.width + x].style = transform(cells[y * size.width + x].style)
            }
        }
    }

    /// Draws a box border (Unicode line drawing) with an optional title on the top edge.
    public mutating func box(_ rect: Rect, title: String? = nil, style: Style = .plain, titleStyle: Style? = nil) {
        guard rect.width >= 2, rect.height >= 2 else { return }
        let h = String(repeating: "─", count: rect.width - 2)
        put("┌" + h + "┐", x: rect.x, y: rect.y, maxWidth: rect.width, style: style)
        put("└" + h + "┘", x: rect.x, y: rect.maxY - 1, maxWidth: rect.width, style: style)
        for y in rect.y + 1..<rect.maxY - 1 {
            put("│", x: rect.x, y: y, style: style)
            put("│", x: rect.maxX - 1, y: y, style: style)
        }
        if let title, rect.width > 4 {
            // Too long: cut with an ellipsis, a blank and the corner still after it.
            put(" " + DisplayWidth.ellipsize(title, to: rect.width - 4) + " ", x: rect.x + 1, y: rect.y, maxWidth: rect.width - 2, style: titleStyle ?? style)
        }
    }

    /// The screen as text, a line per row (continuation cells contribute nothing), for tests.
    public func lines() -> [String] {
        (0..<size.height).map { y in
            var line = ""
            for x in 0..<size.width {
                let c = cells[y * size.width + x]
                if c.width > 0 { line += c.text }
            }
            return line
        }
    }

    /// The screen as one string, rows joined by newlines, trailing spaces trimmed.
    public var text: String {
        lines().map { l in String(l.reversed().drop(while: { $0 == " " }).reversed()) }.joined(separator: "\n")
    }
}
