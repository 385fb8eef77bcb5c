import SwiftSyntax
import SwiftSyntaxMacros

/// `@Unique`, `@Indexed`, `@Transient`, `@Relationship(…)` and `@AttributeOptions(…)`: marks
/// that `@Entity` reads from the property they are on; alone they generate nothing.
public struct MarkerMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}
