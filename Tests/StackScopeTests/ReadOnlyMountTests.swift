import Foundation
import Testing

/// Stores on a read-only file system, made with a read-only bind mount in a mount namespace of
/// their own (`unshare -m`, which needs root or CAP_SYS_ADMIN: skipped elsewhere).
@Suite("stackscope on a read-only file system", .enabled(if: MountNamespace.available && StackScopeBinary.url != nil,
    "needs `unshare -m` with mount rights and the stackscope binary"))
struct ReadOnlyMountTests {
    /// Runs stackscope with `arguments` while `folder` is mounted read-only.
    static func runReadOnly(_ folder: URL, _ arguments: [String]) throws -> StackScopeBinary.Result {
        let binary = try #require(StackScopeBinary.url)
        let quoted = ([binary.path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let f = "'" + folder.path + "'"
        return try StackScopeBinary.run(
            executable: "/usr/bin/unshare",
            ["-m", "sh", "-c", "mount --bind \(f) \(f) && mount -o remount,ro,bind \(f) \(f) && exec \(quoted)"])
    }

    @Test("a WAL-mode store whose -shm cannot be made: the error says why and to copy the store (with its -wal) elsewhere; the folder is unchanged")
    func walStoreOnReadOnlyFileSystem() throws {
        let folder = try TestSupport.temporaryDirectory()
        let source = TestSupport.fixture("stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite")
        let url = folder.appendingPathComponent(source.lastPathComponent)
        for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: source.path + suffix, toPath: url.path + suffix) }
        let model = TestSupport.fixture("models/wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld").path
        let result = try Self.runReadOnly(folder, ["info", url.path, "--model", model])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("stackscope: error: "))
        #expect(result.stderr.contains("cannot be written (read-only folder or file system)"), "\(result.stderr)")
        #expect(result.stderr.contains("Copy CoreDataMigration_Example_WAL.sqlite and CoreDataMigration_Example_WAL.sqlite-wal to a writable folder"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [url.lastPathComponent, url.lastPathComponent + "-wal"])
    }
}
