import Foundation

/// The string operations predicates use, shared by the in-memory evaluator and the SQL functions
/// the SQLite store registers, so both give the same answers.
///
/// ```swift
/// StringMatching.fold("Émile", options: [.caseInsensitive, .diacriticInsensitive]) // "emile"
/// StringMatching.like("Dune*", "dune messiah", options: .caseInsensitive)          // true
/// ```
public enum StringMatching {
    /// Case folding (`[c]`) and diacritic removal (`[d]`), then Unicode canonical composition.
    public static func fold(_ s: String, options: Comparison.Options) -> String {
        var opts: String.CompareOptions = []
        if options.contains(.caseInsensitive) { opts.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { opts.insert(.diacriticInsensitive) }
        if opts.isEmpty { return s.precomposedStringWithCanonicalMapping }
        return s.folding(options: opts, locale: nil).precomposedStringWithCanonicalMapping
    }

    /// `value BEGINSWITH prefix`.
    public static func beginsWith(_ value: String, _ prefix: String, options: Comparison.Options) -> Bool {
        fold(value, options: options).hasPrefix(fold(prefix, options: options))
    }

    /// `value ENDSWITH suffix`.
    public static func endsWith(_ value: String, _ suffix: String, options: Comparison.Options) -> Bool {
        fold(value, options: options).hasSuffix(fold(suffix, options: options))
    }

    /// `value CONTAINS part` (an empty part is contained in every string).
    public static func contains(_ value: String, _ part: String, options: Comparison.Options) -> Bool {
        let p = fold(part, options: options)
        return p.isEmpty || fold(value, options: options).contains(p)
    }

    /// `value ==[cd] other`.
    public static func equals(_ value: String, _ other: String, options: Comparison.Options) -> Bool {
        fold(value, options: options) == fold(other, options: options)
    }

    /// `value LIKE pattern`: `*` matches any run of characters, `?` exactly one; `\` escapes.
    public static func like(_ pattern: String, _ value: String, options: Comparison.Options) -> Bool {
        let p = Array(fold(pattern, options: options))
        let v = Array(fold(value, options: options))
        // Iterative wildcard match with backtracking to the last star.
        var pi = 0, vi = 0
        var starP = -1, starV = 0
        while vi < v.count {
            if pi < p.count, p[pi] == "\\", pi + 1 < p.count, p[pi + 1] == v[vi] {
                pi += 2; vi += 1
            } else if pi < p.count, p[pi] != "\\", p[pi] == "?" || (p[pi] != "*" && p[pi] == v[vi]) {
                pi += 1; vi += 1
            } else if pi < p.count, p[pi] == "*" {
                starP = pi; starV = vi; pi += 1
            } else if starP >= 0 {
                pi = starP + 1; starV += 1; vi = starV
            } else {
                return false
            }
        }
        while pi < p.count, p[pi] == "*" { pi += 1 }
        return pi == p.count
    }

    /// `value MATCHES regex`: the regular expression must match the whole string (ICU syntax).
    /// An invalid expression matches nothing.
    public static func matches(_ regex: String, _ value: String, options: Comparison.Options) -> Bool {
        var ro: NSRegularExpression.Options = []
        if options.contains(.caseInsensitive) { ro.insert(.caseInsensitive) }
        let subject = options.contains(.diacriticInsensitive) ? fold(value, options: .diacriticInsensitive) : value
        guard let re = RegexCache.shared.regex(regex, options: ro) else { return false }
        let ns = subject as NSString
        guard let m = re.firstMatch(in: subject, options: [.anchored], range: NSRange(location: 0, length: ns.length))
        else { return false }
        return m.range.location == 0 && m.range.length == ns.length
    }
}

/// Compiled regular expressions, kept so a predicate evaluated over many rows compiles once.
///
/// `@unchecked Sendable`: `cache` is read and written only under `lock` (`NSRegularExpression`
/// is immutable once compiled and safe to share).
final class RegexCache: @unchecked Sendable {
    static let shared = RegexCache()
    private let lock = NSLock()
    private var cache: [String: NSRegularExpression] = [:]

    func regex(_ pattern: String, options: NSRegularExpression.Options) -> NSRegularExpression? {
        let key = "\(options.rawValue):\(pattern)"
        lock.lock()
        defer { lock.unlock() }
        if let re = cache[key] { return re }
        guard let re = try? NSRegularExpression(pattern: pattern, options: options) else { return nil }
        if cache.count > 256 { cache.removeAll() }
        cache[key] = re
        return re
    }
}
