import CoreStack
import Foundation
import Testing

@testable import StackScope

/// Pictures in the terminal: libchafa's output in each mode, fitted to the area with the
/// aspect ratio kept; the terminal's kind found from the environment.
@Suite("picture renderer")
struct PictureRendererTests {
    static func picture(width: Int = 96, height: Int = 64) throws -> DecodedPicture {
        try PictureDecoder.decode(try ImageFixture.encode(.png, ImageFixture.quadrants(width: width, height: height), width: width, height: height))
    }

    static let esc = "\u{1B}"

    @Test("symbols in true colour: 38;2 escapes and block symbols, one line a row, fitted with cells twice as high as wide")
    func trueColour() throws {
        let p = try Self.picture(width: 200, height: 100)
        let style = PictureStyle(graphics: .symbols, colors: .truecolor)
        let r = try #require(PictureRenderer.render(p, columns: 80, rows: 40, style: style))
        #expect((r.columns, r.rows) == (80, 20))  // 2:1 pixels in 1:2 cells
        #expect(r.lines.count == 20)
        #expect(r.text.contains("\(Self.esc)[38;2;") || r.text.contains(";38;2;"))
        #expect(r.text.contains("38;2;230;40;30") || r.text.contains("48;2;230;40;30"), "the top-left red")
        #expect(!r.text.contains("38;5;"))
        // Taller than wide: the height binds.
        let tall = try #require(PictureRenderer.render(try Self.picture(width: 50, height: 200), columns: 80, rows: 20, style: style))
        #expect(tall.rows == 20)
        #expect(tall.columns == 10)
    }

    @Test("256 colours: 38;5 (or 48;5) escapes and no true colour; 16 colours: basic SGR colours only")
    func indexedColours() throws {
        let p = try Self.picture()
        let r256 = try #require(PictureRenderer.render(p, columns: 40, rows: 20, style: PictureStyle(graphics: .symbols, colors: .indexed256)))
        #expect(r256.text.contains("38;5;") || r256.text.contains("48;5;"))
        #expect(!r256.text.contains("38;2;") && !r256.text.contains("48;2;"))
        let r16 = try #require(PictureRenderer.render(p, columns: 40, rows: 20, style: PictureStyle(graphics: .symbols, colors: .indexed16)))
        #expect(!r16.text.contains("38;5;") && !r16.text.contains("38;2;") && !r16.text.contains("48;5;"))
        #expect(r16.text.range(of: #"\x1B\[[0-9;]*(3[0-7]|9[0-7]|4[0-7]|10[0-7])m"#, options: .regularExpression) != nil)
    }

    @Test("NO_COLOR: no escape at all, only symbols and spaces (a grey ramp by their shapes)")
    func noColour() throws {
        // Black on the left to white on the right.
        var grey = [UInt8](repeating: 255, count: 120 * 40 * 4)
        for i in 0..<(120 * 40) { grey.replaceSubrange(i * 4..<i * 4 + 3, with: repeatElement(UInt8(i % 120 * 255 / 119), count: 3)) }
        let p = try PictureDecoder.decode(try ImageFixture.encode(.png, grey, width: 120, height: 40))
        let r = try #require(PictureRenderer.render(p, columns: 60, rows: 10, style: PictureStyle(graphics: .symbols, colors: .none)))
        #expect(!r.text.contains(Self.esc))
        #expect(r.lines.count == r.rows)
        // Dark on the left, light on the right: full blocks on the right, fewer (dithered) on the left.
        let row = Array(r.lines[r.rows / 2])
        let full = { (chars: ArraySlice<Character>) in chars.filter { $0 == "█" }.count }
        #expect(full(row[..<(row.count / 2)]) < full(row[(row.count / 2)...]), "\(String(row))")
        #expect(Set(row).count > 2, "a ramp, not two tones: \(String(row))")
    }

    @Test("sixel starts with ESC P … q and ends with ESC \\; kitty with ESC _G; neither larger than the image in cells")
    func graphicsProtocols() throws {
        let p = try Self.picture()
        let cell = Size(width: 8, height: 16)
        let sixel = try #require(PictureRenderer.render(p, columns: 100, rows: 50, style: PictureStyle(graphics: .sixel, colors: .truecolor), cell: cell))
        #expect(sixel.text.hasPrefix("\(Self.esc)P"))
        let introducer = try #require(sixel.text.firstIndex(of: "q"))
        #expect(sixel.text[sixel.text.index(sixel.text.startIndex, offsetBy: 2)..<introducer].allSatisfy { $0.isNumber || $0 == ";" })
        #expect(sixel.text.hasSuffix("\(Self.esc)\\"))
        #expect((sixel.columns, sixel.rows) == (12, 4))  // 96 × 64 pixels in 8 × 16 cells
        #expect(sixel.lines == [sixel.text])
        let kitty = try #require(PictureRenderer.render(p, columns: 100, rows: 50, style: PictureStyle(graphics: .kitty, colors: .none), cell: cell))
        #expect(kitty.text.hasPrefix("\(Self.esc)_G"))
        #expect(kitty.text.contains("s=96,v=64") || kitty.text.contains("c=12,r=4"), "\(kitty.text.prefix(60))")
        #expect(PictureRenderer.render(p, columns: 40, rows: 20, style: PictureStyle(graphics: .none, colors: .truecolor)) == nil)
        #expect(PictureRenderer.render(p, columns: 0, rows: 20, style: PictureStyle(graphics: .symbols, colors: .truecolor)) == nil)
    }

