import Foundation

/// Turns the XML attributes of one element of an Xcode model file into CoreStack descriptions.
///
/// Xcode writes flags as `"YES"`/`"NO"` and leaves out what is at its default: a missing
/// `optional` means the property is *not* optional. Values (`defaultValueString`,
/// `minValueString`, …) are converted to the attribute's type; dates come from the
/// `…DateTimeInterval` attributes (seconds since 2001-01-01 UTC).
///
/// ```swift
/// let attribute = try XcodeModelValues.attribute(
///     ["name": "pages", "attributeType": "Integer 32", "defaultValueString": "0"], userInfo: [:], entity: "Book")
/// attribute.defaultValue // .integer(0)
/// attribute.isOptional   // false
/// ```
enum XcodeModelValues {
    /// The children of an `<entity>` element, already converted.
    struct EntityParts {
        var attributes: [AttributeDescription]
        var relationships: [RelationshipDescription]
        var uniquenessConstraints: [[String]]
        var fetchIndexes: [FetchIndexDescription]
        var userInfo: [String: String]
    }

    // MARK: - Elements

    /// An `<entity>` element.
    static func entity(_ xml: [String: String], _ parts: EntityParts) throws -> EntityDescription {
        EntityDescription(
            name: xml["name"] ?? "",
            superentityName: nonEmpty(xml["parentEntity"]),
            isAbstract: flag(xml["isAbstract"]),
            attributes: parts.attributes,
            relationships: parts.relationships,
            uniquenessConstraints: parts.uniquenessConstraints,
            fetchIndexes: parts.fetchIndexes,
            representedClassName: nonEmpty(xml["representedClassName"]),
            renamingIdentifier: nonEmpty(xml["elementID"]),
            versionHashModifier: nonEmpty(xml["versionHashModifier"]),
            userInfo: parts.userInfo)
    }

    /// An `<attribute>` element of the entity named `entity`.
    static func attribute(_ xml: [String: String], userInfo: [String: String], entity: String) throws
        -> AttributeDescription
    {
        let name = xml["name"] ?? ""
        func invalid(_ reason: String) -> CoreStackError {
            .invalidModel(entity: entity, property: name, reason: reason)
        }
        let type: AttributeType
        if let typeName = xml["attributeType"] {
            guard let t = AttributeType(xcodeName: typeName) else {
                throw invalid("unknown attribute type \"\(typeName)\"")
            }
            type = t
        } else {
            type = .undefined
        }

        var defaultValue = AttributeValue.null
        if type == .date, let interval = xml["defaultDateTimeInterval"] {
            defaultValue = .date(try date(interval, "default date", invalid))
        } else if let text = xml["defaultValueString"] {
            guard let value = value(text, as: type) else {
                throw invalid("its default value \"\(text)\" is not \(type.xcodeName)")
            }
            defaultValue = value
        }

        func bound(_ label: String, _ stringKey: String, _ intervalKey: String) throws -> AttributeValue? {
            if type == .date, let interval = xml[intervalKey] {
                return .date(try date(interval, "\(label) date", invalid))
            }
            guard let text = xml[stringKey] else { return nil }
            guard let value = boundValue(text, for: type) else {
                throw invalid("its \(label) value \"\(text)\" does not fit \(type.xcodeName)")
            }
            return value
        }

        var attribute = AttributeDescription(
            name, type,
            isOptional: flag(xml["optional"]),
            isTransient: flag(xml["transient"]),
            isIndexed: flag(xml["indexed"]),
            defaultValue: defaultValue,
            minValue: try bound("minimum", "minValueString", "minDateTimeInterval"),
            maxValue: try bound("maximum", "maxValueString", "maxDateTimeInterval"),
            regularExpression: nonEmpty(xml["regularExpressionString"]),
            valueTransformerName: nonEmpty(xml["valueTransformerName"]),
            allowsExternalBinaryDataStorage: flag(xml["allowsExternalBinaryDataStorage"]),
            renamingIdentifier: nonEmpty(xml["elementID"]),
            versionHashModifier: nonEmpty(xml["versionHashModifier"]),
            userInfo: userInfo)
        attribute.preservesValueInHistoryOnDeletion = flag(xml["preserveAfterDeletion"])
        return attribute
    }

    /// A `<relationship>` element of the entity named `entity`.
    static func relationship(_ xml: [String: String], userInfo: [String: String], entity: String) throws
        -> RelationshipDescription
    {
        let name = xml["name"] ?? ""
        func invalid(_ reason: String) -> CoreStackError {
            .invalidModel(entity: entity, property: name, reason: reason)
        }
        var rule = RelationshipDescription.DeleteRule.nullify
        if let ruleName = xml["deletionRule"] {
            guard let r = RelationshipDescription.DeleteRule(rawValue: ruleName) else {
                throw invalid("unknown deletion rule \"\(ruleName)\"")
            }
            rule = r
        }
        func count(_ key: String) throws -> Int {
            guard let text = xml[key] else { return 0 }
            guard let n = Int(text.trimmingCharacters(in: .whitespaces)), n >= 0 else {
                throw invalid("its \(key) \"\(text)\" is not a count")
            }
            return n
        }
        return RelationshipDescription(
            name,
            destination: xml["destinationEntity"] ?? "",
            inverse: nonEmpty(xml["inverseName"]),
            toMany: flag(xml["toMany"]),
            isOrdered: flag(xml["ordered"]),
            isOptional: flag(xml["optional"]),
            isTransient: flag(xml["transient"]),
            deleteRule: rule,
            minCount: try count("minCount"),
            maxCount: try count("maxCount"),  // to-one: the initializer sets 1 itself
            renamingIdentifier: nonEmpty(xml["elementID"]),
            versionHashModifier: nonEmpty(xml["versionHashModifier"]),
            userInfo: userInfo)
    }

