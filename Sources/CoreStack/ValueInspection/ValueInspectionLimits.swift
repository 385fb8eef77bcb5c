/// The bounds a decode of an untrusted value keeps to: deeper, larger or longer values are cut
/// (an ``InspectedValue/elided(_:)`` node) or refused with a ``ValueInspectionError``, never
/// followed without end.
///
/// ```swift
/// var limits = ValueInspectionLimits()
/// limits.maximumDepth = 8
/// ValueInspector.inspect(data, limits: limits)
/// ```
public struct ValueInspectionLimits: Sendable, Equatable {
    /// The deepest tree shown (levels below the root).
    public var maximumDepth = 64
    /// The most nodes in one tree.
    public var maximumNodes = 100_000
    /// The largest value decoded as a property list, archive, JSON or text (bytes); larger ones
    /// are only sniffed for their format.
    public var maximumDecodedInput = 64 << 20
    /// The most bytes a compressed value may inflate to.
    public var maximumInflatedSize = 64 << 20
    /// How many compressed layers are opened (gzip of zlib of …).
    public var maximumCompressionLayers = 2

    /// The default limits.
    public init() {}
}
