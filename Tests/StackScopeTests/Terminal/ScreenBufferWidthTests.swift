import Testing

@testable import StackScope

/// Display widths and the cell grid with the text that breaks terminal UIs: CJK, combining marks,
/// emoji and ZWJ sequences, wide glyphs at the edge or half overwritten, control characters.
@Suite("screen buffer and display width")
struct ScreenBufferWidthTests {
    private func buffer(_ width: Int, _ height: Int = 1) -> ScreenBuffer {
        ScreenBuffer(size: Size(width: width, height: height))
    }

    /// The row as the cells' texts with `|` for a continuation cell (shows where wide glyphs sit).
    private func cellsOf(_ b: ScreenBuffer, row y: Int = 0) -> String {
        (0..<b.width).map { x in b[x, y].isContinuation ? "|" : b[x, y].text }.joined()
    }

    @Test("a pane title too long for its border ends in … and leaves the corner and a rule after it")
    func longBoxTitle() {
        var b = buffer(24, 3)
        b.box(Rect(x: 0, y: 0, width: 24, height: 3), title: "chapters · 12 objects · in scratch-1")
        #expect(b.lines()[0] == "┌ chapters · 12 objec… ┐")
        var fits = buffer(24, 3)
        fits.box(Rect(x: 0, y: 0, width: 24, height: 3), title: "Book · 30")
        #expect(fits.lines()[0] == "┌ Book · 30 ───────────┐")
    }

    @Test("ASCII is one cell a character")
    func ascii() {
        #expect(DisplayWidth.of("hello") == 5)
        #expect(DisplayWidth.of("") == 0)
        var b = buffer(8)
        #expect(b.put("hi there", x: 0, y: 0) == 8)
        #expect(b.lines() == ["hi there"])
    }

    @Test("CJK takes two cells, the second a continuation")
    func cjk() {
        #expect(DisplayWidth.of("漢字") == 4)
        #expect(DisplayWidth.of("漢字abc") == 7)
        #expect(DisplayWidth.of("ｶﾀｶﾅ") == 4)  // half-width katakana: one cell each
        #expect(DisplayWidth.of("한국어") == 6)
        var b = buffer(10)
        #expect(b.put("漢字 ok", x: 0, y: 0) == 7)
        #expect(b.lines() == ["漢字 ok   "])
        #expect(cellsOf(b) == "漢|字| ok   ")
        #expect(b[0, 0].width == 2 && b[1, 0].isContinuation)
        // A prefix: the glyph that does not fit ends it (DisplayWidth's doc example says "漢a").
        #expect(DisplayWidth.truncate("漢字abc", to: 3) == "漢")
        #expect(DisplayWidth.truncate("漢字", to: 3) == "漢")
        #expect(DisplayWidth.pad("漢字", to: 5) == "漢字 ")
        #expect(DisplayWidth.ellipsize("漢字漢字", to: 5) == "漢字…")
    }

    @Test("combining marks take no cell and stay with their base, at most four")
    func combining() {
        let decomposed = "e\u{301}"  // é as e + COMBINING ACUTE
        #expect(DisplayWidth.of(decomposed) == 1)
        #expect(DisplayWidth.of("Cafe\u{301} noir") == 9)
        #expect(DisplayWidth.of("Z\u{351}\u{36B}\u{343}\u{36A}") == 1)
        var b = buffer(6)
        b.put("e\u{301}x", x: 0, y: 0)
        #expect(b[0, 0].text == decomposed)
        #expect(b[1, 0].text == "x")
        // A cluster with six marks keeps its base and four of them (ncurses' limit per cell).
        let zalgo = Character("a" + String(repeating: "\u{301}", count: 6))
        let glyph = DisplayWidth.glyph(zalgo)
        #expect(glyph?.width == 1)
        #expect(glyph?.text.unicodeScalars.count == 5)
        // A lone combining mark has nothing to sit on: nothing is drawn.
        #expect(DisplayWidth.glyph(Character("\u{301}")) == nil)
    }

