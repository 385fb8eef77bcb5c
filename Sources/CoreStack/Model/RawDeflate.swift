import CZlib
import Foundation

/// Inflates raw DEFLATE data (RFC 1951: no zlib header, no checksum), the encoding of a Core Data
/// store's `Z_MODELCACHE.Z_CONTENT`, with the system's zlib.
///
/// The output is capped (``maximumOutputSize`` by default) so that a hostile blob cannot make the
/// reader allocate without bound; data that is not deflate, is truncated, or inflates past the cap
/// throws ``ModelArchiveError``.
///
/// ```swift
/// let plist = try RawDeflate.inflate(blob, source: "Z_MODELCACHE")
/// ```
enum RawDeflate {
    /// The most bytes one inflate produces (64 MiB; real model caches are a few kilobytes).
    static let maximumOutputSize = 64 << 20

    /// The inflated bytes of `data`.
    ///
    /// - Parameters:
    ///   - data: raw deflate data.
    ///   - source: names the data in errors (a path, `Z_MODELCACHE`).
    ///   - limit: the most bytes allowed out.
    ///   - windowBits: zlib's framing: -15 raw deflate (the default), 15 a zlib stream (RFC 1950),
    ///     31 a gzip member (RFC 1952); the value inspector opens all three.
    static func inflate(_ data: Data, source: String, limit: Int = maximumOutputSize, windowBits: Int32 = -15) throws -> Data {
        func failure(_ reason: String) -> ModelArchiveError {
            ModelArchiveError(source: source, location: "deflate stream", reason: reason)
        }
        guard !data.isEmpty else { throw failure("the data is empty") }
        guard data.count <= UInt32.max else { throw failure("the data is larger than 4 GiB") }
        var stream = z_stream()
        // -15: raw deflate, 32 KiB window (15: zlib header, 31: gzip header).
        var status = inflateInit2_(&stream, windowBits, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw failure("zlib could not start (\(status))") }
        defer { inflateEnd(&stream) }

        var output = Data()
        let chunkSize = 64 << 10
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        try data.withUnsafeBytes { (input: UnsafeRawBufferPointer) in
            guard let base = input.bindMemory(to: Bytef.self).baseAddress else { throw failure("the data is empty") }
            stream.next_in = UnsafeMutablePointer(mutating: base)
            stream.avail_in = uInt(input.count)
            repeat {
                status = chunk.withUnsafeMutableBufferPointer { buffer -> Int32 in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = uInt(chunkSize)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunkSize - Int(stream.avail_out)
                guard output.count + produced <= limit else {
                    throw failure("it inflates to more than \(limit) bytes")
                }
                output.append(contentsOf: chunk[0..<produced])
                switch status {
                case Z_OK, Z_STREAM_END:
                    break
                case Z_BUF_ERROR where stream.avail_in == 0:
                    throw failure("the data ends before the deflate stream does (truncated)")
                case Z_DATA_ERROR:
                    let message = stream.msg.map { String(cString: $0) } ?? "invalid data"
                    throw failure("not deflate data: \(message) (at byte \(Int(stream.total_in)))")
                default:
                    throw failure("zlib error \(status)")
                }
                if status == Z_OK && stream.avail_in == 0 && stream.avail_out != 0 {
                    throw failure("the data ends before the deflate stream does (truncated)")
                }
            } while status != Z_STREAM_END
        }
        return output
    }

    /// Compresses `data` to raw DEFLATE (the encoding of `Z_MODELCACHE`); `windowBits` 15 writes
    /// a zlib stream, 31 a gzip member instead.
    static func deflate(_ data: Data, windowBits: Int32 = -15) throws -> Data {
        var stream = z_stream()
        var status = deflateInit2_(
            &stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
            Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            throw ModelArchiveError(source: "deflate", location: "deflate stream", reason: "zlib could not start (\(status))")
        }
        defer { deflateEnd(&stream) }
        var output = Data()
        let chunkSize = 64 << 10
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        var input = [UInt8](data)
        input.withUnsafeMutableBufferPointer { buffer in
            stream.next_in = buffer.baseAddress
            stream.avail_in = uInt(buffer.count)
            repeat {
                status = chunk.withUnsafeMutableBufferPointer { out -> Int32 in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(chunkSize)
                    return CZlib.deflate(&stream, Z_FINISH)
                }
                output.append(contentsOf: chunk[0..<(chunkSize - Int(stream.avail_out))])
            } while status == Z_OK
        }
        guard status == Z_STREAM_END else {
            throw ModelArchiveError(source: "deflate", location: "deflate stream", reason: "zlib error \(status)")
        }
        return output
    }
}
