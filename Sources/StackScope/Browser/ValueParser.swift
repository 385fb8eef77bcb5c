import CoreStack
import Foundation

/// Reads a value typed into the attribute editor, by the attribute's type: integers within the
/// type's limits, decimals exactly, dates as ISO 8601 (`2024-05-01`, `2024-05-01T12:30:00Z`, or with
/// an offset), booleans as true/false/yes/no/1/0, UUIDs, URLs, binary data from a file path.
/// Anything else is a ``BrowserError/invalidValue(key:type:text:reason:)`` saying why; the model's
/// own rules (minimum, maximum, pattern) are checked afterwards by `ManagedObject/validateValue(_:forKey:)`.
///
/// ```swift
/// try ValueParser.parse("42", for: pagesAttribute)          // .integer(42)
/// try ValueParser.parse("70000", for: editionAttribute)     // throws: beyond Integer 16's limits
/// ```
public enum ValueParser {
    /// Parses `text` as a value of attribute `a` (with `isFilePath`, reads binary data from the file at that path).
    /// - Throws: ``BrowserError/invalidValue(key:type:text:reason:)`` when the text is not a value of the type.
    public static func parse(_ text: String, for a: AttributeDescription, isFilePath: Bool = false) throws -> AttributeValue {
        let t = a.type == .string ? text : text.trimmingCharacters(in: .whitespaces)
        func refuse(_ reason: String) -> BrowserError {
            .invalidValue(key: a.name, type: a.type.xcodeName, text: text, reason: reason)
        }
        // Empty text is no value (nil) for every type but strings, where it is the empty string.
        if t.isEmpty && a.type != .string { return .null }
        switch a.type {
        case .string:
            return .string(t)
        case .integer16, .integer32, .integer64:
            guard let i = Int64(t) else {
                throw refuse(Double(t) != nil ? "a whole number is needed" : "not a number")
            }
            if let range = a.type.integerRange, !range.contains(i) {
                throw refuse("beyond \(a.type.xcodeName)'s limits \(range.lowerBound)…\(range.upperBound)")
            }
            return .integer(i)
        case .double, .float:
            guard let d = Double(t), d.isFinite else { throw refuse("not a finite number") }
            if a.type == .float, Float(d).isInfinite { throw refuse("beyond Float's limits") }
            return .double(d)
        case .decimal:
            let posix = Locale(identifier: "en_US_POSIX")
            guard t.range(of: #"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$"#, options: .regularExpression) != nil,
                let d = Decimal(string: t, locale: posix)
            else { throw refuse("not a decimal number (use . for the decimal point)") }
            return .decimal(d)
        case .boolean:
            switch t.lowercased() {
            case "true", "yes", "1", "y": return .bool(true)
            case "false", "no", "0", "n": return .bool(false)
            default: throw refuse("true or false")
            }
        case .date:
            guard let d = parseDate(t) else {
                let shaped = t.range(of: #"^\d{4}-\d{2}-\d{2}"#, options: .regularExpression) != nil
                throw refuse(shaped && !fieldsExist(t)
                    ? "no such day or time (a day past the month's end, an hour of 24 or more, a minute or second of 60 or more)"
                    : "not an ISO 8601 date (2024-05-01 or 2024-05-01T12:30:00Z)")
            }
            return .date(d)
        case .uuid:
            guard let u = UUID(uuidString: t) else { throw refuse("not a UUID") }
            return .uuid(u)
        case .uri:
            guard let u = URL(string: t), u.scheme != nil else { throw refuse("not a URL with a scheme (https://…)") }
            return .url(u)
        case .binaryData:
            guard isFilePath else { throw refuse("binary data is read from a file: type its path") }
            let path = (t as NSString).expandingTildeInPath
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
                throw refuse("no such file")
            }
            // A device or a pipe (/dev/zero, /dev/stdin) would be read without end or block.
            let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
            guard (try? FileManager.default.attributesOfItem(atPath: target)[.type] as? FileAttributeType) == .typeRegular else {
                throw refuse("not a regular file")
            }
            guard let data = FileManager.default.contents(atPath: path) else { throw refuse("the file cannot be read") }
            return .data(data)
        case .transformable, .undefined, .objectID:
            throw BrowserError.notEditable(key: a.name, reason: "\(a.type.xcodeName) values are not edited in the browser")
        }
    }

    /// ISO 8601 with or without time, fractional seconds and offset; a date alone is midnight UTC.
    /// A day or time that does not exist (1999-02-30, 25:00) is nil: the formatter would roll it
    /// over, and would read a date alone from the start of a longer text.
    static func parseDate(_ t: String) -> Date? {
        guard fieldsExist(t) else { return nil }
        let full = ISO8601DateFormatter()
        if let d = full.date(from: t) { return d }
        full.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = full.date(from: t) { return d }
        guard t.range(of: #"^\d{4}-\d{2}-\d{2}$"#, options: .regularExpression) != nil else { return nil }
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        return day.date(from: t)
    }

    /// Whether the year, month, day and (when written) hour, minute and second at the start of
    /// `t` name a moment that exists: a real day of the month, hour < 24, minute and second < 60.
    static func fieldsExist(_ t: String) -> Bool {
        let fields = t.split(whereSeparator: { !$0.isNumber }).prefix(6).map { Int($0) }
        guard fields.count >= 3, let year = fields[0], let month = fields[1], let day = fields[2] else { return false }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        guard DateComponents(calendar: calendar, year: year, month: month, day: day).isValidDate else { return false }
        let limits = [24, 60, 60]
        for (value, limit) in zip(fields.dropFirst(3), limits) {
            guard let value, value < limit else { return false }
        }
        return true
    }

    /// How the editor starts: the current value as text (nil as empty).
    public static func text(for value: AttributeValue, type: AttributeType) -> String {
        switch value {
        case .null: return ""
        case .data: return ""
        case let .date(d): return ISO8601DateFormatter().string(from: d)
        case let .double(d): return String(d)
        default: return ValueFormatter.detail(value)
        }
    }

    /// The type and the model's rules, for the editor's heading: `Integer 32 · 1…10000 · required`.
    public static func describe(_ a: AttributeDescription) -> String {
        var parts = [a.type.xcodeName]
        let unit = a.type == .string || a.type == .binaryData ? " (length)" : ""
        switch (a.minValue, a.maxValue) {
        case let (lo?, hi?): parts.append("\(ValueFormatter.detail(lo))…\(ValueFormatter.detail(hi))\(unit)")
        case let (lo?, nil): parts.append("≥ \(ValueFormatter.detail(lo))\(unit)")
        case let (nil, hi?): parts.append("≤ \(ValueFormatter.detail(hi))\(unit)")
        default: break
        }
        if let r = a.regularExpression { parts.append("matches \(r)") }
        parts.append(a.isOptional ? "optional" : "required")
        return parts.joined(separator: " · ")
    }
}
