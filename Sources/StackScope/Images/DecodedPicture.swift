import CoreStack

/// An image value decoded to pixels by ``PictureDecoder``: RGBA, 8 bits a sample, alpha not
/// premultiplied, row by row. A JPEG may be decoded smaller than it is (``sourceWidth`` says its
/// real size): the terminal never shows more pixels than that.
///
/// Immutable and shared by reference: a frame that shows it (``FramePicture``) compares it by
/// identity, so the backend converts it for the terminal once.
///
/// ```swift
/// let picture = try PictureDecoder.decode(pngData)
/// picture.width            // 120
/// picture.pixel(x: 0, y: 0) // RGBA(red: 255, green: 0, blue: 0, alpha: 255)
/// ```
public final class DecodedPicture: Sendable {
    /// The file's format.
    public let format: InspectedImage.Format
    /// Width of ``pixels`` in pixels.
    public let width: Int
    /// Height of ``pixels`` in pixels.
    public let height: Int
    /// The width the file declares.
    public let sourceWidth: Int
    /// The height the file declares.
    public let sourceHeight: Int
    /// `width * height * 4` bytes: red, green, blue, alpha.
    public let pixels: [UInt8]

    /// Wraps decoded pixels (`pixels.count` must be `width * height * 4`).
    public init(format: InspectedImage.Format, width: Int, height: Int, sourceWidth: Int, sourceHeight: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && pixels.count == width * height * 4, "pixels do not match the size")
        self.format = format
        self.width = width
        self.height = height
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.pixels = pixels
    }

    /// One pixel's colour and alpha.
    public struct RGBA: Sendable, Hashable, CustomStringConvertible {
        /// Red, 0–255.
        public var red: UInt8
        /// Green, 0–255.
        public var green: UInt8
        /// Blue, 0–255.
        public var blue: UInt8
        /// Opacity, 0 (transparent) – 255 (opaque), not premultiplied.
        public var alpha: UInt8

        /// Creates a colour.
        public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
            self.red = red
            self.green = green
            self.blue = blue
            self.alpha = alpha
        }

        /// `rgba(255, 0, 0, 255)`.
        public var description: String { "rgba(\(red), \(green), \(blue), \(alpha))" }
    }

    /// The pixel at (`x`, `y`) from the top left, nil outside the image.
    public func pixel(x: Int, y: Int) -> RGBA? {
        guard x >= 0, y >= 0, x < width, y < height else { return nil }
        let i = (y * width + x) * 4
        return RGBA(red: pixels[i], green: pixels[i + 1], blue: pixels[i + 2], alpha: pixels[i + 3])
    }
}
