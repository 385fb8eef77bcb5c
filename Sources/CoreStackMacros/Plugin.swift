import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plug-in that serves CoreStackModel's macros.
@main
struct CoreStackMacrosPlugin: CompilerPlugin {
    let providingMacros: [Macro.Type] = [EntityMacro.self, ManagedPropertyMacro.self, MarkerMacro.self]
}
