import Foundation

/// One token of a predicate format string, with the 1-based column where it starts.
struct PredicateToken: Equatable {
    enum Kind: Equatable {
        case identifier(String)      // a key, or a keyword (checked case-insensitively by the parser)
        case escapedIdentifier(String) // `#key`: never a keyword
        case string(String)
        case integer(Int64)
        case double(Double)
        case variable(String)        // $NAME
        case format(Character, Bool) // %@ %K %d %f %s …; Bool: long modifier seen (%ld)
        case op(String)              // == != < <= > >= = <> =< => && || !
        case punct(Character)        // ( ) { } , . [ ]
        case at(String)              // @count, @sum …
        case end
    }
    var kind: Kind
    var column: Int
    var text: String
}

/// Splits a predicate format string into tokens.
struct PredicateLexer {
    let format: String
    private let chars: [Character]
    private var i = 0

    init(_ format: String) {
        self.format = format
        self.chars = Array(format)
    }

    func error(_ message: String, at column: Int) -> CoreStackError {
        .predicateSyntax(message: message, column: column, format: format)
    }

    mutating func tokens() throws -> [PredicateToken] {
        var out: [PredicateToken] = []
        while true {
            let t = try next()
            out.append(t)
            if t.kind == .end { return out }
        }
    }

    private mutating func next() throws -> PredicateToken {
        while i < chars.count, chars[i].isWhitespace { i += 1 }
        let start = i
        let col = i + 1
        guard i < chars.count else { return PredicateToken(kind: .end, column: col, text: "") }
        let c = chars[i]
        func tok(_ k: PredicateToken.Kind) -> PredicateToken { PredicateToken(kind: k, column: col, text: String(chars[start..<i])) }

        if c == "\"" || c == "'" {
            i += 1
            var s = ""
            while true {
                guard i < chars.count else { throw error("unterminated string (missing \(c))", at: col) }
                let ch = chars[i]
                if ch == c { i += 1; break }
                if ch == "\\" {
                    i += 1
                    guard i < chars.count else { throw error("unterminated escape in string", at: i) }
                    let e = chars[i]
                    switch e {
                    case "n": s.append("\n")
                    case "t": s.append("\t")
                    case "r": s.append("\r")
                    case "0": s.append("\0")
                    case "\\", "\"", "'": s.append(e)
                    case "u":
                        let hex = String(chars[(i + 1)..<min(chars.count, i + 5)])
                        guard hex.count == 4, let v = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(v) else {
                            throw error("expected four hex digits after \\u", at: i + 1)
                        }
                        s.unicodeScalars.append(scalar)
                        i += 4
                    default: s.append(e)
                    }
                    i += 1
                    continue
                }
                s.append(ch)
                i += 1
            }
            return tok(.string(s))
        }
        if c.isNumber || (c == "." && i + 1 < chars.count && chars[i + 1].isNumber) {
            return try number(col)
        }
        if c == "-" || c == "+", i + 1 < chars.count, chars[i + 1].isNumber || chars[i + 1] == "." {
            // A signed number (the language has no arithmetic in CoreStack).
            i += 1
            var t = try number(col, negative: c == "-")
            t.text = c == "-" ? "-" + t.text : t.text
            return t
        }
        if c.isLetter || c == "_" {
            while i < chars.count, chars[i].isLetter || chars[i].isNumber || chars[i] == "_" { i += 1 }
            return tok(.identifier(String(chars[start..<i])))
        }
        if c == "#" {
            i += 1
            let s = i
            while i < chars.count, chars[i].isLetter || chars[i].isNumber || chars[i] == "_" { i += 1 }
            guard i > s else { throw error("expected a key name after #", at: col + 1) }
            return tok(.escapedIdentifier(String(chars[s..<i])))
        }
        if c == "$" {
            i += 1
            let s = i
            while i < chars.count, chars[i].isLetter || chars[i].isNumber || chars[i] == "_" { i += 1 }
            guard i > s else { throw error("expected a variable name after $", at: col + 1) }
            return tok(.variable(String(chars[s..<i])))
        }
        if c == "@" {
            i += 1
            let s = i
            while i < chars.count, chars[i].isLetter { i += 1 }
            guard i > s else { throw error("expected an aggregate name after @ (@count, @sum, @avg, @min, @max)", at: col + 1) }
            return tok(.at(String(chars[s..<i]).lowercased()))
        }
        if c == "%" {
            i += 1
            var long = false
            while i < chars.count, chars[i] == "l" || chars[i] == "h" || chars[i] == "q" { long = true; i += 1 }
            guard i < chars.count else { throw error("expected a format specifier after %", at: col + 1) }
            let spec = chars[i]
            guard "@KdiufsxXoecg".contains(spec) else {
                throw error("unknown format specifier %\(spec)", at: col)
            }
            i += 1
            return tok(.format(spec, long))
        }
        let two = i + 1 < chars.count ? String(chars[i...(i + 1)]) : ""
        if ["==", "!=", "<=", ">=", "=<", "=>", "<>", "&&", "||"].contains(two) {
            i += 2
            return tok(.op(two))
        }
        if "=<>!".contains(c) {
            i += 1
            return tok(.op(String(c)))
        }
        if "(){},.[]".contains(c) {
            i += 1
            return tok(.punct(c))
        }
        throw error("unexpected character \"\(c)\"", at: col)
    }

    /// A number; `negative` when a `-` came before it, so `-9223372036854775808` is `Int64.min`.
    private mutating func number(_ col: Int, negative: Bool = false) throws -> PredicateToken {
        let start = i
        if chars[i] == "0", i + 1 < chars.count, chars[i + 1] == "x" || chars[i + 1] == "X" {
            i += 2
            let s = i
            while i < chars.count, chars[i].isHexDigit { i += 1 }
            guard i > s else { throw error("expected hex digits after 0x", at: col + 2) }
            guard let v = Int64((negative ? "-" : "") + String(chars[s..<i]), radix: 16) else {
                throw error("the number \(PredicateExcerpt.clip(String(chars[start..<i]))) is out of range (beyond \(Int64.max))", at: col)
            }
            return PredicateToken(kind: .integer(v), column: col, text: String(chars[start..<i]))
        }
        var isDouble = false
        while i < chars.count, chars[i].isNumber { i += 1 }
        if i < chars.count, chars[i] == ".", i + 1 < chars.count, chars[i + 1].isNumber {
            isDouble = true
            i += 1
            while i < chars.count, chars[i].isNumber { i += 1 }
        }
        if i < chars.count, chars[i] == "e" || chars[i] == "E" {
            var j = i + 1
            if j < chars.count, chars[j] == "+" || chars[j] == "-" { j += 1 }
            if j < chars.count, chars[j].isNumber {
                isDouble = true
                i = j
                while i < chars.count, chars[i].isNumber { i += 1 }
            }
        }
        let text = String(chars[start..<i])
        let signed = negative ? "-" + text : text
        if !isDouble, let v = Int64(signed) { return PredicateToken(kind: .integer(v), column: col, text: text) }
        // `Double("1e999999")` is infinity: a number no attribute holds, so an error, not a silent match.
        guard let d = Double(signed), d.isFinite else {
            throw error("the number \(PredicateExcerpt.clip(text)) is out of range (beyond ±\(Double.greatestFiniteMagnitude))", at: col)
        }
        return PredicateToken(kind: .double(d), column: col, text: text)
    }
}
