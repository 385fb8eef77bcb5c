import CoreStack
import Foundation
import TestSupportKit
import StackScope
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Paths and helpers shared by the StackScope tests.
enum TestSupport {
    /// The repository root, found from this source file's path.
    static let repoRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // StackScopeTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// A fixture under `Tests/Fixtures`.
    static func fixture(_ relative: String) -> URL {
        repoRoot.appendingPathComponent("Tests/Fixtures").appendingPathComponent(relative)
    }

    /// A fresh temporary folder.
    static func temporaryDirectory() throws -> URL {
        try TemporaryRoot.folder("scope")
    }

    /// A demo store written to a temporary folder with the real SQLite store.
    static func demoStore(size: Int = 300) throws -> (url: URL, summary: DemoSummary) {
        let url = try temporaryDirectory().appendingPathComponent("library.sqlite")
        let summary = try DemoLibrary.create(at: url, size: size)
        return (url, summary)
    }

    /// FNV-1a 64 over a file's bytes.
    static func checksum(_ url: URL) throws -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in try Data(contentsOf: url) {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// Every entry under `root` (links not followed), one line each with its type, size and, for a
    /// regular file, a checksum of its bytes: equal snapshots mean nothing was added, removed or changed.
    static func folderSnapshot(_ root: URL) throws -> [String] {
        var lines: [String] = []
        var pending = [root.path]
        while let folder = pending.popLast() {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() {
                let path = folder + "/" + name
                var info = stat()
                guard lstat(path, &info) == 0 else { continue }
                let type = info.st_mode & S_IFMT
                if type == S_IFDIR { pending.append(path) }
                let sum = type == S_IFREG ? String(try checksum(URL(fileURLWithPath: path))) : "-"
                lines.append("\(path) \(type) \(info.st_size) \(sum)")
            }
        }
        return lines.sorted()
    }

    /// Parses JSON text.
    static func parseJSON(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }

    /// Replaces the store UUID in object-ID URIs, which is random per store.
    static func withoutStoreUUID(_ text: String, uuid: String) -> String {
        text.replacingOccurrences(of: uuid, with: "STORE-UUID")
    }

    /// Every demo entity.
    static let demoEntities = ["Book", "GraphicNovel", "Chapter", "Genre", "Person", "Author", "Editor", "Publisher"]
}
