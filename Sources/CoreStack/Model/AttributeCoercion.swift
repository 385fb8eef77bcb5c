import Foundation

/// Checks a value against an attribute type and brings it to the canonical case for that type.
///
/// Integers widen to doubles and decimals, 0/1 become booleans, floats are rounded to `Float`
/// precision; anything else that does not fit returns nil and the caller throws a typed error.
enum AttributeCoercion {
    static func coerce(_ value: AttributeValue, to type: AttributeType) -> AttributeValue? {
        if case .null = value { return .null }
        switch type {
        case .integer16, .integer32, .integer64:
            guard let range = type.integerRange else { return nil }
            switch value {
            case let .integer(i): return range.contains(i) ? value : nil
            case let .bool(b): return .integer(b ? 1 : 0)
            default: return nil
            }
        case .boolean:
            switch value {
            case .bool: return value
            case let .integer(i) where i == 0 || i == 1: return .bool(i == 1)
            default: return nil
            }
        case .double:
            switch value {
            case .double: return value
            case let .integer(i): return .double(Double(i))
            default: return nil
            }
        case .float:
            switch value {
            case let .double(d): return .double(Double(Float(d)))
            case let .integer(i): return .double(Double(Float(i)))
            default: return nil
            }
        case .decimal:
            switch value {
            case .decimal: return value
            case let .integer(i): return .decimal(Decimal(i))
            case let .double(d): return AttributeValue.decimal(exactly: d).map(AttributeValue.decimal)
            default: return nil
            }
        case .string: return value.stringValue == nil ? nil : value
        case .date: return value.dateValue == nil ? nil : value
        case .binaryData, .transformable: return value.dataValue == nil ? nil : value
        case .uuid: return value.uuidValue == nil ? nil : value
        case .uri: return value.urlValue == nil ? nil : value
        case .undefined, .objectID: return value
        }
    }
}

extension AttributeCoercion {
    /// Whether `value` is already in the canonical case for `type`, so that
    /// `coerce(value, to: type)` would return it unchanged: `.null`, an integer within an integer
    /// type's range, or the type's own case (a float's value always goes through `coerce`, which
    /// rounds it). A check of the case alone, cheaper than coercing, for rows whose values are
    /// mostly right already (``BatchInsertRequest/rows``).
    @inline(__always)
    static func isCanonical(_ value: AttributeValue, for type: AttributeType) -> Bool {
        switch type {
        case .integer16:
            if case let .integer(i) = value { return i >= Int64(Int16.min) && i <= Int64(Int16.max) }
        case .integer32:
            if case let .integer(i) = value { return i >= Int64(Int32.min) && i <= Int64(Int32.max) }
        case .integer64:
            if case .integer = value { return true }
        case .boolean:
            if case .bool = value { return true }
        case .double:
            if case .double = value { return true }
        case .decimal:
            if case .decimal = value { return true }
        case .string:
            if case .string = value { return true }
        case .date:
            if case .date = value { return true }
        case .binaryData, .transformable:
            if case .data = value { return true }
        case .uuid:
            if case .uuid = value { return true }
        case .uri:
            if case .url = value { return true }
        case .undefined, .objectID:
            return true
        case .float:
            break
        }
        return value.isNull
    }
}
