import CImageFixtures
import CoreStack
import Foundation
import StackScope

/// `corestack-fuzz pictures [COUNT] [SEED]`: mutations of images the formats' own encoders wrote
/// (PNG, JPEG, GIF, WebP, HEIC, AVIF, TIFF; Tests/CImageFixtures), each given to
/// `PictureDecoder.decode`; what decodes is drawn by libchafa in a mode picked at random. Every
/// input must decode or give a `PictureDecodeError`; a crash (or an ASan report) stops the run
/// (the input is printed first with `CORESTACK_FUZZ_TRACE=1`).
///
/// ```sh
/// corestack-fuzz pictures 5000 1
/// ```
enum PictureFuzz {
    /// A 48 × 32 picture with a gradient, flat quadrants (for GIF's 256 colours) and transparency,
    /// in every format.
    static func seeds() -> [(InspectedImage.Format, Data)] {
        let width = 48, height = 32
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        var flat = pixels
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                pixels[i] = UInt8(x * 5)
                pixels[i + 1] = UInt8(y * 7)
                pixels[i + 2] = UInt8((x ^ y) * 4)
                pixels[i + 3] = x > 40 && y > 24 ? 0 : 255
                flat[i] = x < width / 2 ? 200 : 20
                flat[i + 1] = y < height / 2 ? 180 : 40
                flat[i + 3] = x > 40 && y > 24 ? 0 : 255
            }
        }
        var out: [(InspectedImage.Format, Data)] = []
        for format in InspectedImage.Format.allCases {
            var encoded = sif_encoded()
            let source = format == .gif ? flat : pixels
            let status = source.withUnsafeBufferPointer { sif_encode(format.rawValue, $0.baseAddress, Int32(width), Int32(height), 80, &encoded) }
            if status == 0, let bytes = encoded.bytes { out.append((format, Data(bytes: bytes, count: encoded.length))) }
            sif_free(&encoded)
        }
        return out
    }

    static func run(count: Int, seed: UInt64, trace: Bool) {
        var rng = SplitMix64(state: seed)
        let seeds = seeds()
        guard !seeds.isEmpty else {
            print("no seed image could be encoded")
            exit(1)
        }
        var decoded = 0
        var refused: [PictureDecodeError.Kind: Int] = [:]
        let styles = [
            PictureStyle(graphics: .symbols, colors: .truecolor), PictureStyle(graphics: .symbols, colors: .indexed256),
            PictureStyle(graphics: .symbols, colors: .none), PictureStyle(graphics: .sixel, colors: .truecolor),
            PictureStyle(graphics: .kitty, colors: .truecolor),
        ]
        for n in 0..<count {
            let (format, seedBytes) = seeds[rng.below(seeds.count)]
            var bytes = [UInt8](seedBytes)
            ValueFuzz.mutate(&bytes, &rng)
            let data = Data(bytes)
            if trace { FileHandle.standardError.write(Data("\(n)\t\(format.rawValue)\t\(data.base64EncodedString())\n".utf8)) }
            do {
                let picture = try PictureDecoder.decode(data, as: format)
                decoded += 1
                _ = PictureRenderer.render(picture, columns: 1 + rng.below(40), rows: 1 + rng.below(20), style: styles[rng.below(styles.count)])
            } catch {
                refused[error.kind, default: 0] += 1
            }
        }
        let kinds = refused.map { "\($0.value) \($0.key)" }.sorted().joined(separator: ", ")
        print("fuzzed \(count) pictures (seed \(seed)): \(decoded) decoded, refused: \(kinds.isEmpty ? "none" : kinds), 0 crashes")
    }
}
