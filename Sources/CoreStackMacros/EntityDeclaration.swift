import SwiftDiagnostics
import SwiftSyntax

/// An `@Entity` class as the macro reads it: its name, the entity's name and options, its parent,
/// and its model properties; with every mistake found, as diagnostics.
struct EntityDeclaration {
    let className: String
    let entityName: String
    /// `public ` / `package ` / empty: the generated members' access.
    let access: String
    let isFinal: Bool
    let isAbstract: Bool
    /// Declared with `@ParentEntity`: other entity classes inherit from it (its conformance is
    /// `DeclaredEntity` only).
    let isParentMacro: Bool
    /// The class it inherits from when that is another entity's class (nil: `ManagedObject`).
    let parentClass: String?
    let properties: [EntityProperty]
    let renamingIdentifier: ExprSyntax?
    let versionHashModifier: ExprSyntax?
    /// The mistakes found; nothing is generated while there is one.
    let diagnostics: [Diagnostic]

    /// The classes the root of a model's entities inherit from.
    static let rootClassNames: Set<String> = ["ManagedObject"]

    /// Reads `declaration`; nil when it is not a class (with ``diagnostics`` of that, through `notAClass`).
    init?(_ node: AttributeSyntax, _ declaration: some DeclGroupSyntax, notAClass: ((Diagnostic) -> Void)? = nil) {
        guard let classDecl = declaration.as(ClassDeclSyntax.self) else {
            notAClass?(Diagnostic(node: node, message: EntityDiagnostic.notAClass))
            return nil
        }
        var diagnostics: [Diagnostic] = []
        className = classDecl.name.trimmedDescription
        if let nameArgument = EntityProperty.unlabelledArgument(of: node) {
            if let literal = nameArgument.as(StringLiteralExprSyntax.self), literal.segments.count == 1,
                case let .stringSegment(segment)? = literal.segments.first
            {
                entityName = segment.content.text
            } else {
                entityName = classDecl.name.text
                diagnostics.append(Diagnostic(node: nameArgument, message: EntityDiagnostic.entityNameNotLiteral))
            }
        } else {
            entityName = classDecl.name.text
        }
        let modifiers = classDecl.modifiers.map(\.name.text)
        access = modifiers.contains("public") || modifiers.contains("open") ? "public " : modifiers.contains("package") ? "package " : ""
        isFinal = modifiers.contains("final")
        isAbstract = EntityProperty.flag("isAbstract", of: node)
        isParentMacro = EntityProperty.attributeName(node) == "ParentEntity"
        renamingIdentifier = EntityProperty.argument("originalName", of: node)
        versionHashModifier = EntityProperty.argument("hashModifier", of: node)

        if !isFinal && !isParentMacro {
            diagnostics.append(Diagnostic(
                node: classDecl.classKeyword, message: EntityDiagnostic.notFinal(className),
                fixIt: FixIt(message: EntityFixIt.addFinal, changes: [
                    .replace(oldNode: Syntax(classDecl.classKeyword),
                             newNode: Syntax(classDecl.classKeyword.with(\.tokenKind, .identifier("final class")))),
                ])))
        }
        if let superclass = classDecl.inheritanceClause?.inheritedTypes.first.flatMap({ ModelType.simpleName($0.type) }) {
            parentClass = Self.rootClassNames.contains(superclass) ? nil : superclass
        } else {
            parentClass = nil
            diagnostics.append(Diagnostic(node: classDecl.name, message: EntityDiagnostic.noSuperclass(className)))
        }

        var properties: [EntityProperty] = []
        for variable in EntityProperty.storedVariables(of: classDecl.memberBlock.members) {
            guard let property = EntityProperty(variable, diagnose: { diagnostics.append($0) }) else { continue }
            diagnostics += Self.check(property)
            properties.append(property)
        }
        self.properties = properties
        self.diagnostics = diagnostics
    }

    /// The mistakes in one property's declaration.
    private static func check(_ property: EntityProperty) -> [Diagnostic] {
        switch property.type {
        case .unsupported:
            return [Diagnostic(node: property.node, message: EntityDiagnostic.unsupportedType(property: property.name, type: property.typeText))]
        case let .requiredToOne(destination):
            // A type that is neither an attribute type nor optional: a to-one declared without `?`
            // when it names its inverse, else most likely a type no attribute stores.
            if property.relationship == nil {
                return [Diagnostic(node: property.node, message: EntityDiagnostic.unsupportedType(property: property.name, type: property.typeText))]
            }
            return [Diagnostic(node: property.node, message: EntityDiagnostic.requiredToOne(property: property.name, destination: destination))]
        case .attribute:
            var found: [Diagnostic] = []
            if let relationship = property.relationship {
                found.append(Diagnostic(node: relationship, message: EntityDiagnostic.relationshipOnAttribute(property.name)))
            }
            return found
        case .toOne, .toMany, .orderedToMany:
            let destination = property.type.destination ?? ""
            if let options = property.attributeOptions {
                return [Diagnostic(node: options, message: EntityDiagnostic.optionsOnRelationship(property.name))]
            }
            guard let relationship = property.relationship, let inverse = EntityProperty.argument("inverse", of: relationship) else {
                return [Diagnostic(node: property.node, message: EntityDiagnostic.noInverse(property: property.name, destination: destination))]
            }
            guard let (root, _) = inverseKeyPath(inverse, destination: destination) else {
                return [Diagnostic(node: inverse, message: EntityDiagnostic.inverseNotAKeyPath(property.name))]
            }
            if root != destination {
                return [Diagnostic(node: inverse, message: EntityDiagnostic.inverseOfOtherEntity(property: property.name, root: root, destination: destination))]
            }
            return []
        }
    }

    /// The root type and property of `\Root.property`; for a name (`"books"`), the destination and the name.
    static func inverseKeyPath(_ expression: ExprSyntax, destination: String) -> (root: String, property: String)? {
        if let literal = expression.as(StringLiteralExprSyntax.self), literal.segments.count == 1,
            case let .stringSegment(segment)? = literal.segments.first, !segment.content.text.isEmpty
        {
            return (destination, segment.content.text)
        }
        guard let keyPath = expression.as(KeyPathExprSyntax.self), let rootType = keyPath.root,
            let root = ModelType.simpleName(rootType), keyPath.components.count == 1,
            case let .property(component)? = keyPath.components.first?.component
        else { return nil }
        return (root, component.declName.baseName.text)
    }
}
