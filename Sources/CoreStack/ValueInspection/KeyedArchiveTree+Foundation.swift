import Foundation

/// Foundation's value classes read from the keys their `encode(with:)` writes: `NSValue`
/// geometry and ranges, attributed strings, colours (AppKit and UIKit), locales, time zones and
/// index sets. Each gives a one-line description and its decoded parts as fields.
///
/// ```swift
/// // inside KeyedArchiveTree.object(_:at:depth:)
/// if let known = try foundationValue(fields, at: "$objects[4]", chain: ["NSValue", "NSObject"], depth: 1) { … }
/// ```
extension KeyedArchiveTree {
    /// The description and fields of a known Foundation value, or nil for any other class.
    mutating func foundationValue(
        _ fields: [String: Any], at location: String, chain: [String], depth: Int
    ) throws(ValueInspectionError) -> (description: String, fields: [InspectedField])? {
        func has(_ name: String) -> Bool { chain.contains(name) }
        if has("NSAttributedString") { return try attributedString(fields, at: location, depth: depth) }
        if has("NSColor") || has("UIColor") { return color(fields) }
        if has("NSLocale"), let id = try optionalString(fields, "NS.identifier", at: location) {
            return ("locale \(id)", [InspectedField(name: "identifier", value: .string(id))])
        }
        if has("NSTimeZone"), let name = try optionalString(fields, "NS.name", at: location) {
            return ("time zone \(name)", [InspectedField(name: "name", value: .string(name))])
        }
        if has("NSIndexSet") { return try indexSet(fields, at: location) }
        if has("NSValue") { return value(fields) }
        return nil
    }

    /// `NSValue`: a point, size or rect as its string (`NS.pointval` `{1, 2}`), or a range.
    private func value(_ fields: [String: Any]) -> (description: String, fields: [InspectedField])? {
        if case let .integer(l)? = scalar(fields, "NS.rangeval.location"), case let .integer(n)? = scalar(fields, "NS.rangeval.length") {
            return ("range {\(l), \(n)}", [InspectedField(name: "location", value: .integer(l)), InspectedField(name: "length", value: .integer(n))])
        }
        for key in fields.keys.sorted() where key.hasPrefix("NS.") && key.hasSuffix("val") {
            let name = String(key.dropFirst(3).dropLast(3)).replacingOccurrences(of: "cg", with: "")
            guard let text = try? optionalString(fields, key, at: "") else { continue }
            return ("\(name) \(text)", [InspectedField(name: name, value: .string(text))])
        }
        return nil
    }

    /// `NSAttributedString`: the text and its runs (`NSAttributeInfo`: pairs of varints, the
    /// run's length and the index of its attributes in `NSAttributes`).
    private mutating func attributedString(
        _ fields: [String: Any], at location: String, depth: Int
    ) throws(ValueInspectionError) -> (description: String, fields: [InspectedField]) {
        let text = try optionalString(fields, "NSString", at: location) ?? ""
        let attributes = try decoded(fields, "NSAttributes", at: location, depth: depth) ?? .null
        let table: [InspectedValue]
        if case let .array(_, items) = attributes { table = items } else { table = [attributes] }
        var runs: [InspectedValue] = []
        let length = text.utf16.count
        if let info = optionalData(fields, "NSAttributeInfo") {
            let numbers = try Self.varints(info, at: "\(location).NSAttributeInfo")
            guard numbers.count % 2 == 0 else { throw Self.error("\(location).NSAttributeInfo", "an odd count of numbers (\(numbers.count))") }
            var start = 0
            for i in stride(from: 0, to: numbers.count, by: 2) {
                guard runs.count < limits.maximumNodes else { break }
                let (runLength, index) = (numbers[i], numbers[i + 1])
                guard index < table.count else {
                    throw Self.error("\(location).NSAttributeInfo", "run \(i / 2) uses attributes \(index) of \(table.count)")
                }
                runs.append(run(start, runLength, table[index]))
                start += runLength
                guard start <= length else {
                    throw Self.error("\(location).NSAttributeInfo", "runs cover \(start) of \(length) UTF-16 units")
                }
            }
        } else if let only = table.first, only != .null {
            runs.append(run(0, length, only))
        }
        let n = runs.count
        return (
            "\(ValueInspection.quoted(text, 40)) · \(n) run\(n == 1 ? "" : "s")",
            [InspectedField(name: "text", value: .string(text)), InspectedField(name: "runs", value: .array(className: nil, items: runs))]
        )
    }

    private func run(_ start: Int, _ length: Int, _ attributes: InspectedValue) -> InspectedValue {
        var fields = [InspectedField(name: "range", value: .string("{\(start), \(length)}"))]
        if case let .dictionary(_, entries) = attributes {
            for e in entries {
                let name: String
                if case let .string(s) = e.key { name = s } else { name = ValueInspection.scalar(e.key) }
                fields.append(InspectedField(name: name, value: e.value))
            }
        } else {
            fields.append(InspectedField(name: "attributes", value: attributes))
        }
        return .object(InspectedObject(index: -1, className: "run", classChain: ["run"], description: "{\(start), \(length)}", fields: fields))
    }

