import CoreStack
import Foundation
import Testing

@testable import StackScope

/// Decoding image values to pixels, on files the formats' own libraries wrote; hostile files
/// (truncated, corrupted, decompression bombs, a missing decoder) give typed errors.
@Suite("picture decoder")
struct PictureDecoderTests {
    /// The lossy formats may shift a colour this much.
    static func close(_ p: DecodedPicture.RGBA?, _ expected: [UInt8], tolerance: Int) -> Bool {
        guard let p else { return false }
        if expected[3] == 0 { return p.alpha < 16 }
        let got = [p.red, p.green, p.blue, p.alpha].map(Int.init)
        return zip(got, expected.map(Int.init)).allSatisfy { abs($0 - $1) <= tolerance }
    }

    @Test(
        "each format decodes to its size and the colours of its quadrants (transparency where the format has it)",
        arguments: [
            (InspectedImage.Format.png, 0, true), (.gif, 0, true), (.tiff, 0, true), (.webp, 0, true),
            (.webp, 90, true), (.jpeg, 0, false), (.heic, 0, true), (.avif, 0, true),
        ])
    func formats(format: InspectedImage.Format, webpQuality: Int, alpha: Bool) throws {
        let lossy = [.jpeg, .heic, .avif].contains(format) || webpQuality > 0
        let data = try ImageFixture.quadrantsFile(format, quality: format == .webp ? webpQuality : 92)
        #expect(ValueInspector.inspect(data).summary == "\(format.rawValue) 96×64", "\(ValueInspector.inspect(data).summary)")
        let p = try PictureDecoder.decode(data)
        #expect(p.format == format)
        #expect((p.width, p.height, p.sourceWidth, p.sourceHeight) == (96, 64, 96, 64))
        let tolerance = lossy ? 28 : 0
        #expect(Self.close(p.pixel(x: 10, y: 10), ImageFixture.topLeft, tolerance: tolerance), "\(p.pixel(x: 10, y: 10)!)")
        #expect(Self.close(p.pixel(x: 85, y: 10), ImageFixture.topRight, tolerance: tolerance), "\(p.pixel(x: 85, y: 10)!)")
        #expect(Self.close(p.pixel(x: 10, y: 55), ImageFixture.bottomLeft, tolerance: tolerance), "\(p.pixel(x: 10, y: 55)!)")
        if alpha {
            #expect(Self.close(p.pixel(x: 85, y: 55), ImageFixture.bottomRight, tolerance: tolerance), "\(p.pixel(x: 85, y: 55)!)")
        } else {
            #expect(p.pixel(x: 85, y: 55)?.alpha == 255)
        }
        #expect(p.pixel(x: 96, y: 0) == nil)
    }

    @Test("a large JPEG is decoded at a fraction of its size (DCT scaling) while its longer side stays long enough")
    func jpegPreviewSize() throws {
        let data = try ImageFixture.encode(.jpeg, ImageFixture.gradient(width: 1600, height: 1200), width: 1600, height: 1200)
        let preview = try PictureDecoder.decode(data, longSide: 400)
        #expect((preview.width, preview.height) == (400, 300))
        #expect((preview.sourceWidth, preview.sourceHeight) == (1600, 1200))
        let half = try PictureDecoder.decode(data, longSide: 700)
        #expect((half.width, half.height) == (800, 600))
        let full = try PictureDecoder.decode(data, longSide: 0)
        #expect((full.width, full.height) == (1600, 1200))
        // The same picture at each size: the gradient's corners.
        #expect(Self.close(preview.pixel(x: 399, y: 299), [255, 255, 128, 255], tolerance: 12), "\(preview.pixel(x: 399, y: 299)!)")
        #expect(Self.close(full.pixel(x: 0, y: 0), [0, 0, 128, 255], tolerance: 12), "\(full.pixel(x: 0, y: 0)!)")
    }

    @Test("truncated files give a typed error naming the format, at every cut", arguments: InspectedImage.Format.allCases)
    func truncated(format: InspectedImage.Format) throws {
        let data = try ImageFixture.quadrantsFile(format)
        // A PNG whose pixels are all there but not its 12-byte IEND trailer decodes: cut before it.
        let end = format == .png ? data.count - 12 : data.count - 1
        for cut in stride(from: 16, to: end, by: max(1, data.count / 23)) {
            let prefix = data.prefix(cut)
            do {
                let p = try PictureDecoder.decode(prefix, as: format)
                Issue.record("\(format.rawValue) cut at \(cut) of \(data.count) decoded to \(p.width)×\(p.height)")
            } catch {
                #expect(error.kind == .damaged, "\(format.rawValue) cut at \(cut): \(error)")
                #expect(error.description.hasPrefix("cannot decode \(format.rawValue): "), "\(error)")
                #expect(error.reason.count > 3, "\(error)")
            }
        }
    }

