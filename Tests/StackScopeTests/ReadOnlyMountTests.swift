import Foundation
import StackScope
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

    @Test("a WAL-mode store with a -wal and no -shm on a read-only file system opens from a private snapshot copy (info says so), with the -wal's commits, and the folder is unchanged")
    func walStoreOnReadOnlyFileSystem() throws {
        let folder = try TestSupport.temporaryDirectory()
        let source = TestSupport.fixture("stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite")
        let url = folder.appendingPathComponent(source.lastPathComponent)
        for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: source.path + suffix, toPath: url.path + suffix) }
        let model = TestSupport.fixture("models/wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld").path
        // The counts as read from a writable copy of the same files.
        let writable = try TestSupport.temporaryDirectory()
        let copy = writable.appendingPathComponent(source.lastPathComponent)
        for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: source.path + suffix, toPath: copy.path + suffix) }
        let expected = try InfoCommand.info(storePath: copy.path, modelPath: model)
        let result = try Self.runReadOnly(folder, ["info", url.path, "--model", model])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Access:            read-only snapshot"), "\(result.stdout)")
        for entity in expected.entities {
            #expect(result.stdout.contains(entity.name), "\(entity.name) missing from \(result.stdout)")
        }
        let counts = expected.entities.map(\.count).reduce(0, +)
        #expect(counts > 0, "the fixture's -wal holds objects")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [url.lastPathComponent, url.lastPathComponent + "-wal"])
    }

    @Test("a WAL-mode store with no side files on a read-only file system opens immutable (info says so) and nothing is made beside it")
    func storeWithoutSideFilesOnReadOnlyFileSystem() throws {
        let folder = try TestSupport.temporaryDirectory()
        let source = TestSupport.fixture("stores/bnr-CoreDataStack/TestModel.sqlite")
        let url = folder.appendingPathComponent(source.lastPathComponent)
        try FileManager.default.copyItem(atPath: source.path, toPath: url.path)
        let model = TestSupport.fixture("models/bnr-CoreDataStack-2015/TestModel.xcdatamodeld").path
        let result = try Self.runReadOnly(folder, ["info", url.path, "--model", model])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Access:            read-only, immutable"), "\(result.stdout)")
        let dump = try Self.runReadOnly(folder, ["dump", url.path, "--model", model, "--entity", "Book"])
        #expect(dump.status == 0, "\(dump.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [url.lastPathComponent])
    }
}
