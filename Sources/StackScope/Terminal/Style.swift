/// One of the terminal's own palette colours (the user's theme decides what they look like), or
/// the terminal's default foreground or background.
///
/// ```swift
/// let warning = Style(fg: .yellow, bold: true)
/// ```
public enum TerminalColor: Int, Sendable, Hashable, CaseIterable {
    /// The terminal's default foreground or background.
    case `default` = -1
    /// The eight colours of the terminal's palette, by their ANSI numbers (0–7).
    case black = 0, red, green, yellow, blue, magenta, cyan, white
}

/// How a cell is drawn: colours from the terminal's palette plus attributes. With colours off
/// (`NO_COLOR`, a terminal without colours) backends draw only the attributes, so every style
/// that matters must also carry one (selection is `reverse`, headers `bold`).
///
/// ```swift
/// var s = Style.plain
/// s.reverse = true
/// ```
public struct Style: Sendable, Hashable {
    /// The foreground colour.
    public var fg: TerminalColor
    /// The background colour.
    public var bg: TerminalColor
    /// Bold text.
    public var bold: Bool
    /// Dim text.
    public var dim: Bool
    /// Reverse video (foreground and background swapped).
    public var reverse: Bool
    /// Underlined text.
    public var underline: Bool

    /// Creates a style; by default the terminal's default colours with no attributes.
    public init(
        fg: TerminalColor = .default, bg: TerminalColor = .default, bold: Bool = false, dim: Bool = false,
        reverse: Bool = false, underline: Bool = false
    ) {
        self.fg = fg
        self.bg = bg
        self.bold = bold
        self.dim = dim
        self.reverse = reverse
        self.underline = underline
    }

    /// The terminal's default colours, no attributes.
    public static let plain = Style()
    /// Bold text in the default colours.
    public static let bold = Style(bold: true)
    /// Dim text in the default colours.
    public static let dim = Style(dim: true)
    /// Reverse video: the selection, readable on dark and light backgrounds alike.
    public static let reverse = Style(reverse: true)

    /// The same style with attributes added.
    public func with(bold: Bool? = nil, dim: Bool? = nil, reverse: Bool? = nil, underline: Bool? = nil) -> Style {
        var s = self
        if let bold { s.bold = bold }
        if let dim { s.dim = dim }
        if let reverse { s.reverse = reverse }
        if let underline { s.underline = underline }
        return s
    }

    /// The same style in another foreground colour.
    public func fg(_ color: TerminalColor) -> Style {
        var s = self
        s.fg = color
        return s
    }
}
