import Foundation

/// Finds an image format by its magic bytes and reads the size from the header where that is
/// cheap (a fixed offset, or a bounded walk of JPEG segments, TIFF's first directory, or a
/// search for HEIF's `ispe` box). Nothing is decoded; a damaged header leaves the size nil.
///
/// ```swift
/// ImageHeaderReader.image(in: pngData)  // InspectedImage(format: .png, width: 120, height: 90)
/// ```
enum ImageHeaderReader {
    /// The image `data` starts with, or nil when it is not one of ``InspectedImage/Format``.
    static func image(in data: Data) -> InspectedImage? {
        let b = ByteReader(data)
        if b.matches(0, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            // IHDR is the first chunk: width and height at 16 and 20.
            let ok = b.matches(12, Array("IHDR".utf8))
            return InspectedImage(format: .png, width: ok ? b.u32be(16) : nil, height: ok ? b.u32be(20) : nil)
        }
        if b.matches(0, [0xFF, 0xD8, 0xFF]) { return jpeg(b) }
        if b.matches(0, Array("GIF87a".utf8)) || b.matches(0, Array("GIF89a".utf8)) {
            return InspectedImage(format: .gif, width: b.u16le(6), height: b.u16le(8))
        }
        if b.matches(0, Array("RIFF".utf8)) && b.matches(8, Array("WEBP".utf8)) { return webp(b) }
        if b.matches(0, [0x49, 0x49, 0x2A, 0x00]) || b.matches(0, [0x4D, 0x4D, 0x00, 0x2A]) { return tiff(b) }
        if b.matches(4, Array("ftyp".utf8)), let brand = b.ascii(8, 4) {
            let heic = ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1"]
            let avif = ["avif", "avis"]
            guard heic.contains(brand) || avif.contains(brand) else { return nil }
            let size = ispe(b)
            return InspectedImage(format: avif.contains(brand) ? .avif : .heic, width: size?.0, height: size?.1)
        }
        return nil
    }

    /// JPEG: the segments from SOI, each with a length, until a start-of-frame marker gives the size.
    private static func jpeg(_ b: ByteReader) -> InspectedImage {
        var at = 2
        var steps = 0
        while steps < 1000, let m0 = b.u8(at), m0 == 0xFF, let marker = b.u8(at + 1) {
            steps += 1
            if marker == 0xFF { at += 1; continue }  // fill byte
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { at += 2; continue }
            guard marker != 0xD9, marker != 0xDA, let length = b.u16be(at + 2), length >= 2 else { break }
            let isFrame = (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
            if isFrame, let h = b.u16be(at + 5), let w = b.u16be(at + 7) {
                return InspectedImage(format: .jpeg, width: w, height: h)
            }
            at += 2 + length
        }
        return InspectedImage(format: .jpeg, width: nil, height: nil)
    }

    /// WebP: the first chunk says lossy (`VP8 `), lossless (`VP8L`) or extended (`VP8X`).
    private static func webp(_ b: ByteReader) -> InspectedImage {
        switch b.ascii(12, 4) {
        case "VP8 "?:
            if let w = b.u16le(26), let h = b.u16le(28) { return InspectedImage(format: .webp, width: w & 0x3FFF, height: h & 0x3FFF) }
        case "VP8L"?:
            if b.u8(20) == 0x2F, let bits = b.u32le(21) {
                return InspectedImage(format: .webp, width: (bits & 0x3FFF) + 1, height: ((bits >> 14) & 0x3FFF) + 1)
            }
        case "VP8X"?:
            if let w = b.u24le(24), let h = b.u24le(27) { return InspectedImage(format: .webp, width: w + 1, height: h + 1) }
        default: break
        }
        return InspectedImage(format: .webp, width: nil, height: nil)
    }

    /// TIFF: tags 256 (width) and 257 (height) of the first image directory.
    private static func tiff(_ b: ByteReader) -> InspectedImage {
        let little = b.u8(0) == 0x49
        func u16(_ at: Int) -> Int? { little ? b.u16le(at) : b.u16be(at) }
        func u32(_ at: Int) -> Int? { little ? b.u32le(at) : b.u32be(at) }
        var width: Int?, height: Int?
        if let ifd = u32(4), let count = u16(ifd) {
            for i in 0..<min(count, 500) {
                let entry = ifd + 2 + 12 * i
                guard let tag = u16(entry), let type = u16(entry + 2) else { break }
                let value = type == 3 ? u16(entry + 8) : (type == 4 ? u32(entry + 8) : nil)
                if tag == 256 { width = value }
                if tag == 257 { height = value }
            }
        }
        return InspectedImage(format: .tiff, width: width, height: height)
    }

    /// HEIF: the largest `ispe` (image spatial extents) property in the first 256 KiB.
    private static func ispe(_ b: ByteReader) -> (Int, Int)? {
        let tag = Array("ispe".utf8)
        var best: (Int, Int)?
        let end = min(b.count, 256 << 10) - 16
        var at = 4
        while at <= end {
            if b.matches(at, tag), let w = b.u32be(at + 8), let h = b.u32be(at + 12), Double(w) * Double(h) > (best.map { Double($0.0) * Double($0.1) } ?? -1) {
                best = (w, h)
            }
            at += 1
        }
        return best
    }
}
