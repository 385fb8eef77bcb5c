import CoreStack

/// Why an image value gives no picture: what the format is and what went wrong, for the
/// inspector and `stackscope value --as image`.
///
/// ```swift
/// do { _ = try PictureDecoder.decode(truncatedWebP) } catch {
///     error.description  // "cannot decode WebP: the data ends early (truncated)"
/// }
/// ```
public struct PictureDecodeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds of failure.
    public enum Kind: Sendable, Hashable {
        /// The bytes are not one of the image formats known by their magic bytes.
        case notAnImage
        /// This build has no decoder for the format (for HEIC or AVIF: libheif lacks the codec).
        case noDecoder
        /// The size the file declares is more than ``PictureDecoder/maximumPixels`` (a
        /// decompression bomb is refused before anything is allocated).
        case tooLarge
        /// The bytes are damaged or truncated, or use a feature the library does not support.
        case damaged
        /// Memory ran out.
        case outOfMemory
    }

    /// What kind of failure.
    public var kind: Kind
    /// The format's name (`WebP`), empty for ``Kind/notAnImage``.
    public var format: String
    /// What was wrong, in the decoding library's words where it gave some.
    public var reason: String

    /// Creates an error.
    public init(kind: Kind, format: String, reason: String) {
        self.kind = kind
        self.format = format
        self.reason = reason
    }

    /// `cannot decode WebP: REASON`, or `cannot decode: REASON` for bytes that are no image.
    public var description: String {
        format.isEmpty ? "cannot decode: \(reason)" : "cannot decode \(format): \(reason)"
    }
}
