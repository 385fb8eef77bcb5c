import CCurses
import CoreStack
import Foundation

// `stackscope value … --as image`: an image value's picture on standard output.
extension ValueCommand {
    /// The columns a picture gets when standard output is not a terminal and no `--width` is given.
    public static let defaultPictureColumns = 80

    /// The picture the image value `data` holds, as terminal output ending with a newline,
    /// fitted into `columns` × `rows` cells (nil rows: as many as the width and the image's
    /// aspect ratio need). With ``TerminalGraphics/none``, the image's format and size in a line.
    ///
    /// ```swift
    /// let style = PictureStyle(graphics: .symbols, colors: .truecolor)
    /// print(try ValueCommand.picture(jpeg, style: style, columns: 60, rows: nil), terminator: "")
    /// ```
    ///
    /// - Throws: ``StackScopeError/invalidOption(name:reason:)`` for a value that is not an
    ///   image, ``PictureDecodeError`` for one that does not decode.
    public static func picture(_ data: Data, style: PictureStyle, columns: Int, rows: Int?) throws -> String {
        let inspection = ValueInspector.inspect(data)
        guard case let .image(image) = inspection.format else {
            throw StackScopeError.invalidOption(
                name: "--as image", reason: "the value is not an image (\(inspection.summary)); use --as tree, hex or json, or --raw")
        }
        let picture = try PictureDecoder.decode(data, as: image.format)
        let size = "\(picture.format.rawValue) · \(picture.sourceWidth) × \(picture.sourceHeight) pixels · \(data.count) bytes"
        guard style.graphics != .none else { return size + " (--graphics none: no picture)\n" }
        // Enough rows for the width: a cell is about twice as high as wide.
        let rowLimit = rows ?? max(1, (columns * picture.height + picture.width - 1) / picture.width)
        guard let rendered = PictureRenderer.render(picture, columns: max(1, columns), rows: max(1, rowLimit), style: style) else {
            throw PictureDecodeError(kind: .outOfMemory, format: picture.format.rawValue, reason: "libchafa made no output")
        }
        return rendered.text.hasSuffix("\n") ? rendered.text : rendered.text + "\n"
    }

    /// The cells `--as image` fills: `--width` and `--height` when given; else the terminal's
    /// width and its height less one line (for the prompt); else ``defaultPictureColumns`` and
    /// as many rows as the picture needs.
    ///
    /// ```swift
    /// ValueCommand.pictureArea(width: nil, height: nil, terminal: Size(width: 100, height: 30))  // (100, 29)
    /// ```
    public static func pictureArea(width: Int?, height: Int?, terminal: Size?) -> (columns: Int, rows: Int?) {
        if let terminal, terminal.width > 0, terminal.height > 1 {
            return (width ?? terminal.width, height ?? terminal.height - 1)
        }
        return (width ?? defaultPictureColumns, height)
    }
}

extension ValueCommand {
    /// The size of the terminal on standard output (TIOCGWINSZ), nil when it is not one.
    public static func terminalSize() -> Size? {
        var rows: Int32 = 0
        var cols: Int32 = 0
        guard ccurses_window_size(STDOUT_FILENO, &rows, &cols) == 0 else { return nil }
        return Size(width: Int(cols), height: Int(rows))
    }
}
