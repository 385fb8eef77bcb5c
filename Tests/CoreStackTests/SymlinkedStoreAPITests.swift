import Foundation
import Testing

@testable import CoreStack

/// A store reached through a symbolic link, at the API level: the target is the file opened,
/// read, closed, migrated and quarantined (its `-wal` and `-shm` sit beside it, as SQLite puts
/// them), and the link stays a link.
@Suite struct SymlinkedStoreAPITests {
    /// A copy of the fixture `relative` in a folder of its own, and a link to it in another folder.
    private func linked(_ relative: String) throws -> (link: URL, target: URL) {
        let target = try Fixtures.copyStore(relative)
        let link = try Fixtures.temporaryFolder().appendingPathComponent("link.sqlite")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        return (link, target)
    }

    private func names(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    private func cleanUp(_ link: URL, _ target: URL) {
        try? FileManager.default.removeItem(at: link.deletingLastPathComponent())
        try? FileManager.default.removeItem(at: target.deletingLastPathComponent())
    }

    @Test("a read-only SQLiteStore opened through a link, read and closed, leaves both folders as found (no -wal or -shm beside the target)")
    func readOnlyThroughLink() throws {
        let (link, target) = try linked("stores/bnr-CoreDataStack/TestModel.sqlite")
        defer { cleanUp(link, target) }
        let bundle = try XcodeModelReader.readBundle(at: Fixtures.url("models/bnr-CoreDataStack-2015/TestModel.xcdatamodeld"))
        let before = try names(target.deletingLastPathComponent())
        do {
            let store = try SQLiteStore.open(url: link, bundle: bundle, readOnly: true)
            for entity in store.model.entities { _ = try store.fetch(StoreFetchRequest(entity: entity)) }
            #expect(store.url == link)
            store.close()
            #expect(try names(target.deletingLastPathComponent()) == before)
        }
        // Released without close() too.
        do {
            let store = try SQLiteStore.open(url: link, bundle: bundle, readOnly: true)
            _ = try store.storeEntities()
        }
        #expect(try names(target.deletingLastPathComponent()) == before)
        #expect(try names(link.deletingLastPathComponent()) == ["link.sqlite"])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path)
    }

    @Test("SQLiteMigration.migrateStore through a link migrates the target in place, and the link stays a link to it")
    func migrateThroughLink() throws {
        let (link, target) = try linked("stores/bnr-CoreDataStack/TestModel.sqlite")
        defer { cleanUp(link, target) }
        let bundle = try XcodeModelReader.readBundle(at: Fixtures.url("models/bnr-CoreDataStack/Sample.xcdatamodeld"))
        let plans = try SQLiteMigration.migrateStore(at: link, to: bundle)
        #expect(!plans.isEmpty)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path)
        #expect(try names(link.deletingLastPathComponent()) == ["link.sqlite"])
        // The target is the migrated store: it opens with the current version for writing.
        let store = try SQLiteStore(url: target, model: bundle.currentVersion)
        store.close()
    }

    @Test("quarantining a store through a link moves the target aside, not the link")
    func quarantineThroughLink() throws {
        let (link, target) = try linked("stores/bnr-CoreDataStack/TestModel.sqlite")
        defer { cleanUp(link, target) }
        let moved = try StoreLocation.quarantineStore(at: link)
        #expect(moved.deletingLastPathComponent().path == target.deletingLastPathComponent().path)
        #expect(!FileManager.default.fileExists(atPath: target.path))
        #expect(FileManager.default.fileExists(atPath: moved.path))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path)
    }

    @Test("destroying a store through a link deletes the target and its -wal, -shm and -journal, leaves the link, and a store created through the link again is made at the target")
    func destroyThroughLink() throws {
        let (link, target) = try linked("stores/bnr-CoreDataStack/TestModel.sqlite")
        defer { cleanUp(link, target) }
        let fm = FileManager.default
        for suffix in ["-wal", "-shm", "-journal"] { try Data("side\(suffix)".utf8).write(to: URL(fileURLWithPath: target.path + suffix)) }
        // A file beside the link with a side file's name is not the store's.
        try Data("unrelated".utf8).write(to: URL(fileURLWithPath: link.path + "-wal"))
        try StoreLocation.destroyStore(at: link)
        for suffix in StoreLocation.fileSuffixes {
            #expect(!fm.fileExists(atPath: target.path + suffix), "\(target.lastPathComponent)\(suffix) is left")
        }
        #expect(try fm.destinationOfSymbolicLink(atPath: link.path) == target.path)
        #expect(fm.contents(atPath: link.path + "-wal") == Data("unrelated".utf8))
        // A new store through the link (a stack's reset does this) is the target again.
        let model = try LibraryStore.model()
        let store = try SQLiteStore(url: link, model: model)
        store.close()
        #expect(try fm.destinationOfSymbolicLink(atPath: link.path) == target.path)
        #expect(try SQLiteStore.metadata(at: target).versionHashes.keys.sorted() == model.entityVersionHashes.keys.sorted())
    }
}
