/// One cell of the screen: the cluster drawn there, its width and its style. A wide glyph takes
/// two cells: the first holds it with `width` 2, the second is a continuation with `width` 0.
///
/// ```swift
/// let c = Cell(text: "漢", width: 2, style: .bold)
/// ```
public struct Cell: Sendable, Hashable {
    /// The grapheme cluster drawn in the cell (empty for a continuation).
    public var text: String
    /// The cells the cluster takes: 1, 2 for a wide glyph, 0 for a continuation.
    public var width: UInt8
    /// How the cell is drawn.
    public var style: Style

    /// Creates a cell; by default a plain blank one cell wide.
    public init(text: String = " ", width: UInt8 = 1, style: Style = .plain) {
        self.text = text
        self.width = width
        self.style = style
    }

    /// A blank cell.
    public static let blank = Cell()
    /// The hidden right half of a wide glyph.
    public static func continuation(_ style: Style) -> Cell { Cell(text: "", width: 0, style: style) }

    /// Whether the cell is the right half of a wide glyph.
    public var isContinuation: Bool { width == 0 }
}
