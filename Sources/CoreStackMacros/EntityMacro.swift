import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Entity` (and its SwiftData spelling `@Model`): a `ManagedObject` subclass whose stored
/// properties declare its entity.
///
/// - member: `entityName`, `entityDescription` and, for a final class, `propertyKeyPaths`;
/// - member attribute: `@_ManagedProperty` on each stored `var`, which turns it into accessors;
/// - extension: the `DeclaredEntity` and `PropertyKeyPathTable` conformances.
public struct EntityMacro {}

extension EntityMacro: MemberMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let entity = EntityDeclaration(node, declaration, notAClass: { context.diagnose($0) }) else { return [] }
        for diagnostic in entity.diagnostics { context.diagnose(diagnostic) }
        guard entity.diagnostics.isEmpty else { return [] }
        return entity.members()
    }
}

extension EntityMacro: MemberAttributeMacro {
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard let variable = member.as(VariableDeclSyntax.self), EntityProperty.isStoredInstanceVariable(variable),
            let entity = EntityDeclaration(node, declaration), entity.diagnostics.isEmpty
        else { return [] }
        return ["@_ManagedProperty"]
    }
}

extension EntityMacro: ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard let entity = EntityDeclaration(node, declaration), entity.diagnostics.isEmpty else { return [] }
        // A class other classes inherit from cannot list `PartialKeyPath<Self>`: its key paths
        // are found by probing instead (see PropertyKeyPath).
        let wanted = protocols.map(\.trimmedDescription).filter { entity.isFinal || !$0.hasSuffix("PropertyKeyPathTable") }
        guard !wanted.isEmpty else { return [] }
        let conformance: DeclSyntax = "extension \(type.trimmed): \(raw: wanted.joined(separator: ", ")) {}"
        return conformance.as(ExtensionDeclSyntax.self).map { [$0] } ?? []
    }
}
