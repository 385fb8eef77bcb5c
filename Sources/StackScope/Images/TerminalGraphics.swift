/// How pictures are drawn in a terminal: `--graphics` on the command line, or the
/// `STACKSCOPE_GRAPHICS` environment variable, or found from the environment
/// (``PictureStyle/detect(environment:graphics:)``).
///
/// ```swift
/// TerminalGraphics(rawValue: "sixel")  // .sixel
/// ```
public enum TerminalGraphics: String, Sendable, CaseIterable {
    /// Unicode block symbols in colour (or their shapes alone under `NO_COLOR`).
    case symbols
    /// The DEC sixel graphics protocol (foot, mlterm, WezTerm, xterm -ti vt340, …).
    case sixel
    /// The kitty graphics protocol (kitty, Ghostty).
    case kitty
    /// No picture: only the image's format, size and bytes.
    case none
}

/// The colours pictures drawn with symbols use.
///
/// ```swift
/// PictureColors.truecolor  // COLORTERM=truecolor or 24bit
/// ```
public enum PictureColors: String, Sendable, CaseIterable {
    /// 24-bit colour (`ESC [38;2;R;G;Bm`).
    case truecolor
    /// The 256-colour palette (`ESC [38;5;Nm`).
    case indexed256 = "256"
    /// The 16 basic colours.
    case indexed16 = "16"
    /// No colour escapes at all: the symbols' shapes in the default colours (`NO_COLOR`).
    case none
}
