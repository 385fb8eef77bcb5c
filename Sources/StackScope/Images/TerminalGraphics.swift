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
