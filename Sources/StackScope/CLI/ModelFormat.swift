import Foundation

/// What `stackscope model` produces.
///
/// ```swift
/// ModelFormat(rawValue: "mermaid")  // .mermaid
/// ModelFormat.allCases.map(\.rawValue).joined(separator: "|")  // "dot|mermaid|json|xcdatamodeld"
/// ```
public enum ModelFormat: String, Sendable, CaseIterable {
    /// Graphviz DOT (``ModelGraphDOT``).
    case dot
    /// A Mermaid class diagram (``ModelGraphMermaid``).
    case mermaid
    /// JSON for scripts (``ModelGraphJSON``).
    case json
    /// An `.xcdatamodeld` bundle Xcode opens (`XcodeModelWriter`).
    case xcdatamodeld
}
