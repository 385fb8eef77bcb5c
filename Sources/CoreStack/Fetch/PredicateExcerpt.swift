import Foundation

/// Short quotations of predicate text for error messages, so an error on a 200 KB predicate
/// stays one readable line.
///
/// ```swift
/// let long = String(repeating: "pages == 1 OR ", count: 1_000) + "pages =="
/// PredicateExcerpt.window(of: long, column: long.count + 1)
/// // "…s == 1 OR pages == 1 OR pages == 1 OR pages == 1 OR pages =="
/// PredicateExcerpt.clip(String(repeating: "x", count: 100)) // "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…"
/// ```
public enum PredicateExcerpt {
    /// The most characters of the input a window quotes (not counting the ellipses).
    public static let windowWidth = 60

    /// The most characters ``clip(_:limit:)`` keeps by default.
    public static let clipLength = 30

    /// At most ``windowWidth`` characters of `format` around the 1-based `column`, with `…` where
    /// the input goes on. Short input comes back whole.
    public static func window(of format: String, column: Int, width: Int = windowWidth) -> String {
        let width = max(1, width)
        guard format.count > width else { return format }
        let chars = Array(format)
        let at = min(max(column - 1, 0), chars.count)
        var start = max(0, at - width / 2)
        let end = min(chars.count, start + width)
        start = max(0, end - width)
        return (start > 0 ? "…" : "") + String(chars[start..<end]) + (end < chars.count ? "…" : "")
    }

    /// `text` cut to `limit` characters with a trailing `…` when it is longer.
    public static func clip(_ text: String, limit: Int = clipLength) -> String {
        guard text.count > limit else { return text }
        return String(text.prefix(max(0, limit))) + "…"
    }
}
