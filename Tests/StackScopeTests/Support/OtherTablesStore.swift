import CoreStack
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Stores for the "Other tables" and lazy value tests: a store of a Photo model (an image with
/// Allows External Storage) written by CoreStack, with tables no model explains added by sqlite3,
/// and large values loaded with sqlite3's `readfile()` (the test process never holds them).
enum OtherTablesStore {
    static let present = "6B1C3A5E-0F5B-4E0C-9C55-0D1E2F3A4B5C"
    static let missing = "11111111-2222-3333-4444-555555555555"

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Photo", attributes: [
                AttributeDescription("name", .string),
                AttributeDescription("image", .binaryData, allowsExternalBinaryDataStorage: true),
                AttributeDescription("thumb", .binaryData),
            ], relationships: []),
        ])
    }

    static func sqlite(_ url: URL, _ sql: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        p.arguments = [url.path, sql]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "sqlite3 failed on \(sql.prefix(80))")
    }

    /// A store with photos 1 (image in an external data file holding a binary plist), 2 (image
    /// inline) and 3 (image's file missing), and the tables NOTES (4 rows) and TAGS no model explains.
    static func make() throws -> URL {
        let url = try TestSupport.temporaryDirectory().appendingPathComponent("Photos.sqlite")
        try SQLiteStore(url: url, model: try model()).close()
        let external = url.deletingLastPathComponent().appendingPathComponent(".Photos_SUPPORT/_EXTERNAL_DATA")
        try FileManager.default.createDirectory(at: external, withIntermediateDirectories: true)
        try PropertyListSerialization.data(fromPropertyList: ["colour": "teal", "size": 12], format: .binary, options: 0)
            .write(to: external.appendingPathComponent(present))
        func hex(_ s: String) -> String { Data(s.utf8).map { String(format: "%02X", $0) }.joined() }
        try sqlite(url, """
            INSERT INTO ZPHOTO (Z_PK, Z_ENT, Z_OPT, ZNAME, ZIMAGE) VALUES
              (1, 1, 1, 'file', X'02\(hex(present))00'), (2, 1, 1, 'inline', X'01DEADBEEF'), (3, 1, 1, 'gone', X'02\(hex(missing))00');
            UPDATE Z_PRIMARYKEY SET Z_MAX = 3 WHERE Z_ENT = 1;
            CREATE TABLE NOTES (ID INTEGER PRIMARY KEY, TITLE TEXT, BODY BLOB);
            INSERT INTO NOTES VALUES (1, 'mango draft', X'7B2261223A317D'), (2, 'apple', NULL), (3, 'kiwi draft', X'00010203'), (4, 'banana', X'FF');
            CREATE TABLE TAGS (K TEXT PRIMARY KEY, V INTEGER) WITHOUT ROWID;
            INSERT INTO TAGS VALUES ('x', 1);
            """)
        return url
    }

    /// The size of the large values.
    static let largeSize = 100 << 20

    /// The 16 bytes at `offset` (a multiple of 16) of the large values: the offset as a big-endian
    /// 64-bit number, then `stackblb`, so that every row of the hex dump names where it is.
    static func largeRow(at offset: Int) -> [UInt8] {
        withUnsafeBytes(of: UInt64(offset).bigEndian) { Array($0) } + Array("stackblb".utf8)
    }

    /// Adds a 100 MB value to `url`: as NOTES' row 5 BODY and as photo 2's thumb. Written through
    /// a file in 1 MiB chunks that sqlite3 reads: the test process never holds the whole value.
    static func addLargeValues(to url: URL) throws {
        let file = url.deletingLastPathComponent().appendingPathComponent("large.bin")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        for base in stride(from: 0, to: largeSize, by: chunk.count) {
            chunk.withUnsafeMutableBufferPointer { buffer in
                for row in stride(from: 0, to: buffer.count, by: 16) {
                    let offset = UInt64(base + row)
                    for k in 0..<8 { buffer[row + k] = UInt8(truncatingIfNeeded: offset >> (56 - 8 * UInt64(k))) }
                    for (k, c) in "stackblb".utf8.enumerated() { buffer[row + 8 + k] = c }
                }
            }
            try handle.write(contentsOf: chunk)
        }
        try handle.close()
        try sqlite(url, """
            INSERT INTO NOTES VALUES (5, 'huge', readfile('\(file.path)'));
            UPDATE ZPHOTO SET ZTHUMB = readfile('\(file.path)') WHERE Z_PK = 2;
            """)
        try FileManager.default.removeItem(at: file)
    }
}

/// The process's resident memory from /proc/self/status, and its peak reset (Linux).
enum ResidentMemory {
    /// A running child's `VmHWM`, in bytes.
    static func childPeak(_ pid: pid_t) -> Int? { value("VmHWM", of: "/proc/\(pid)/status") }

    /// `VmHWM` (the peak) or `VmRSS` (now), in bytes.
    static func value(_ field: String, of file: String = "/proc/self/status") -> Int? {
        guard let status = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            let digits = line.dropFirst(field.count + 1).filter(\.isNumber)
            return Int(digits).map { $0 * 1024 }
        }
        return nil
    }

    /// Resets the peak to what is resident now (`echo 5 > /proc/self/clear_refs`); false where not supported.
    static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }

    /// The peak resident memory of a child process (its `VmHWM`, read each time its output is
    /// read: the child cannot end before its last bytes are read), in bytes, with its standard
    /// output read by `consume` in chunks as it comes. Not `wait4`'s `ru_maxrss`: a child made
    /// by `posix_spawn` (vfork) keeps the parent's peak from before its `exec`.
    static func runMeasured(_ executable: String, _ arguments: [String], consume: (Data) -> Void) throws -> (status: Int32, peak: Int) {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw CocoaError(.fileWriteUnknown) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        var pid: pid_t = 0
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        guard posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0 else { throw CocoaError(.executableLoad) }
        close(pipe[1])
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var peak = 0
        while true {
            let n = read(pipe[0], &buffer, buffer.count)
            if n <= 0 { break }
            if let hwm = childPeak(pid) { peak = max(peak, hwm) }
            consume(Data(buffer[0..<n]))
        }
        close(pipe[0])
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
        return ((status >> 8) & 0xFF, peak)
    }
}