    @Test("corrupted files decode to their declared size or give a typed error, never a crash", arguments: InspectedImage.Format.allCases)
    func corrupted(format: InspectedImage.Format) throws {
        // GIF holds 256 colours at most: the quadrants there, a gradient elsewhere.
        let pixels = format == .gif ? ImageFixture.quadrants(width: 80, height: 60) : ImageFixture.gradient(width: 80, height: 60)
        let data = try ImageFixture.encode(format, pixels, width: 80, height: 60, quality: 80)
        var generator = SplitMix64(seed: 31)
        var failures = 0
        for round in 0..<60 {
            var bytes = [UInt8](data)
            // A few bytes past the first 12 (the magic bytes stay, so it is still taken for the format).
            for _ in 0..<(1 + round % 6) {
                let at = 12 + Int(generator.next() % UInt64(bytes.count - 12))
                bytes[at] = UInt8(truncatingIfNeeded: generator.next())
            }
            do {
                let p = try PictureDecoder.decode(Data(bytes), as: format)
                #expect(p.width > 0 && p.height > 0 && p.pixels.count == p.width * p.height * 4)
            } catch {
                failures += 1
                #expect([.damaged, .tooLarge].contains(error.kind), "\(error)")
                #expect(error.format == format.rawValue)
            }
        }
        #expect(failures > 0, "no corruption of \(format.rawValue) was noticed")
    }

    @Test("a header declaring a huge size is refused before decoding (PNG, GIF, JPEG)")
    func decompressionBombs() throws {
        // PNG: IHDR says 100000 × 100000, its CRC made right, so only the size is wrong.
        var png = [UInt8](try ImageFixture.quadrantsFile(.png))
        png.replaceSubrange(16..<24, with: [0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0])
        let crc = ImageFixture.crc32(png[12..<29])
        png.replaceSubrange(29..<33, with: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
        #expect(ValueInspector.inspect(Data(png)).summary == "PNG 100000×100000")
        #expect(throws: PictureDecodeError(
            kind: .tooLarge, format: "PNG", reason: "the file declares 100000×100000 pixels, more than the 50000000 allowed")) {
            try PictureDecoder.decode(Data(png))
        }
        // GIF: a logical screen of 65535 × 65535.
        var gif = [UInt8](try ImageFixture.quadrantsFile(.gif))
        gif.replaceSubrange(6..<10, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: PictureDecodeError.self) { try PictureDecoder.decode(Data(gif)) }
        do { _ = try PictureDecoder.decode(Data(gif)) } catch { #expect(error.kind == .tooLarge, "\(error)") }
        // JPEG: the start-of-frame says 65000 × 65000.
        var jpeg = [UInt8](try ImageFixture.quadrantsFile(.jpeg))
        let sof = try #require((2..<jpeg.count - 9).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        jpeg.replaceSubrange(sof + 5..<sof + 9, with: [0xFD, 0xE8, 0xFD, 0xE8])
        do {
            _ = try PictureDecoder.decode(Data(jpeg))
            Issue.record("a JPEG declaring 65000×65000 decoded")
        } catch {
            #expect(error.kind == .tooLarge, "\(error)")
            #expect(error.description == "cannot decode JPEG: the file declares 65000×65000 pixels, more than the 50000000 allowed")
        }
        // A lower limit refuses an ordinary file.
        #expect(throws: PictureDecodeError.self) { try PictureDecoder.decode(try ImageFixture.quadrantsFile(.webp), maximumPixels: 1000) }
    }

    @Test("a format whose decoder is missing says so; bytes that are no image say what they are")
    func missingDecoderAndNotAnImage() throws {
        let heic = try ImageFixture.quadrantsFile(.heic)
        #expect(throws: PictureDecodeError(
            kind: .noDecoder, format: "HEIC", reason: "this build's libheif has no HEVC decoder (install libde265)")) {
            try PictureDecoder.decode(heic, as: .heic, decoderAvailable: { $0 != .heic })
        }
        #expect(throws: PictureDecodeError(kind: .notAnImage, format: "", reason: "not an image (JSON array · 2)")) {
            try PictureDecoder.decode(Data("[1, 2]".utf8))
        }
        #expect(PictureDecodeError(kind: .noDecoder, format: "", reason: "x").description == "cannot decode: x")
        for format in InspectedImage.Format.allCases { #expect(PictureDecoder.hasDecoder(for: format), "\(format)") }
    }
}
