import SwiftSyntax
import SwiftSyntaxBuilder

/// The source `@Entity` generates: the entity's name and description, and the key path table.
extension EntityDeclaration {
    /// `static` for a final class; `class` for one other entity classes inherit from.
    private var typeMemberKeyword: String { isFinal ? "static" : "class" }
    private var overrideKeyword: String { parentClass == nil ? "" : "override " }

    /// `entityName`, `entityDescription` and, for a final class, `propertyKeyPaths`.
    func members() -> [DeclSyntax] {
        var members: [DeclSyntax] = [
            """
            /// The name of the class's entity in the model.
            \(raw: access)\(raw: overrideKeyword)\(raw: typeMemberKeyword) var entityName: String {
                \(literal: entityName)
            }
            """,
            """
            /// The class's entity, from its stored properties.
            \(raw: access)\(raw: overrideKeyword)\(raw: typeMemberKeyword) var entityDescription: CoreStack.EntityDescription {
                \(raw: indented(inverseChecks + entityDescriptionExpression))
            }
            """,
        ]
        if isFinal && !isParentMacro {
            let entries = properties.map { "\\\(className).\($0.name): \(quoted($0.name))" }
            let table = entries.isEmpty ? "[:]" : "[\n" + entries.map { "    \($0)," }.joined(separator: "\n") + "\n]"
            members.append(
                """
                /// The model property each key path of the class names.
                \(raw: access)static var propertyKeyPaths: [PartialKeyPath<\(raw: className)>: String] {
                    \(raw: indented(table))
                }
                """)
        }
        return members
    }

    /// A key path for each inverse given by name, so that a misspelt one is a compile error
    /// (`return ` follows when there is any).
    private var inverseChecks: String {
        let checks = properties.compactMap { property -> String? in
            guard let destination = property.type.destination,
                let inverse = EntityProperty.argument("inverse", of: property.relationship),
                inverse.is(StringLiteralExprSyntax.self),
                let (_, name) = Self.inverseKeyPath(inverse, destination: destination)
            else { return nil }
            return "_ = \\\(destination).\(name)\n"
        }
        return checks.isEmpty ? "" : checks.joined() + "return "
    }

    /// `CoreStack.EntityDescription(name: …)` over the properties.
    private var entityDescriptionExpression: String {
        var arguments = ["name: entityName"]
        if let parentClass { arguments.append("superentityName: \(parentClass).entityName") }
        if isAbstract { arguments.append("isAbstract: true") }
        let attributes = properties.compactMap(attributeExpression)
        let relationships = properties.compactMap(relationshipExpression)
        arguments.append("attributes: " + list(attributes))
        arguments.append("relationships: " + list(relationships))
        let unique = properties.filter(\.isUnique).map { "[\(quoted($0.name))]" }
        if !unique.isEmpty { arguments.append("uniquenessConstraints: [\(unique.joined(separator: ", "))]") }
        arguments.append("managedObjectClass: \(className).self")
        if let renamingIdentifier { arguments.append("renamingIdentifier: \(renamingIdentifier.trimmedDescription)") }
        if let versionHashModifier { arguments.append("versionHashModifier: \(versionHashModifier.trimmedDescription)") }
        return "CoreStack.EntityDescription(\n" + arguments.map { "    \($0)" }.joined(separator: ",\n") + "\n)"
    }

    /// `CoreStack.AttributeDescription("pages", .integer32, …)`, or nil for a relationship.
    private func attributeExpression(_ property: EntityProperty) -> String? {
        guard case let .attribute(attributeType, swiftType, isOptional) = property.type else { return nil }
        var arguments = [quoted(property.name), ".\(attributeType)"]
        if !isOptional { arguments.append("isOptional: false") }
        if property.isTransient { arguments.append("isTransient: true") }
        if property.isIndexed { arguments.append("isIndexed: true") }
        if let initial = property.initialValue, !initial.is(NilLiteralExprSyntax.self) {
            arguments.append("defaultValue: (\(initial.trimmedDescription) as \(swiftType)).attributeValue")
        }
        let options = property.attributeOptions
        // A length for strings and data, a value of the attribute's type for the rest.
        let boundType = ["string", "binaryData"].contains(attributeType) ? "Int64" : swiftType
        if let min = EntityProperty.argument("minValue", of: options) {
            arguments.append("minValue: (\(min.trimmedDescription) as \(boundType)).attributeValue")
        }
        if let max = EntityProperty.argument("maxValue", of: options) {
            arguments.append("maxValue: (\(max.trimmedDescription) as \(boundType)).attributeValue")
        }
        if EntityProperty.flag("externalStorage", of: options) { arguments.append("allowsExternalBinaryDataStorage: true") }
        if let name = EntityProperty.argument("originalName", of: options) { arguments.append("renamingIdentifier: \(name.trimmedDescription)") }
        if let modifier = EntityProperty.argument("hashModifier", of: options) { arguments.append("versionHashModifier: \(modifier.trimmedDescription)") }
        return "CoreStack.AttributeDescription(\(arguments.joined(separator: ", ")))"
    }

    /// `CoreStack.RelationshipDescription("authors", destination: …)`, or nil for an attribute.
    private func relationshipExpression(_ property: EntityProperty) -> String? {
        guard property.type.isRelationship, let destination = property.type.destination,
            let inverse = EntityProperty.argument("inverse", of: property.relationship),
            let (_, inverseName) = Self.inverseKeyPath(inverse, destination: destination)
        else { return nil }
        var arguments = [quoted(property.name), "destination: \(destination).entityName", "inverse: \(quoted(inverseName))"]
        switch property.type {
        case .toMany: arguments.append("toMany: true")
        case .orderedToMany: arguments += ["toMany: true", "isOrdered: true"]
        default: break
        }
        let options = property.relationship
        if property.isTransient { arguments.append("isTransient: true") }
        if let rule = EntityProperty.argument("deleteRule", of: options) { arguments.append("deleteRule: \(rule.trimmedDescription)") }
        if let min = EntityProperty.argument("minCount", of: options) { arguments.append("minCount: \(min.trimmedDescription)") }
        if let max = EntityProperty.argument("maxCount", of: options) { arguments.append("maxCount: \(max.trimmedDescription)") }
        if let name = EntityProperty.argument("originalName", of: options) { arguments.append("renamingIdentifier: \(name.trimmedDescription)") }
        if let modifier = EntityProperty.argument("hashModifier", of: options) { arguments.append("versionHashModifier: \(modifier.trimmedDescription)") }
        return "CoreStack.RelationshipDescription(\(arguments.joined(separator: ", ")))"
    }

    /// `text` with its lines after the first indented one level, for a member's body.
    private func indented(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n    ")
    }

    private func list(_ items: [String]) -> String {
        items.isEmpty ? "[]" : "[\n" + items.map { "        \($0)," }.joined(separator: "\n") + "\n    ]"
    }

    /// A Swift string literal of a property or entity name (identifiers need no escaping).
    private func quoted(_ name: String) -> String { "\"\(name)\"" }
}
