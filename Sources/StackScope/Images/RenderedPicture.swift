/// A picture turned into terminal output by ``PictureRenderer``: the escapes and symbols, and
/// the cells they cover.
///
/// ```swift
/// let rendered = PictureRenderer.render(picture, columns: 80, rows: 24, style: style)
/// rendered?.columns  // 80
/// ```
public struct RenderedPicture: Sendable, Equatable {
    /// What to write: rows of symbols separated by newlines, or one sixel or kitty sequence.
    public var text: String
    /// The columns covered.
    public var columns: Int
    /// The rows covered.
    public var rows: Int
    /// The protocol it was made for.
    public var graphics: TerminalGraphics

    /// Creates rendered output.
    public init(text: String, columns: Int, rows: Int, graphics: TerminalGraphics) {
        self.text = text
        self.columns = columns
        self.rows = rows
        self.graphics = graphics
    }

    /// The rows of symbols (one element holding everything for sixel and kitty).
    public var lines: [String] {
        graphics == .symbols ? text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) : [text]
    }
}
