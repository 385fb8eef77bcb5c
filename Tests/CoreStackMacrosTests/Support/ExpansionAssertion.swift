import CoreStackMacros
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// The macros as CoreStackModel declares them, with the conformances each is asked for.
let entityMacroSpecs: [String: MacroSpec] = {
    let conformances = ["DeclaredEntity", "PropertyKeyPathTable"].map { TypeSyntax(IdentifierTypeSyntax(name: .identifier($0))) }
    var specs: [String: MacroSpec] = [
        "Entity": MacroSpec(type: EntityMacro.self, conformances: conformances),
        "Model": MacroSpec(type: EntityMacro.self, conformances: conformances),
        "ParentEntity": MacroSpec(type: EntityMacro.self, conformances: [TypeSyntax(IdentifierTypeSyntax(name: .identifier("DeclaredEntity")))]),
        "_ManagedProperty": MacroSpec(type: ManagedPropertyMacro.self),
    ]
    for marker in ["Unique", "Indexed", "Transient", "Relationship", "AttributeOptions"] {
        specs[marker] = MacroSpec(type: MarkerMacro.self)
    }
    return specs
}()

/// swift-syntax's `assertMacroExpansion`, reporting through Swift Testing.
func assertExpansion(
    _ source: String,
    expandedSource: String,
    diagnostics: [DiagnosticSpec] = [],
    applyFixIts: [String]? = nil,
    fixedSource: String? = nil,
    /// The conformances `@Entity` is asked for (the compiler asks only for those the class lacks).
    conformances: [String]? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) {
    var specs = entityMacroSpecs
    if let conformances {
        let types = conformances.map { TypeSyntax(IdentifierTypeSyntax(name: .identifier($0))) }
        specs["Entity"] = MacroSpec(type: EntityMacro.self, conformances: types)
    }
    assertMacroExpansion(
        source, expandedSource: expandedSource, diagnostics: diagnostics, macroSpecs: specs,
        applyFixIts: applyFixIts, fixedSource: fixedSource,
        failureHandler: { failure in
            Issue.record(
                Comment(rawValue: failure.message),
                sourceLocation: SourceLocation(
                    fileID: failure.location.fileID, filePath: failure.location.filePath,
                    line: failure.location.line, column: failure.location.column))
        },
        fileID: fileID, filePath: filePath, line: line, column: column)
}
