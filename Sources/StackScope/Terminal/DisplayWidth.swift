import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The C library's `wcwidth(3)` (Glibc's module map hides it behind `_XOPEN_SOURCE`).
@_silgen_name("wcwidth")
private func systemWcwidth(_ c: Int32) -> Int32

/// Display widths measured exactly as ncursesw will draw them: `wcwidth(3)` of a grapheme
/// cluster's first scalar, with at most four trailing zero-width scalars kept (combining marks,
/// variation selectors). Clusters with further spacing scalars (ZWJ emoji sequences, flags) are cut
/// to their first scalar, and unprintable ones (control characters) become a `?`, so the
/// browser's columns and the terminal's never disagree.
///
/// ```swift
/// DisplayWidth.of("héllo")       // 5
/// DisplayWidth.of("漢字")         // 4
/// DisplayWidth.truncate("漢字abc", to: 3)   // "漢" (字 would need columns 3 and 4)
/// ```
public enum DisplayWidth {
    /// One cluster as the terminal will show it.
    public struct Glyph: Sendable, Hashable {
        /// The text drawn in the cell (the cluster, possibly cut).
        public var text: String
        /// Cells taken: 1 or 2.
        public var width: Int
        /// True when the cluster could not be shown as given (a control character drawn as `?`).
        public var isPlaceholder: Bool
    }

    /// wcwidth needs a UTF-8 character type locale; the executable sets the user's locale with
    /// `setlocale(LC_ALL, "")` first, and this falls back to C.UTF-8 when that is not UTF-8.
    private static let localeReady: Bool = {
        if let codeset = nl_langinfo(nl_item(CODESET)), String(cString: codeset).uppercased().replacingOccurrences(of: "-", with: "") == "UTF8" {
            return true
        }
        return setlocale(LC_CTYPE, "C.UTF-8") != nil
    }()

    /// The wcwidth of one scalar (-1 for unprintable).
    @inline(__always)
    public static func scalarWidth(_ s: Unicode.Scalar) -> Int {
        let v = s.value
        if v >= 0x20 && v < 0x7F { return 1 }
        if v < 0x20 || v == 0x7F { return -1 }
        _ = localeReady
        return Int(systemWcwidth(Int32(bitPattern: v)))
    }

    /// How one grapheme cluster is drawn; nil for a lone zero-width cluster (nothing to draw).
    public static func glyph(_ c: Character) -> Glyph? {
        let scalars = c.unicodeScalars
        guard let first = scalars.first else { return nil }
        let w = scalarWidth(first)
        if w < 0 { return Glyph(text: "?", width: 1, isPlaceholder: true) }
        if w == 0 { return nil }
        if scalars.count == 1 { return Glyph(text: String(c), width: w, isPlaceholder: false) }
        var kept = String.UnicodeScalarView()
        kept.append(first)
        var zeroWidth = 0
        for s in scalars.dropFirst() {
            let sw = scalarWidth(s)
            if sw != 0 {
                // A spacing scalar inside the cluster: curses would draw it in its own cell.
                return Glyph(text: String(first), width: w, isPlaceholder: false)
            }
            if zeroWidth < 4 {
                kept.append(s)
                zeroWidth += 1
            }
        }
        return Glyph(text: String(kept), width: w, isPlaceholder: false)
    }

    /// The width of a string in cells.
    public static func of(_ text: String) -> Int {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        var n = 0
        for c in text { n += glyph(c)?.width ?? 0 }
        return n
    }

    /// The longest prefix of `text` that fits in `width` cells (a wide glyph that would be cut is
    /// left out).
    public static func truncate(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        if of(text) <= width { return text }
        var out = ""
        var used = 0
        for c in text {
            let w = glyph(c)?.width ?? 0
            if used + w > width { break }
            out.append(c)
            used += w
        }
        return out
    }

    /// `text` cut to fit `width` cells, ending in `…` when cut.
    public static func ellipsize(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        if of(text) <= width { return text }
        return truncate(text, to: width - 1) + "…"
    }

    /// `text` cut or padded with spaces to exactly `width` cells.
    public static func pad(_ text: String, to width: Int, alignRight: Bool = false) -> String {
        let t = ellipsize(text, to: width)
        let gap = max(0, width - of(t))
        return alignRight ? String(repeating: " ", count: gap) + t : t + String(repeating: " ", count: gap)
    }

    /// Splits `text` into lines of at most `width` cells, at spaces where possible; newlines end lines.
    public static func wrap(_ text: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            var lineWidth = 0
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: false) {
                var w = String(word)
                var ww = of(w)
                let sep = line.isEmpty ? 0 : 1
                if lineWidth + sep + ww <= width {
                    if sep == 1 { line += " " }
                    line += w
                    lineWidth += sep + ww
                    continue
                }
                if !line.isEmpty {
                    lines.append(line)
                    line = ""
                    lineWidth = 0
                }
                while ww > width {
                    let head = truncate(w, to: width)
                    if head.isEmpty { break }
                    lines.append(head)
                    w = String(w.dropFirst(head.count))
                    ww = of(w)
                }
                line = w
                lineWidth = ww
            }
            lines.append(line)
        }
        return lines
    }
}
