import Foundation

extension ManagedObject {
    /// Checks a value against the attribute's rules in the model (its type, whether it is
    /// optional, its minimum, maximum and regular expression) without setting it, as Core Data's
    /// `validateValue(_:forKey:)` does. Throws ``CoreStackError/typeMismatch(entity:key:expected:got:)``
    /// for a value of the wrong type and ``CoreStackError/validation(entity:property:objectID:reason:)``
    /// with the rule's message otherwise.
    ///
    /// ```swift
    /// try book.validateValue(.integer(-3), forKey: "pages")   // throws: -3 is below the minimum 1
    /// try book.setValue(120, forKey: "pages")
    /// ```
    public func validateValue(_ value: AttributeValue, forKey key: String) throws {
        guard let slot = entity.attributeSlots[key] else { throw CoreStackError.unknownKey(entity: entity.name, key: key) }
        let a = entity.allAttributes[slot]
        if !value.isNull, AttributeCoercion.coerce(value, to: a.type) == nil {
            throw CoreStackError.typeMismatch(entity: entity.name, key: key, expected: a.type.xcodeName, got: "\(value)")
        }
        if let reason = Self.ruleViolation(of: a, value) {
            throw CoreStackError.validation(entity: entity.name, property: a.name, objectID: objectID.description, reason: reason)
        }
    }

    /// What is wrong with `v` for attribute `a` (required, minimum, maximum, regular expression),
    /// or nil when it passes. Strings and data are measured by their length.
    static func ruleViolation(of a: AttributeDescription, _ v: AttributeValue) -> String? {
        if v.isNull { return a.isOptional ? nil : "a value is required" }
        let measure: AttributeValue
        switch v {
        case let .string(s): measure = .integer(Int64(s.count))
        case let .data(d): measure = .integer(Int64(d.count))
        default: measure = v
        }
        if let min = a.minValue, let r = measure.compare(to: min), r == .orderedAscending {
            return "\(v) is below the minimum \(min)"
        }
        if let max = a.maxValue, let r = measure.compare(to: max), r == .orderedDescending {
            return "\(v) is above the maximum \(max)"
        }
        if let regex = a.regularExpression, case let .string(s) = v, !StringMatching.matches(regex, s, options: []) {
            return "\"\(s)\" does not match \(regex)"
        }
        return nil
    }
}
