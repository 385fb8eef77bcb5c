import CStackScopeImages
import CoreStack
import Foundation

/// Decodes an image value (PNG, JPEG, GIF, WebP, HEIC, AVIF, TIFF, found by its magic bytes) to
/// pixels with the system's format libraries (libpng, libjpeg-turbo, giflib, libwebp, libheif,
/// libtiff), for the value inspector's picture and `stackscope value --as image`.
///
/// The bytes are untrusted: the size a file declares is checked against ``maximumPixels`` before
/// anything is allocated, damaged and truncated files give a ``PictureDecodeError`` (never a
/// crash), and nothing is printed. Animations give their first frame.
///
/// ```swift
/// let picture = try PictureDecoder.decode(jpegData)
/// (picture.width, picture.height)  // (728, 486)
/// ```
public enum PictureDecoder {
    /// The most pixels a file may declare (50 megapixels: 200 MB decoded).
    public static let maximumPixels = 50_000_000
    /// A JPEG is decoded at 1/2, 1/4 or 1/8 of its size (libjpeg's DCT scaling) while its longer
    /// side stays at least this long: more than a terminal shows, at a fraction of the work.
    public static let previewLongSide = 1920

    /// Whether this build decodes `format` (HEIC and AVIF need libheif's HEVC and AV1 codecs).
    ///
    /// ```swift
    /// PictureDecoder.hasDecoder(for: .webp)  // true
    /// ```
    public static func hasDecoder(for format: InspectedImage.Format) -> Bool {
        ssi_has_decoder(cFormat(format)) != 0
    }

    /// The picture `data` holds.
    ///
    /// - Parameters:
    ///   - data: the image file's bytes, in any format `InspectedImage.Format` names.
    ///   - maximumPixels: a larger declared size is refused (``PictureDecodeError/Kind/tooLarge``).
    ///   - longSide: decode a JPEG smaller while its longer side stays at least this long (0: full size).
    /// - Throws: ``PictureDecodeError``.
    public static func decode(
        _ data: Data, maximumPixels: Int = maximumPixels, longSide: Int = previewLongSide
    ) throws(PictureDecodeError) -> DecodedPicture {
        let inspection = ValueInspector.inspect(data)
        guard case let .image(image) = inspection.format else {
            throw PictureDecodeError(kind: .notAnImage, format: "", reason: "not an image (\(inspection.summary))")
        }
        return try decode(data, as: image.format, maximumPixels: maximumPixels, longSide: longSide)
    }

    /// The picture `data` holds, read as `format` (as `ValueInspector` found it).
    ///
    /// ```swift
    /// try PictureDecoder.decode(heic, as: .heic, decoderAvailable: { _ in false })
    /// // throws "cannot decode HEIC: this build's libheif has no HEVC decoder (install libde265)"
    /// ```
    ///
    /// - Parameters:
    ///   - data: the image file's bytes.
    ///   - format: the format to decode them as.
    ///   - maximumPixels: a larger declared size is refused (``PictureDecodeError/Kind/tooLarge``).
    ///   - longSide: decode a JPEG smaller while its longer side stays at least this long (0: full size).
    ///   - decoderAvailable: whether this build decodes a format (``hasDecoder(for:)``; a test
    ///     passes a stand-in to see the error for a missing one).
    /// - Throws: ``PictureDecodeError``.
    public static func decode(
        _ data: Data, as format: InspectedImage.Format, maximumPixels: Int = maximumPixels, longSide: Int = previewLongSide,
        decoderAvailable: (InspectedImage.Format) -> Bool = hasDecoder(for:)
    ) throws(PictureDecodeError) -> DecodedPicture {
        guard decoderAvailable(format) else {
            throw PictureDecodeError(kind: .noDecoder, format: format.rawValue, reason: noDecoderReason(format))
        }
        var image = ssi_image()
        let status = data.withUnsafeBytes { raw -> ssi_status in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress, raw.count > 0 else {
                return SSI_DAMAGED
            }
            return ssi_decode(cFormat(format), base, raw.count, Int64(max(1, maximumPixels)), Int32(clamping: longSide), &image)
        }
        defer { ssi_image_free(&image) }
        guard status == SSI_OK, let pixels = image.pixels, image.width > 0, image.height > 0 else {
            let message = data.isEmpty ? "no bytes" : withUnsafeBytes(of: image.message) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            throw PictureDecodeError(kind: kind(status), format: format.rawValue, reason: reason(status, message, format))
        }
        let count = Int(image.width) * Int(image.height) * 4
        return DecodedPicture(
            format: format, width: Int(image.width), height: Int(image.height),
            sourceWidth: Int(image.source_width), sourceHeight: Int(image.source_height),
            pixels: Array(UnsafeBufferPointer(start: pixels, count: count)))
    }

    static func cFormat(_ format: InspectedImage.Format) -> ssi_format {
        switch format {
        case .png: SSI_FORMAT_PNG
        case .jpeg: SSI_FORMAT_JPEG
        case .gif: SSI_FORMAT_GIF
        case .webp: SSI_FORMAT_WEBP
        case .heic: SSI_FORMAT_HEIC
        case .avif: SSI_FORMAT_AVIF
        case .tiff: SSI_FORMAT_TIFF
        }
    }

    private static func kind(_ status: ssi_status) -> PictureDecodeError.Kind {
        switch status {
        case SSI_NO_DECODER: .noDecoder
        case SSI_TOO_LARGE: .tooLarge
        case SSI_NO_MEMORY: .outOfMemory
        default: .damaged
        }
    }

    private static func reason(_ status: ssi_status, _ message: String, _ format: InspectedImage.Format) -> String {
        switch status {
        case SSI_TOO_LARGE: "the file declares " + message.replacingOccurrences(of: " x ", with: "×")
        case SSI_NO_DECODER: message.isEmpty ? noDecoderReason(format) : message
        default: message.isEmpty ? "the decoder gave no reason" : message
        }
    }

    private static func noDecoderReason(_ format: InspectedImage.Format) -> String {
        switch format {
        case .heic: "this build's libheif has no HEVC decoder (install libde265)"
        case .avif: "this build's libheif has no AV1 decoder (install libdav1d or libaom)"
        default: "this build has no \(format.rawValue) decoder"
        }
    }
}
