/// How a picture is drawn in this terminal: the graphics protocol and, for symbols, the colours.
/// ``detect(environment:graphics:)`` reads the terminal from the environment; an explicit
/// `--graphics` (or `STACKSCOPE_GRAPHICS`) wins over what it finds.
///
/// ```swift
/// let style = PictureStyle.detect(environment: ["TERM": "xterm-kitty"])
/// style.graphics  // .kitty
/// ```
public struct PictureStyle: Sendable, Equatable {
    /// The protocol.
    public var graphics: TerminalGraphics
    /// The colours of symbols (sixel and kitty pictures are in their own colours).
    public var colors: PictureColors

    /// Creates a style.
    public init(graphics: TerminalGraphics, colors: PictureColors) {
        self.graphics = graphics
        self.colors = colors
    }

    /// The environment variable that chooses the protocol when no `--graphics` option does.
    public static let environmentVariable = "STACKSCOPE_GRAPHICS"

    /// The style for the terminal the environment describes.
    ///
    /// - Protocol: `graphics` when given, else `STACKSCOPE_GRAPHICS` when it names one
    ///   (`symbols`, `sixel`, `kitty`, `none`), else: symbols inside tmux or screen (they do not
    ///   pass graphics through) and under `NO_COLOR`; kitty in kitty (`TERM=xterm-kitty`,
    ///   `KITTY_WINDOW_ID`) and Ghostty; sixel in foot, mlterm, WezTerm, iTerm2, Konsole,
    ///   contour and a `TERM` naming sixel; symbols anywhere else.
    /// - Colours: none when `NO_COLOR` is set and not empty (https://no-color.org); true colour
    ///   when `COLORTERM` is `truecolor` or `24bit` (or the terminal is one known to have it);
    ///   256 when `TERM` says `256color`; none for `TERM=dumb`; else the 16 basic colours.
    ///
    /// ```swift
    /// PictureStyle.detect(environment: ["TERM": "xterm-256color", "COLORTERM": "truecolor"])
    /// // PictureStyle(graphics: .symbols, colors: .truecolor)
    /// ```
    public static func detect(environment: [String: String], graphics: TerminalGraphics? = nil) -> PictureStyle {
        let term = environment["TERM"] ?? ""
        let program = environment["TERM_PROGRAM"] ?? ""
        let noColor = !(environment["NO_COLOR"] ?? "").isEmpty
        let colorTerm = (environment["COLORTERM"] ?? "").lowercased()
        let multiplexed = environment["TMUX"] != nil || term.hasPrefix("tmux") || term.hasPrefix("screen")
            || program == "tmux"

        let colors: PictureColors
        if noColor {
            colors = .none
        } else if colorTerm == "truecolor" || colorTerm == "24bit" || term.hasSuffix("-direct")
            || ["xterm-kitty", "xterm-ghostty", "wezterm", "foot", "contour"].contains(term)
            || ["iTerm.app", "WezTerm", "ghostty", "vscode"].contains(program)
        {
            colors = .truecolor
        } else if term.contains("256color") {
            colors = .indexed256
        } else if term.isEmpty || term == "dumb" {
            colors = .none
        } else {
            colors = .indexed16
        }

        if let graphics { return PictureStyle(graphics: graphics, colors: colors) }
        if let named = environment[environmentVariable], let chosen = TerminalGraphics(rawValue: named.lowercased()) {
            return PictureStyle(graphics: chosen, colors: colors)
        }
        if multiplexed || noColor { return PictureStyle(graphics: .symbols, colors: colors) }
        if term == "xterm-kitty" || environment["KITTY_WINDOW_ID"] != nil || term == "xterm-ghostty" || program == "ghostty" {
            return PictureStyle(graphics: .kitty, colors: colors)
        }
        let sixelTerms = ["foot", "foot-extra", "mlterm", "contour", "yaft-256color"]
        if sixelTerms.contains(term) || term.contains("sixel") || ["WezTerm", "iTerm.app", "mlterm"].contains(program)
            || environment["KONSOLE_VERSION"] != nil
        {
            return PictureStyle(graphics: .sixel, colors: colors)
        }
        return PictureStyle(graphics: .symbols, colors: colors)
    }
}
