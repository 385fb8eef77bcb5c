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
