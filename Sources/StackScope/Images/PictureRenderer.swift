import CStackScopeImages

/// Turns a ``DecodedPicture`` into terminal output with libchafa: Unicode block symbols in true
/// colour, 256 or 16 colours or none, or sixel or kitty graphics, fitted into an area of cells
/// with the image's aspect ratio kept.
///
/// ```swift
/// let style = PictureStyle(graphics: .symbols, colors: .truecolor)
/// let rendered = PictureRenderer.render(picture, columns: 60, rows: 20, style: style)
/// print(rendered?.text ?? "")  // "\u{1B}[0m\u{1B}[38;2;…m▀…"
/// ```
public enum PictureRenderer {
    /// A cell's size in pixels when the terminal does not say (a cell is about twice as high as wide).
    public static let defaultCell = Size(width: 10, height: 20)

    /// The output for `picture` fitted into `columns` × `rows` cells of `cell` pixels (their
    /// ratio shapes symbols; sixel and kitty pictures are sized in them and never enlarged), or
    /// nil when the area is empty or the style draws no picture (``TerminalGraphics/none``).
    public static func render(
        _ picture: DecodedPicture, columns: Int, rows: Int, style: PictureStyle, cell: Size = defaultCell
    ) -> RenderedPicture? {
        guard columns > 0, rows > 0, style.graphics != .none else { return nil }
        let pixelMode: ssi_pixel_mode =
            switch style.graphics {
            case .sixel: SSI_PIXELS_SIXEL
            case .kitty: SSI_PIXELS_KITTY
            case .symbols, .none: SSI_PIXELS_SYMBOLS
            }
        let colorMode: ssi_color_mode =
            switch style.colors {
            case .truecolor: SSI_COLORS_TRUECOLOR
            case .indexed256: SSI_COLORS_256
            case .indexed16: SSI_COLORS_16
            case .none: SSI_COLORS_NONE
            }
        let cellWidth = max(1, cell.width), cellHeight = max(1, cell.height)
        var out = ssi_rendered()
        let status = picture.pixels.withUnsafeBufferPointer { pixels in
            ssi_render(
                pixels.baseAddress, Int32(picture.width), Int32(picture.height), Int32(clamping: columns), Int32(clamping: rows),
                pixelMode, colorMode, Int32(clamping: cellWidth), Int32(clamping: cellHeight), &out)
        }
        defer { ssi_rendered_free(&out) }
        guard status == 0, let text = out.text else { return nil }
        let bytes = UnsafeRawBufferPointer(start: text, count: out.length)
        return RenderedPicture(
            text: String(decoding: bytes, as: UTF8.self), columns: Int(out.columns), rows: Int(out.rows),
            graphics: style.graphics == .none ? .symbols : style.graphics)
    }
}
