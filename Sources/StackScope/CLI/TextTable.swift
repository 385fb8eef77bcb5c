/// Plain-text tables whose columns line up in a terminal, wide characters (日本語, emoji) counted
/// as two cells.
///
/// ```swift
/// TextTable.render(header: ["Entity", "Objects"], rows: [["Book", "12"]], rightAligned: [1])
/// // ["Entity  Objects", "------  -------", "Book         12"]
/// ```
public enum TextTable {
    /// The table as lines: the header, a line of dashes, then the rows, columns separated by two spaces;
    /// the columns in `rightAligned` (by index) are aligned right.
    public static func render(header: [String], rows: [[String]], rightAligned: Set<Int> = []) -> [String] {
        let all = [header] + rows
        let columns = all.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columns)
        for row in all { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], displayWidth(cell)) } }
        func line(_ row: [String]) -> String {
            var parts: [String] = []
            for i in 0..<columns {
                let cell = i < row.count ? row[i] : ""
                let pad = String(repeating: " ", count: widths[i] - displayWidth(cell))
                parts.append(rightAligned.contains(i) ? pad + cell : (i == columns - 1 ? cell : cell + pad))
            }
            return parts.joined(separator: "  ")
        }
        return [line(header), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")] + rows.map(line)
    }

    /// Terminal cells a string takes: two for East Asian wide characters and emoji, one otherwise.
    public static func displayWidth(_ s: String) -> Int {
        s.reduce(0) { $0 + width(of: $1) }
    }

    private static func width(of c: Character) -> Int {
        guard let first = c.unicodeScalars.first else { return 0 }
        if c.unicodeScalars.count > 1, c.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        if first.properties.isEmojiPresentation { return 2 }
        switch first.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            return 2
        default:
            return first.properties.generalCategory == .control ? 0 : 1
        }
    }
}
