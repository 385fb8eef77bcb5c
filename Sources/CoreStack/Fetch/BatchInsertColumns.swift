import Foundation

/// The columns of a ``BatchInsertRequest`` made with rows, matched to the entity's attributes
/// once per request: each column's slot and type, and the required attributes a row can leave
/// without a value. Turning a row into the entity's values then costs its values only.
///
/// ```swift
/// let columns = try BatchInsertColumns(["title", "number"], of: chapterEntity)
/// let values = try columns.values(of: ["One", 1], row: 0)   // one value per attribute slot
/// ```
struct BatchInsertColumns {
    let entity: EntityDescription
    /// The column names, for error messages.
    let names: [String]
    /// Each column's attribute slot.
    let slots: [Int]
    /// Each column's attribute type.
    let types: [AttributeType]
    /// The required (non-optional, non-transient) slots a row may leave null, in slot order:
    /// the named ones, and the others whose default is null (every row then lacks them).
    let requiredSlots: [Int]
    /// Whether the columns are every attribute of the entity in slot order: a row whose values
    /// need no coercion is then the entity's values as it is.
    let coversEverySlotInOrder: Bool

    /// Matches `names` to the attributes of `entity`.
    ///
    /// - Throws: ``CoreStackError/unknownKey(entity:key:)`` for a name that is not an attribute,
    ///   ``CoreStackError/invalidFetchRequest(_:)`` for a name given twice.
    init(_ names: [String], of entity: EntityDescription) throws {
        var slots: [Int] = []
        slots.reserveCapacity(names.count)
        var named = [Bool](repeating: false, count: entity.allAttributes.count)
        for name in names {
            guard let slot = entity.attributeSlots[name] else { throw CoreStackError.unknownKey(entity: entity.name, key: name) }
            guard !named[slot] else {
                throw CoreStackError.invalidFetchRequest("a batch insert of \(entity.name) names the column \(name) twice")
            }
            named[slot] = true
            slots.append(slot)
        }
        self.entity = entity
        self.names = names
        self.slots = slots
        types = slots.map { entity.attributeTypes[$0] }
        requiredSlots = entity.allAttributes.indices.filter { slot in
            let attribute = entity.allAttributes[slot]
            return !attribute.isOptional && !attribute.isTransient && (named[slot] || entity.defaultValues[slot].isNull)
        }
        coversEverySlotInOrder = slots.count == entity.allAttributes.count && slots.enumerated().allSatisfy { $0.offset == $0.element }
    }

    /// The entity's values (one per attribute slot) for `row`, the `n`th row of the request:
    /// each value coerced to its column's type and stored in its column's slot, defaults in the
    /// slots not named.
    ///
    /// - Throws: ``CoreStackError/invalidFetchRequest(_:)`` for a row of another width than the
    ///   columns, ``CoreStackError/typeMismatch(entity:key:expected:got:)`` for a value of the
    ///   wrong type, ``CoreStackError/validation(entity:property:objectID:reason:)`` for a
    ///   required attribute left without a value.
    func values(of row: [AttributeValue], row n: Int) throws -> [AttributeValue] {
        guard row.count == slots.count else {
            throw CoreStackError.invalidFetchRequest(
                "row \(n) of a batch insert of \(entity.name) has \(row.count) values for \(slots.count) columns")
        }
        if coversEverySlotInOrder && isCanonical(row) {
            try checkRequired(row, row: n)
            return row
        }
        var values = entity.defaultValues
        for column in row.indices {
            let value = row[column], type = types[column]
            values[slots[column]] =
                AttributeCoercion.isCanonical(value, for: type) ? value : try Self.coerce(value, to: type, key: names[column], of: entity)
        }
        try checkRequired(values, row: n)
        return values
    }

    /// Whether every value of `row` is already in its column type's canonical case.
    private func isCanonical(_ row: [AttributeValue]) -> Bool {
        for column in row.indices where !AttributeCoercion.isCanonical(row[column], for: types[column]) { return false }
        return true
    }

    /// Throws for the first required attribute (in slot order) that `values` leaves null.
    private func checkRequired(_ values: [AttributeValue], row n: Int) throws {
        try Self.checkRequired(values, slots: requiredSlots, of: entity, row: n)
    }

    /// `value` coerced to the attribute `key`'s `type`, for either form of a batch insert.
    ///
    /// - Throws: ``CoreStackError/typeMismatch(entity:key:expected:got:)`` when it cannot be.
    static func coerce(_ value: AttributeValue, to type: AttributeType, key: String, of entity: EntityDescription) throws -> AttributeValue {
        guard let coerced = AttributeCoercion.coerce(value, to: type) else {
            throw CoreStackError.typeMismatch(entity: entity.name, key: key, expected: type.xcodeName, got: "\(value.kindDescription) (\(value))")
        }
        return coerced
    }

    /// Throws for the first of the required `slots` (in their order) that `values`, the `n`th
    /// object of a batch insert of either form, leaves null.
    ///
    /// - Throws: ``CoreStackError/validation(entity:property:objectID:reason:)``.
    static func checkRequired(_ values: [AttributeValue], slots: [Int], of entity: EntityDescription, row n: Int) throws {
        for slot in slots where values[slot].isNull {
            throw CoreStackError.validation(
                entity: entity.name, property: entity.allAttributes[slot].name, objectID: "batch insert object \(n)",
                reason: "a required value is missing")
        }
    }
}
