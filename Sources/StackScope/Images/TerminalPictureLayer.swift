/// What a terminal backend writes to show a frame's pictures over its cells: the bytes (cursor
/// positions, then chafa's output), when to write them, and when the screen must be repainted
/// because a picture went away. Pure bookkeeping: ``CursesBackend`` does the writing.
///
/// Each draw: ``prepare(_:)`` before the cells (a picture gone or moved: clear and repaint the
/// screen; kitty images are deleted, since text does not cover them), then ``paint(_:cellsRepainted:)``
/// after them (a new picture, or one the cells were drawn over, is written again). The output
/// is wrapped in DECSC/DECRC (`ESC 7` … `ESC 8`), so the cursor and the colours curses believes
/// in are as it left them. Rendered output is kept for the last pictures and sizes.
///
/// ```swift
/// var layer = TerminalPictureLayer(style: PictureStyle(graphics: .symbols, colors: .truecolor))
/// let first = layer.prepare(frame.pictures)           // (clear: false, prefix: "")
/// let bytes = layer.paint(frame.pictures, cellsRepainted: true)  // "\u{1B}7\u{1B}[4;10H…\u{1B}8"
/// ```
public struct TerminalPictureLayer {
    /// How pictures are drawn.
    public var style: PictureStyle
    /// A cell's size in pixels.
    public var cell: Size
    /// The pictures on the screen now.
    public private(set) var shown: [FramePicture] = []
    private var cache: [(picture: DecodedPicture, area: Size, rendered: RenderedPicture?)] = []

    /// Deletes every kitty image on the screen.
    static let kittyDeleteAll = "\u{1B}_Ga=d,d=A\u{1B}\\"

    /// Creates a layer with nothing shown.
    public init(style: PictureStyle, cell: Size = PictureRenderer.defaultCell) {
        self.style = style
        self.cell = cell
    }

    /// Before a frame's cells are drawn: whether the screen must be cleared and every cell
    /// repainted (a picture shown is gone or moved), and bytes to write first.
    public mutating func prepare(_ pictures: [FramePicture]) -> (clear: Bool, prefix: String) {
        guard !shown.isEmpty, shown != pictures else { return (false, "") }
        let prefix = style.graphics == .kitty ? Self.kittyDeleteAll : ""
        shown = []
        return (true, prefix)
    }

    /// After a frame's cells are drawn: the bytes that paint its pictures, empty when they are
    /// on the screen already and no cell was drawn over them (`cellsRepainted` false).
    public mutating func paint(_ pictures: [FramePicture], cellsRepainted: Bool) -> String {
        defer { shown = pictures }
        guard !pictures.isEmpty, cellsRepainted || pictures != shown else { return "" }
        var out = "\u{1B}7"
        if style.graphics == .kitty { out += Self.kittyDeleteAll }
        for p in pictures {
            guard let rendered = rendered(p) else { continue }
            let x = p.area.x + max(0, (p.area.width - rendered.columns) / 2)
            for (i, line) in rendered.lines.enumerated() where i < p.area.height {
                out += "\u{1B}[\(p.area.y + i + 1);\(x + 1)H" + line
            }
        }
        return out + "\u{1B}[0m\u{1B}8"
    }

    /// Bytes that take the pictures off the screen for good (kitty's stay otherwise), before
    /// the terminal is given back.
    public mutating func remove() -> String {
        defer { shown = [] }
        return !shown.isEmpty && style.graphics == .kitty ? Self.kittyDeleteAll : ""
    }

    /// The output for `p`, rendered once per picture and area.
    private mutating func rendered(_ p: FramePicture) -> RenderedPicture? {
        let size = Size(width: p.area.width, height: p.area.height)
        if let hit = cache.first(where: { $0.picture === p.picture && $0.area == size }) { return hit.rendered }
        let rendered = PictureRenderer.render(p.picture, columns: size.width, rows: size.height, style: style, cell: cell)
        cache.append((p.picture, size, rendered))
        if cache.count > 4 { cache.removeFirst() }
        return rendered
    }
}
