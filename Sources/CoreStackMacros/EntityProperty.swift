import SwiftDiagnostics
import SwiftSyntax

/// One stored `var` of an `@Entity` class, read from its declaration: name, type, initial value
/// and the marker attributes on it (`@Unique`, `@Indexed`, `@Transient`, `@Relationship`,
/// `@AttributeOptions`).
struct EntityProperty {
    let name: String
    let type: ModelType
    /// The declared type as written (`Int32?`).
    let typeText: String
    let initialValue: ExprSyntax?
    let isUnique: Bool
    let isIndexed: Bool
    let isTransient: Bool
    /// `@Relationship(...)`, if present.
    let relationship: AttributeSyntax?
    /// `@AttributeOptions(...)`, if present.
    let attributeOptions: AttributeSyntax?
    /// Where diagnostics about the property point.
    let node: Syntax

    /// The stored `var`s of a class body that become model properties: instance properties with
    /// a single binding and no `get`/`set` (observers count as stored).
    static func storedVariables(of members: MemberBlockItemListSyntax) -> [VariableDeclSyntax] {
        members.compactMap { $0.decl.as(VariableDeclSyntax.self) }.filter(isStoredInstanceVariable)
    }

    /// Whether `variable` is a stored instance `var` or `let` the macro takes for a model property.
    static func isStoredInstanceVariable(_ variable: VariableDeclSyntax) -> Bool {
        if variable.modifiers.contains(where: { ["static", "class", "lazy"].contains($0.name.text) }) { return false }
        if variable.attributes.contains(where: { attributeName($0) == "_ManagedProperty" }) { return false }
        return variable.bindings.allSatisfy { binding in
            guard let accessors = binding.accessorBlock?.accessors else { return true }
            switch accessors {
            case .getter: return false
            case let .accessors(list):
                return list.allSatisfy { ["willSet", "didSet"].contains($0.accessorSpecifier.text) }
            }
        }
    }

    /// Reads a stored variable; nil (with a diagnostic, when `context` is given) when it cannot
    /// be a model property.
    init?(_ variable: VariableDeclSyntax, diagnose: ((Diagnostic) -> Void)?) {
        guard variable.bindings.count == 1, let binding = variable.bindings.first,
            let identifier = binding.pattern.as(IdentifierPatternSyntax.self)
        else {
            diagnose?(Diagnostic(node: variable, message: EntityDiagnostic.oneBindingPerVar))
            return nil
        }
        let name = identifier.identifier.trimmedDescription
        guard variable.bindingSpecifier.tokenKind == .keyword(.var) else {
            diagnose?(Diagnostic(
                node: variable.bindingSpecifier, message: EntityDiagnostic.letProperty(name),
                fixIt: FixIt(message: EntityFixIt.useVar, changes: [
                    .replace(oldNode: Syntax(variable.bindingSpecifier),
                             newNode: Syntax(variable.bindingSpecifier.with(\.tokenKind, .keyword(.var)))),
                ])))
            return nil
        }
        guard let typeAnnotation = binding.typeAnnotation else {
            diagnose?(Diagnostic(node: binding, message: EntityDiagnostic.missingType(name)))
            return nil
        }
        self.name = name
        self.type = ModelType(typeAnnotation.type)
        self.typeText = typeAnnotation.type.trimmedDescription
        self.initialValue = binding.initializer?.value
        self.node = Syntax(variable)
        var unique = false, indexed = false, transient = false
        var relationship: AttributeSyntax?, options: AttributeSyntax?
        for case let .attribute(attribute) in variable.attributes {
            switch Self.attributeName(attribute) {
            case "Unique": unique = true
            case "Indexed": indexed = true
            case "Transient": transient = true
            case "Relationship": relationship = attribute
            case "AttributeOptions": options = attribute
            default: break
            }
        }
        isUnique = unique
        isIndexed = indexed
        isTransient = transient
        self.relationship = relationship
        self.attributeOptions = options
    }

    /// The last name of an attribute (`CoreStackModel.Unique` → `Unique`).
    static func attributeName(_ element: AttributeListSyntax.Element) -> String? {
        guard case let .attribute(attribute) = element else { return nil }
        return attributeName(attribute)
    }

    /// The last name of an attribute (`CoreStackModel.Unique` → `Unique`).
    static func attributeName(_ attribute: AttributeSyntax) -> String? {
        ModelType.simpleName(attribute.attributeName)
    }

    /// The argument labelled `label` of a marker attribute.
    static func argument(_ label: String, of attribute: AttributeSyntax?) -> ExprSyntax? {
        guard case let .argumentList(arguments)? = attribute?.arguments else { return nil }
        return arguments.first { $0.label?.text == label }?.expression
    }

    /// The first unlabelled argument of a marker attribute.
    static func unlabelledArgument(of attribute: AttributeSyntax?) -> ExprSyntax? {
        guard case let .argumentList(arguments)? = attribute?.arguments else { return nil }
        return arguments.first { $0.label == nil }?.expression
    }

    /// Whether the Boolean argument `label` is the literal `true`.
    static func flag(_ label: String, of attribute: AttributeSyntax?) -> Bool {
        argument(label, of: attribute)?.as(BooleanLiteralExprSyntax.self)?.literal.tokenKind == .keyword(.true)
    }
}
