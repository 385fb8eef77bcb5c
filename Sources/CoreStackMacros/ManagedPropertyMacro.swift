import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@_ManagedProperty`, which `@Entity` puts on each stored `var`: the property's `get` and `set`
/// over ``CoreStack/ManagedObject``'s shared accessors, by the property's name.
///
/// ```swift
/// var title: String {
///     get { value(ofAttribute: "title") }
///     set { setValue(newValue, ofAttribute: "title") }
/// }
/// ```
///
/// A property with an initial value also gets an empty `init` accessor: the value is the
/// attribute's default in the entity (a new object starts with it), so there is nothing to store.
public struct ManagedPropertyMacro: AccessorMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self), let property = EntityProperty(variable, diagnose: nil)
        else { return [] }
        let key = "\"\(property.name)\""
        let get: String, set: String
        switch property.type {
        case .attribute:
            (get, set) = ("value(ofAttribute: \(key))", "setValue(newValue, ofAttribute: \(key))")
        case .toOne:
            (get, set) = ("object(ofToOne: \(key))", "setObject(newValue, ofToOne: \(key))")
        case .toMany:
            (get, set) = ("objects(ofToMany: \(key))", "setObjects(newValue, ofToMany: \(key))")
        case .orderedToMany:
            (get, set) = ("orderedObjects(ofToMany: \(key))", "setOrderedObjects(newValue, ofToMany: \(key))")
        case .requiredToOne, .unsupported:
            return []
        }
        var accessors: [AccessorDeclSyntax] = []
        if property.initialValue != nil {
            accessors.append("init(initialValue) {}")
        }
        accessors.append("get { \(raw: get) }")
        accessors.append("set { \(raw: set) }")
        return accessors
    }
}
