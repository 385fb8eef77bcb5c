/// An image found by its magic bytes: its format and, when the header says so cheaply, its size
/// in pixels. Nothing is decoded.
///
/// ```swift
/// ValueInspector.inspect(pngData).summary  // "PNG 120×90"
/// ```
public struct InspectedImage: Sendable, Equatable {
    /// The image formats recognised.
    public enum Format: String, Sendable, Equatable, CaseIterable {
        /// PNG, JPEG, GIF, WebP, HEIC, AVIF and TIFF, by their magic bytes.
        case png = "PNG", jpeg = "JPEG", gif = "GIF", webp = "WebP", heic = "HEIC", avif = "AVIF", tiff = "TIFF"
    }

    /// The format.
    public var format: Format
    /// Width in pixels (nil when the header does not say it cheaply or is damaged).
    public var width: Int?
    /// Height in pixels.
    public var height: Int?

    /// Creates an image description.
    public init(format: Format, width: Int?, height: Int?) {
        self.format = format
        self.width = width
        self.height = height
    }

    /// `JPEG 120×90`, or the format alone when the size is unknown.
    public var summary: String {
        guard let width, let height else { return format.rawValue }
        return "\(format.rawValue) \(width)×\(height)"
    }
}
