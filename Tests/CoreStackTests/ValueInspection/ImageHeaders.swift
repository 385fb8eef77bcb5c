import Foundation

/// The first bytes of images as each format's specification lays them out, for the value
/// inspector's tests (nothing here draws a picture: the inspector reads headers only).
///
/// ```swift
/// ImageHeaders.png(width: 1, height: 1)
/// ```
enum ImageHeaders {
    static func be32(_ v: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)] }
    static func be16(_ v: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)] }
    static func le16(_ v: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }
    static func le32(_ v: Int) -> [UInt8] { le16(v) + le16(v >> 16) }

    static func png(width: Int, height: Int) -> Data {
        Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + Array("IHDR".utf8) + be32(width) + be32(height) + [8, 2, 0, 0, 0] + be32(0))
    }

    /// SOI, an APP0 (JFIF) segment, a DQT stand-in, then SOF0 with the size.
    static func jpeg(width: Int, height: Int) -> Data {
        var d: [UInt8] = [0xFF, 0xD8]
        d += [0xFF, 0xE0] + be16(16) + Array("JFIF".utf8) + [0, 1, 1, 0] + be16(1) + be16(1) + [0, 0]
        d += [0xFF, 0xDB] + be16(4) + [0, 0]
        d += [0xFF, 0xC0] + be16(11) + [8] + be16(height) + be16(width) + [1, 1, 0x11, 0]
        d += [0xFF, 0xD9]
        return Data(d)
    }

    static func gif(width: Int, height: Int) -> Data { Data(Array("GIF89a".utf8) + le16(width) + le16(height) + [0, 0, 0]) }

    static func riff(_ chunk: String, _ body: [UInt8]) -> Data {
        Data(Array("RIFF".utf8) + le32(4 + 8 + body.count) + Array("WEBP".utf8) + Array(chunk.utf8) + le32(body.count) + body)
    }

    static func webpLossy(width: Int, height: Int) -> Data {
        riff("VP8 ", [0, 0, 0, 0x9D, 0x01, 0x2A] + le16(width) + le16(height) + [0, 0])
    }

    static func webpLossless(width: Int, height: Int) -> Data {
        let bits = (width - 1) | ((height - 1) << 14)
        return riff("VP8L", [0x2F] + le32(bits) + [0])
    }

    static func webpExtended(width: Int, height: Int) -> Data {
        let w = width - 1, h = height - 1
        return riff("VP8X", [0, 0, 0, 0] + [UInt8(w & 0xFF), UInt8(w >> 8 & 0xFF), UInt8(w >> 16 & 0xFF)] + [UInt8(h & 0xFF), UInt8(h >> 8 & 0xFF), UInt8(h >> 16 & 0xFF)])
    }

    /// `ftyp heic`, then a `meta` box holding a thumbnail's `ispe` and the primary image's.
    static func heic(width: Int, height: Int) -> Data {
        func ispe(_ w: Int, _ h: Int) -> [UInt8] { be32(20) + Array("ispe".utf8) + [0, 0, 0, 0] + be32(w) + be32(h) }
        let ftyp = be32(24) + Array("ftypheic".utf8) + be32(0) + Array("mif1heic".utf8)
        let body = ispe(320, 240) + ispe(width, height)
        return Data(ftyp + be32(8 + body.count) + Array("meta".utf8) + body)
    }

    static func tiff(width: Int, height: Int, littleEndian: Bool) -> Data {
        let u16 = littleEndian ? le16 : be16
        let u32 = littleEndian ? le32 : be32
        var d: [UInt8] = littleEndian ? [0x49, 0x49, 0x2A, 0x00] : [0x4D, 0x4D, 0x00, 0x2A]
        d += u32(8) + u16(2)
        d += u16(256) + u16(4) + u32(1) + u32(width)
        d += u16(257) + u16(3) + u32(1) + u16(height) + [0, 0]
        d += u32(0)
        return Data(d)
    }
}