    /// `NSColor` (`NSColorSpace` with `NSRGB`, `NSWhite`, `NSCMYK` as text, or a catalog name)
    /// or `UIColor` (`UIRed`… `UIAlpha`, `UIWhite`).
    private func color(_ fields: [String: Any]) -> (description: String, fields: [InspectedField]) {
        func real(_ key: String) -> Double? {
            switch scalar(fields, key) {
            case let .real(d)?: d
            case let .integer(i)?: Double(i)
            default: nil
            }
        }
        func components(_ key: String) -> [Double]? {
            guard let d = optionalData(fields, key) else { return nil }
            let text = String(decoding: d.prefix { $0 != 0 }, as: UTF8.self)
            let parts = text.split(separator: " ").compactMap { Double($0) }
            return parts.isEmpty ? nil : parts
        }
        func made(_ model: String, _ names: [String], _ values: [Double]) -> (String, [InspectedField]) {
            let shown = values.map { v in v == v.rounded() ? String(Int(v)) : String(format: "%.3g", v) }
            return (
                "\(model) \(shown.joined(separator: " "))",
                zip(names, values).map { InspectedField(name: $0.0, value: .real($0.1)) }
            )
        }
        if let r = real("UIRed"), let g = real("UIGreen"), let b = real("UIBlue") {
            return made("rgba", ["red", "green", "blue", "alpha"], [r, g, b, real("UIAlpha") ?? 1])
        }
        if let w = real("UIWhite") { return made("white", ["white", "alpha"], [w, real("UIAlpha") ?? 1]) }
        if let rgb = components("NSRGB") {
            return made("rgba", ["red", "green", "blue", "alpha"], Array((rgb + [1]).prefix(4)))
        }
        if let white = components("NSWhite") { return made("white", ["white", "alpha"], Array((white + [1]).prefix(2))) }
        if let cmyk = components("NSCMYK") {
            return made("cmyka", ["cyan", "magenta", "yellow", "black", "alpha"], Array((cmyk + [1]).prefix(5)))
        }
        let catalog = (try? optionalString(fields, "NSCatalogName", at: "")) ?? nil
        let name = (try? optionalString(fields, "NSColorName", at: "")) ?? nil
        if let name {
            return ("named \(catalog.map { $0 + "/" } ?? "")\(name)", [InspectedField(name: "name", value: .string(name))])
        }
        return ("colour", [])
    }

    /// `NSIndexSet`: one range (`NSLocation`, `NSLength`) or many (`NSRangeData`, varint pairs).
    private func indexSet(_ fields: [String: Any], at location: String) throws(ValueInspectionError) -> (description: String, fields: [InspectedField]) {
        func int(_ key: String) -> Int? {
            if case let .integer(i)? = scalar(fields, key) { return i }
            return nil
        }
        var ranges: [(Int, Int)] = []
        if let data = optionalData(fields, "NSRangeData") {
            let numbers = try Self.varints(data, at: "\(location).NSRangeData")
            for i in stride(from: 0, to: numbers.count - 1, by: 2) where ranges.count < limits.maximumNodes {
                ranges.append((numbers[i], numbers[i + 1]))
            }
        } else if let l = int("NSLocation"), let n = int("NSLength"), n > 0 {
            ranges.append((l, n))
        }
        let text = ranges.map { $0.1 == 1 ? "\($0.0)" : "\($0.0)–\($0.0 &+ $0.1 &- 1)" }
        let count = ranges.reduce(0) { total, r in
            let (sum, overflow) = total.addingReportingOverflow(r.1)
            return overflow ? Int.max : sum
        }
        let shown = text.prefix(8).joined(separator: ", ") + (text.count > 8 ? ", …" : "")
        return (
            "\(count) index\(count == 1 ? "" : "es")" + (ranges.isEmpty ? "" : ": \(shown)"),
            [InspectedField(name: "ranges", value: .array(className: nil, items: text.map { .string($0) }))]
        )
    }

    /// The unsigned base-128 numbers (7 bits a byte, high bit: more follow) Foundation packs into
    /// `NSAttributeInfo` and `NSRangeData`; a number of more than 8 bytes is refused at `location`.
    static func varints(_ data: Data, at location: String) throws(ValueInspectionError) -> [Int] {
        var numbers: [Int] = []
        var current = 0, shift = 0
        for byte in data {
            guard shift < 56 else { throw error(location, "a number longer than 8 bytes") }
            current |= Int(byte & 0x7F) << shift
            if byte & 0x80 == 0 {
                numbers.append(current)
                current = 0
                shift = 0
            } else {
                shift += 7
            }
        }
        return numbers
    }
}