    @Test("the terminal's kind from the environment; --graphics and STACKSCOPE_GRAPHICS win")
    func detection() {
        func style(_ env: [String: String], _ graphics: TerminalGraphics? = nil) -> PictureStyle {
            PictureStyle.detect(environment: env, graphics: graphics)
        }
        #expect(style(["TERM": "xterm-256color", "COLORTERM": "truecolor"]) == PictureStyle(graphics: .symbols, colors: .truecolor))
        #expect(style(["TERM": "xterm-256color", "COLORTERM": "24bit"]).colors == .truecolor)
        #expect(style(["TERM": "xterm-256color"]) == PictureStyle(graphics: .symbols, colors: .indexed256))
        #expect(style(["TERM": "xterm"]) == PictureStyle(graphics: .symbols, colors: .indexed16))
        #expect(style(["TERM": "dumb"]).colors == .none)
        #expect(style(["TERM": "xterm-256color", "COLORTERM": "truecolor", "NO_COLOR": "1"]) == PictureStyle(graphics: .symbols, colors: .none))
        #expect(style(["TERM": "xterm-256color", "NO_COLOR": ""]).colors == .indexed256)  // empty NO_COLOR is unset
        #expect(style(["TERM": "xterm-kitty"]) == PictureStyle(graphics: .kitty, colors: .truecolor))
        #expect(style(["TERM": "xterm-256color", "KITTY_WINDOW_ID": "1"]).graphics == .kitty)
        #expect(style(["TERM": "foot"]) == PictureStyle(graphics: .sixel, colors: .truecolor))
        #expect(style(["TERM": "xterm-256color", "TERM_PROGRAM": "WezTerm"]).graphics == .sixel)
        #expect(style(["TERM": "mlterm"]).graphics == .sixel)
        // tmux and screen pass no graphics through.
        #expect(style(["TERM": "tmux-256color", "TERM_PROGRAM": "tmux"]) == PictureStyle(graphics: .symbols, colors: .indexed256))
        #expect(style(["TERM": "xterm-kitty", "TMUX": "/tmp/tmux-0/default,1,0"]).graphics == .symbols)
        #expect(style(["TERM": "screen"]).graphics == .symbols)
        // Explicit choices.
        #expect(style(["TERM": "xterm-256color", "STACKSCOPE_GRAPHICS": "sixel"]).graphics == .sixel)
        #expect(style(["TERM": "xterm-256color", "STACKSCOPE_GRAPHICS": "KITTY"]).graphics == .kitty)
        #expect(style(["TERM": "xterm-256color", "STACKSCOPE_GRAPHICS": "bogus"]).graphics == .symbols)
        #expect(style(["TERM": "xterm-kitty", "STACKSCOPE_GRAPHICS": "sixel"], TerminalGraphics.none).graphics == .none)
        #expect(style(["TERM": "xterm-kitty", "NO_COLOR": "1"], .kitty).graphics == .kitty)
    }

    @Test("the backend's picture layer: written once, again when cells were drawn over it, the screen repainted when it goes")
    func layer() throws {
        let p = try Self.picture()
        let area = Rect(x: 2, y: 4, width: 40, height: 10)
        var layer = TerminalPictureLayer(style: PictureStyle(graphics: .symbols, colors: .truecolor), cell: Size(width: 10, height: 20))
        let shown = [FramePicture(area: area, picture: p)]
        #expect(layer.prepare(shown) == (false, ""))
        let first = layer.paint(shown, cellsRepainted: false)
        let rendered = try #require(PictureRenderer.render(p, columns: 40, rows: 10, style: layer.style, cell: layer.cell))
        #expect(rendered.columns == 30)
        // Saved cursor, each row at its place (centred: 5 columns in), restored cursor.
        #expect(first.hasPrefix("\(Self.esc)7\(Self.esc)[5;8H"))
        #expect(first.contains("\(Self.esc)[6;8H"))
        #expect(first.hasSuffix("\(Self.esc)[0m\(Self.esc)8"))
        #expect(first.contains("38;2;"))
        #expect(layer.shown == shown)
        // The same frame again: nothing; cells drawn under it: written again.
        #expect(layer.prepare(shown) == (false, ""))
        #expect(layer.paint(shown, cellsRepainted: false) == "")
        #expect(layer.paint(shown, cellsRepainted: true) == first)
        // Moved: clear the screen, then write it at its new place.
        let moved = [FramePicture(area: Rect(x: 2, y: 6, width: 40, height: 10), picture: p)]
        #expect(layer.prepare(moved) == (true, ""))
        #expect(layer.paint(moved, cellsRepainted: true).hasPrefix("\(Self.esc)7\(Self.esc)[7;8H"))
        // Gone: clear once, nothing to write.
        #expect(layer.prepare([]) == (true, ""))
        #expect(layer.paint([], cellsRepainted: true) == "")
        #expect(layer.prepare([]) == (false, ""))
        // kitty: images stay under text, so they are deleted before a repaint and when leaving.
        var kitty = TerminalPictureLayer(style: PictureStyle(graphics: .kitty, colors: .truecolor))
        #expect(kitty.paint(shown, cellsRepainted: true).hasPrefix("\(Self.esc)7\(Self.esc)_Ga=d,d=A\(Self.esc)\\\(Self.esc)[5;"))
        #expect(kitty.prepare([]) == (true, "\(Self.esc)_Ga=d,d=A\(Self.esc)\\"))
        _ = kitty.paint(shown, cellsRepainted: true)
        #expect(kitty.remove() == "\(Self.esc)_Ga=d,d=A\(Self.esc)\\")
        #expect(kitty.remove() == "")
    }
}
