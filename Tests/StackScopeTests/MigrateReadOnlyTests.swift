import Foundation
import Testing

/// `stackscope migrate` on a store it cannot write: the error names the store and its folder and
/// says what to do, not the hidden scratch file the migration would have made.
@Suite("migrate on a read-only file system", .enabled(if: MountNamespace.available && StackScopeBinary.url != nil,
    "needs `unshare -m` with mount rights and the stackscope binary"))
struct MigrateReadOnlyTests {
    @Test("a store on a read-only mount: exit 1, the message names the folder and says to copy the store; nothing changes")
    func readOnlyFolder() throws {
        let url = try StoreOwnModelTests.copy(["wibosco-CoreDataMigration-Example/CoreDataMigration_Example_3.sqlite"])
        let folder = url.deletingLastPathComponent()
        let before = try TestSupport.checksum(url)
        let model = TestSupport.fixture("models/wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld").path
        let r = try ReadOnlyMountTests.runReadOnly(folder, ["migrate", url.path, "--model", model])
        #expect(r.status == 1, "\(r.status) \(r.stderr)")
        #expect(r.stderr.hasPrefix("stackscope: error: cannot migrate \(url.path): "), "\(r.stderr)")
        #expect(r.stderr.contains("\(folder.path) cannot be written"), "\(r.stderr)")
        #expect(r.stderr.contains("copy"), "\(r.stderr)")
        #expect(!r.stderr.contains(".migrating"), "\(r.stderr)")
        // A dry run writes nothing, so it still works there.
        let dry = try ReadOnlyMountTests.runReadOnly(folder, ["migrate", url.path, "--model", model, "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(try TestSupport.checksum(url) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [url.lastPathComponent])
    }
}