    /// A top-level `<fetchRequest>` element. A `fetchLimit` or `fetchBatchSize` of 0 means none.
    static func fetchRequestTemplate(_ xml: [String: String]) throws -> FetchRequestTemplate {
        let name = xml["name"] ?? ""
        let entity = xml["entity"] ?? ""
        func positive(_ key: String) throws -> Int? {
            guard let text = xml[key] else { return nil }
            guard let n = Int(text.trimmingCharacters(in: .whitespaces)), n >= 0 else {
                throw CoreStackError.invalidModel(
                    entity: entity, property: nil,
                    reason: "fetch request template \"\(name)\" has \(key) \"\(text)\", not a count")
            }
            return n == 0 ? nil : n
        }
        return FetchRequestTemplate(
            name: name, entityName: entity,
            predicateString: nonEmpty(xml["predicateString"]),
            fetchLimit: try positive("fetchLimit"),
            fetchBatchSize: try positive("fetchBatchSize"),
            includesSubentities: xml["includeSubentities"].map(flag) ?? true,
            returnsObjectsAsFaults: xml["returnObjectsAsFaults"].map(flag) ?? true)
    }

    // MARK: - Values

    /// An Xcode flag: `"YES"` (also `"true"`, `"1"`) is true; anything else, or nothing, is false.
    static func flag(_ text: String?) -> Bool {
        guard let text else { return false }
        return boolean(text) ?? false
    }

    /// `"YES"`/`"NO"` (and `true`/`false`, `1`/`0`), any case.
    static func boolean(_ text: String) -> Bool? {
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "yes", "true", "1": true
        case "no", "false", "0": false
        default: nil
        }
    }

    /// `defaultValueString` converted to `type`, or nil when it does not parse.
    static func value(_ text: String, as type: AttributeType) -> AttributeValue? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch type {
        case .integer16, .integer32, .integer64:
            guard let i = integer(trimmed), let range = type.integerRange, range.contains(i) else { return nil }
            return .integer(i)
        case .double:
            return number(trimmed).map { .double($0) }
        case .float:
            return number(trimmed).map { .double(Double(Float($0))) }
        case .decimal:
            return decimal(trimmed).map { .decimal($0) }
        case .boolean:
            return boolean(trimmed).map { .bool($0) }
        case .string:
            return .string(text)
        case .date:
            return formattedDate(trimmed).map { .date($0) }
        case .uuid:
            return UUID(uuidString: trimmed).map { .uuid($0) }
        case .uri:
            return URL(string: trimmed).map { .url($0) }
        case .undefined, .objectID:
            return .string(text)
        case .binaryData, .transformable:
            return nil
        }
    }

    /// `minValueString`/`maxValueString`: a value for numbers and dates, a length for the others.
    static func boundValue(_ text: String, for type: AttributeType) -> AttributeValue? {
        switch type {
        case .integer16, .integer32, .integer64, .double, .float, .decimal, .date:
            return value(text, as: type)
        default:
            return integer(text.trimmingCharacters(in: .whitespaces)).map { .integer($0) }
        }
    }

    private static func integer(_ text: String) -> Int64? {
        if let i = Int64(text) { return i }
        // "3.0" is an integer too.
        if let d = number(text), d.rounded(.towardZero) == d, abs(d) < 9.2e18 { return Int64(d) }
        return nil
    }

    private static func number(_ text: String) -> Double? {
        guard isDecimalLiteral(text) else { return nil }
        return Double(text)
    }

    private static func decimal(_ text: String) -> Decimal? {
        guard isDecimalLiteral(text) else { return nil }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }

    /// `[+-]digits[.digits][e[+-]digits]`: what Xcode writes for numbers (no inf, nan or hex).
    private static func isDecimalLiteral(_ text: String) -> Bool {
        var chars = Substring(text)
        if chars.first == "+" || chars.first == "-" { chars = chars.dropFirst() }
        let mantissaEnd = chars.firstIndex { $0 == "e" || $0 == "E" } ?? chars.endIndex
        let mantissa = chars[..<mantissaEnd]
        let parts = mantissa.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, parts.contains(where: { !$0.isEmpty }),
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) })
        else { return false }
        guard mantissaEnd < chars.endIndex else { return true }
        var exponent = chars[chars.index(after: mantissaEnd)...]
        if exponent.first == "+" || exponent.first == "-" { exponent = exponent.dropFirst() }
        return !exponent.isEmpty && exponent.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// A `…DateTimeInterval` attribute: seconds since 2001-01-01 UTC.
    private static func date(
        _ text: String, _ label: String, _ invalid: (String) -> CoreStackError
    ) throws -> Date {
        guard let seconds = number(text.trimmingCharacters(in: .whitespaces)) else {
            throw invalid("its \(label) interval \"\(text)\" is not a number of seconds")
        }
        return Date(timeIntervalSinceReferenceDate: seconds)
    }

    /// A date written as text (Xcode's display form, e.g. `2013-04-23 12:00:00 +0000`), read as UTC
    /// when it has no zone. Used only when the `…DateTimeInterval` attribute is missing.
    private static func formattedDate(_ text: String) -> Date? {
        for format in ["yyyy-MM-dd HH:mm:ss Z", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm", "yyyy-MM-dd"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }
}
