import Foundation

/// The folder every temporary file of a test process goes under (shared by the test targets), removed when the process
/// exits (tests that fail half-way, or keep a store open, leave nothing behind in the system's
/// temporary folder).
public enum TemporaryRoot {
    public static let url: URL = {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("CoreStackTests-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { TemporaryRoot.remove() }
        return url
    }()

    /// A fresh, empty folder under the root.
    public static func folder(_ label: String) throws -> URL {
        let folder = url.appendingPathComponent("\(label)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Deletes the root, making folders tests made read-only writable first.
    public static func remove() {
        if let e = FileManager.default.enumerator(atPath: url.path) {
            for case let p as String in e {
                try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.appendingPathComponent(p).path)
            }
        }
        try? FileManager.default.removeItem(at: url)
    }
}
