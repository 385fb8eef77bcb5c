import ArgumentParser
import StackScope

// `--graphics symbols|sixel|kitty|none` (browse and `value --as image`).
extension TerminalGraphics: ExpressibleByArgument {}

/// The help of `--graphics`, shared by the commands that take it.
let graphicsHelp = ArgumentHelp(
    "How pictures are drawn: symbols (Unicode blocks in colour), sixel, kitty or none (default: \(PictureStyle.environmentVariable), else found from TERM, TERM_PROGRAM, COLORTERM and NO_COLOR).",
    valueName: "mode")
