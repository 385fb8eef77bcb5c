import Foundation
import TestSupportKit

extension Fixtures {
    /// Copies the store at `relative` (inside `Tests/Fixtures`), with its `-wal` and `-shm` files when
    /// present, into a fresh temporary folder and returns the copy's URL. Tests open copies only:
    /// SQLite folds a `-wal` into the main file when it opens a store for writing.
    static func copyStore(_ relative: String) throws -> URL {
        let source = url(relative)
        let folder = try temporaryFolder()
        let destination = folder.appendingPathComponent(source.lastPathComponent)
        try FileManager.default.copyItem(at: source, to: destination)
        for suffix in ["-wal", "-shm"] {
            let side = URL(fileURLWithPath: source.path + suffix)
            if FileManager.default.fileExists(atPath: side.path) {
                try FileManager.default.copyItem(at: side, to: URL(fileURLWithPath: destination.path + suffix))
            }
        }
        // Fixtures may be read-only on disk; the copies are the tests' to change.
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: folder.appendingPathComponent(file).path)
        }
        return destination
    }

    /// A fresh, empty temporary folder.
    static func temporaryFolder() throws -> URL {
        try TemporaryRoot.folder("store")
    }
}
