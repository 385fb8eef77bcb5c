import Foundation
import Testing

@testable import CoreStack

/// A store's support folder (`.<StoreName>_SUPPORT`, Core Data's external binary data) goes with
/// the store: `StoreLocation.destroyStore(at:)` deletes it, `StoreLocation.quarantineStore(at:)`
/// moves it aside under the quarantined store's name.
@Suite struct StoreSupportFolderTests {
    private let fm = FileManager.default

    private func exists(_ url: URL) -> Bool { (try? fm.attributesOfItem(atPath: url.path)) != nil }

    /// The photo store of ``ExternalBinaryDataTests/makeStore()`` and a symbolic link to it, named
    /// like it, in a folder of its own (the caller removes both folders).
    private func linkedStore() throws -> (target: URL, link: URL) {
        let target = try ExternalBinaryDataTests.makeStore()
        let link = try Fixtures.temporaryFolder().appendingPathComponent("Photos.sqlite")
        try fm.createSymbolicLink(at: link, withDestinationURL: target)
        return (target, link)
    }

    @Test("destroying a store deletes its .<Name>_SUPPORT folder, and a new store at the same path finds no stale external file")
    func destroyDeletesSupportFolder() throws {
        let url = try ExternalBinaryDataTests.makeStore()
        defer { try? fm.removeItem(at: url.deletingLastPathComponent()) }
        let support = SQLiteExternalBinaryData.supportFolder(forStoreAt: url)
        #expect(support.lastPathComponent == ".Photos_SUPPORT")
        #expect(exists(SQLiteExternalBinaryData.folder(forStoreAt: url).appendingPathComponent(ExternalBinaryDataTests.present)))
        try StoreLocation.destroyStore(at: url)
        #expect(!exists(url))
        #expect(!exists(support), ".Photos_SUPPORT is left beside the destroyed store")
        // Destroying again (nothing there) is fine.
        try StoreLocation.destroyStore(at: url)
    }

    @Test("destroying a store through a symbolic link deletes the support folder beside the target; a folder beside the link is not the store's and stays")
    func destroyThroughLinkDeletesTargetSupportFolder() throws {
        let (target, link) = try linkedStore()
        defer {
            try? fm.removeItem(at: target.deletingLastPathComponent())
            try? fm.removeItem(at: link.deletingLastPathComponent())
        }
        let besideLink = SQLiteExternalBinaryData.supportFolder(forStoreAt: link)
        try fm.createDirectory(at: besideLink, withIntermediateDirectories: true)
        try StoreLocation.destroyStore(at: link)
        #expect(!exists(target))
        #expect(!exists(SQLiteExternalBinaryData.supportFolder(forStoreAt: target)), "the target's .Photos_SUPPORT is left")
        #expect(exists(besideLink))
        #expect(try fm.destinationOfSymbolicLink(atPath: link.path) == target.path)
    }

    @Test("a store opened through a symbolic link reads its external values from the support folder beside the target (where its -wal and -shm go)")
    func readThroughLinkUsesTargetSupportFolder() throws {
        let (target, link) = try linkedStore()
        defer {
            try? fm.removeItem(at: target.deletingLastPathComponent())
            try? fm.removeItem(at: link.deletingLastPathComponent())
        }
        let model = try ExternalBinaryDataTests.model()
        let store = try SQLiteStore(url: link, model: model)
        defer { store.close() }
        // Looked for beside the link before: "missing external data".
        #expect(try ExternalBinaryDataTests.values(store, model)["file"]?.image == .data(Data("the big picture".utf8)))
    }

    @Test("quarantining a store moves its support folder under the quarantined name: the moved store still reads its external values")
    func quarantineMovesSupportFolder() throws {
        let url = try ExternalBinaryDataTests.makeStore()
        defer { try? fm.removeItem(at: url.deletingLastPathComponent()) }
        let moved = try StoreLocation.quarantineStore(at: url)
        #expect(!exists(url))
        #expect(!exists(SQLiteExternalBinaryData.supportFolder(forStoreAt: url)), ".Photos_SUPPORT stayed at the old path")
        #expect(exists(SQLiteExternalBinaryData.supportFolder(forStoreAt: moved)))
        let model = try ExternalBinaryDataTests.model()
        let store = try SQLiteStore(url: moved, model: model)
        defer { store.close() }
        #expect(try ExternalBinaryDataTests.values(store, model)["file"]?.image == .data(Data("the big picture".utf8)))
    }

    @Test("a second quarantine in the same millisecond does not move a support folder onto the first one's")
    func quarantineSameStampKeepsSupportFolders() throws {
        let url = try ExternalBinaryDataTests.makeStore()
        defer { try? fm.removeItem(at: url.deletingLastPathComponent()) }
        let date = Date()
        let a = try StoreLocation.quarantineStore(at: url, date: date)
        // Only a support folder at the old path this time (no store file).
        let support = SQLiteExternalBinaryData.folder(forStoreAt: url)
        try fm.createDirectory(at: support, withIntermediateDirectories: true)
        try Data("second".utf8).write(to: support.appendingPathComponent("x"))
        let b = try StoreLocation.quarantineStore(at: url, date: date)
        #expect(a != b)
        #expect(fm.contents(atPath: SQLiteExternalBinaryData.folder(forStoreAt: b).appendingPathComponent("x").path) == Data("second".utf8))
        #expect(exists(SQLiteExternalBinaryData.folder(forStoreAt: a).appendingPathComponent(ExternalBinaryDataTests.present)))
    }
}