    @Test("emoji are two cells; ZWJ sequences and flags are cut to their first scalar")
    func emoji() {
        #expect(DisplayWidth.of("😀") == 2)
        #expect(DisplayWidth.of("ok👍") == 4)
        let family = "👩\u{200D}💻"  // woman technologist: three scalars, one cluster
        #expect(family.count == 1)
        let g = DisplayWidth.glyph(Character(family))
        #expect(g?.text == "👩")
        #expect(g?.width == 2)
        #expect(DisplayWidth.of(family + "x") == 3)
        let flag = "🇫🇷"
        #expect(flag.count == 1)
        let flagGlyph = DisplayWidth.glyph(Character(flag))
        #expect(flagGlyph?.text == "\u{1F1EB}")
        #expect(flagGlyph?.width == DisplayWidth.scalarWidth("\u{1F1EB}"))
        // A variation selector is zero-width and kept: the heart is as wide as wcwidth says.
        let heart = "\u{2764}\u{FE0F}"
        #expect(DisplayWidth.glyph(Character(heart))?.text == heart)
        #expect(DisplayWidth.of(heart) == DisplayWidth.scalarWidth("\u{2764}"))
        var b = buffer(6)
        b.put(family + "ab", x: 0, y: 0)
        #expect(cellsOf(b) == "👩|ab  ")
    }

    @Test("a wide glyph that does not fit at the right edge becomes a blank")
    func wideAtRightEdge() {
        var b = buffer(5)
        #expect(b.put("abcd漢", x: 0, y: 0) == 5)
        #expect(b.lines() == ["abcd "])
        #expect(!b[4, 0].isContinuation && b[4, 0].width == 1)

        var c = buffer(5)
        c.set(4, 0, Cell(text: "漢", width: 2))
        #expect(c[4, 0].text == " " && c[4, 0].width == 1)

        // Also at a maxWidth limit inside the row.
        var d = buffer(8)
        #expect(d.put("ab漢", x: 0, y: 0, maxWidth: 3) == 3)
        #expect(cellsOf(d) == "ab      ")
    }

    @Test("overwriting either half of a wide glyph blanks the other half")
    func overwriteHalf() {
        var b = buffer(6)
        b.put("漢字", x: 0, y: 0)
        #expect(cellsOf(b) == "漢|字|  ")
        b.put("x", x: 1, y: 0)  // the right half of 漢
        #expect(cellsOf(b) == " x字|  ")
        b.put("y", x: 2, y: 0)  // the left half of 字
        #expect(cellsOf(b) == " xy   ")
        #expect(b.lines() == [" xy   "])

        var c = buffer(6)
        c.put("漢字", x: 0, y: 0)
        c.put("字", x: 1, y: 0)  // straddles both: both old glyphs lose their other half
        #expect(cellsOf(c) == " 字|   ")
        #expect(DisplayWidth.of(c.lines()[0]) == 6)
    }

    @Test("control characters are drawn as a dim ?")
    func controlCharacters() {
        var b = buffer(8)
        b.put("a\u{7}b\tc\u{7F}d", x: 0, y: 0, style: .bold)
        #expect(b.lines() == ["a?b?c?d "])
        #expect(b[1, 0].style.dim && b[1, 0].style.bold)
        #expect(!b[0, 0].style.dim)
        #expect(DisplayWidth.of("\u{1B}[31m") == 5)  // ESC shows as ?, the rest as text
        #expect(DisplayWidth.glyph("\u{85}")?.isPlaceholder == true)  // C1 control
        var c = buffer(8)
        c.put("one\ntwo", x: 0, y: 0)
        #expect(c.lines() == ["one     "])  // a newline ends the text
    }

    @Test("every row's text is exactly the buffer's width in display cells")
    func rowsKeepTheirWidth() {
        let samples = ["漢字 ok", "e\u{301}👩\u{200D}💻🇫🇷x", "ｶﾀｶﾅ한국어", "a\u{1}b\u{7F}", "abc漢字漢字漢字"]
        for width in [1, 2, 5, 9, 13] {
            var b = buffer(width, samples.count)
            for (y, s) in samples.enumerated() {
                b.put(s, x: y % 2, y: y)
            }
            for line in b.lines() {
                #expect(DisplayWidth.of(line) == width, "\(line.debugDescription) at width \(width)")
            }
        }
    }
}
