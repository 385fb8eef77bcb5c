import CImageFixtures
import CoreStack
import Foundation

/// Images made by the real encoders (Tests/CImageFixtures: libpng, libjpeg-turbo, giflib,
/// libwebp, libheif with x265 and aom, libtiff) for the picture tests.
enum ImageFixture {
    struct EncodingFailed: Error, CustomStringConvertible {
        var description: String
    }

    /// The colours of the quadrants ``quadrants(width:height:)`` paints (the bottom right one is transparent).
    static let topLeft: [UInt8] = [230, 40, 30, 255]
    static let topRight: [UInt8] = [30, 200, 60, 255]
    static let bottomLeft: [UInt8] = [40, 70, 220, 255]
    static let bottomRight: [UInt8] = [0, 0, 0, 0]

    /// RGBA pixels in four flat quadrants: red, green / blue, transparent.
    static func quadrants(width: Int, height: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let colour = y < height / 2 ? (x < width / 2 ? topLeft : topRight) : (x < width / 2 ? bottomLeft : bottomRight)
                pixels.replaceSubrange((y * width + x) * 4..<(y * width + x) * 4 + 4, with: colour)
            }
        }
        return pixels
    }

    /// A smooth gradient (for sizes where flat colours would compress to nothing).
    static func gradient(width: Int, height: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                pixels[i] = UInt8(x * 255 / max(1, width - 1))
                pixels[i + 1] = UInt8(y * 255 / max(1, height - 1))
                pixels[i + 2] = 128
            }
        }
        return pixels
    }

    /// `pixels` encoded as `format` by its library; `quality` for the lossy formats (0: WebP lossless).
    static func encode(_ format: InspectedImage.Format, _ pixels: [UInt8], width: Int, height: Int, quality: Int = 92) throws -> Data {
        var out = sif_encoded()
        let status = pixels.withUnsafeBufferPointer { sif_encode(format.rawValue, $0.baseAddress, Int32(width), Int32(height), Int32(quality), &out) }
        defer { sif_free(&out) }
        guard status == 0, let bytes = out.bytes else {
            let message = withUnsafeBytes(of: out.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw EncodingFailed(description: "\(format.rawValue): \(message)")
        }
        return Data(bytes: bytes, count: out.length)
    }

    /// The quadrants image, 96 × 64, as `format`.
    static func quadrantsFile(_ format: InspectedImage.Format, quality: Int = 92) throws -> Data {
        try encode(format, quadrants(width: 96, height: 64), width: 96, height: 64, quality: quality)
    }

    /// CRC-32 (ISO-HDLC, as PNG chunks use it).
    static func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
