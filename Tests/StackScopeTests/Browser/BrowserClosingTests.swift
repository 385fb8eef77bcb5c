import CoreStack
import Foundation
import StackScope
import Testing

/// Quitting the browser closes every store it opened (the session's and the scratch contexts' own
/// coordinators'), so SQLite removes the `-wal` and `-shm` beside the file even though the process
/// ends with `exit`, which frees nothing.
@Suite struct BrowserClosingTests {
    /// A copy of the bnr fixture (WAL mode, no -wal) in a fresh folder, and its model's path.
    private func storeCopy() throws -> (folder: URL, url: URL, model: String) {
        let folder = try TestSupport.temporaryDirectory()
        let source = TestSupport.fixture("stores/bnr-CoreDataStack/TestModel.sqlite")
        let url = folder.appendingPathComponent(source.lastPathComponent)
        try FileManager.default.copyItem(at: source, to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
        return (folder, url, TestSupport.fixture("models/bnr-CoreDataStack-2015/TestModel.xcdatamodeld").path)
    }

    private func names(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    @Test(":q in a browser on a store it opened writable, with a context on its own coordinator, leaves no -wal or -shm; the session's store is closed", arguments: [false, true])
    func quitLeavesOnlyTheStoreFile(_ readOnly: Bool) throws {
        let (folder, url, model) = try storeCopy()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = try BrowserSession.open(storePath: url.path, modelPath: model, readOnly: readOnly)
        let harness = try BrowserHarness(session: session)
        if !readOnly {
            harness.type(":ctx new coordinator")
            harness.press("Enter")
            harness.waitUntilIdle()
            #expect(harness.screen.contains("scratch-1"), "the scratch context on its own coordinator opened")
        }
        #expect(try names(folder).contains(url.lastPathComponent + "-shm"), "SQLite made side files while browsing")
        harness.type(":q")
        harness.press("Enter")
        harness.waitUntilIdle()
        let left = try names(folder)
        #expect(left == [url.lastPathComponent])
        #expect(session.coordinator.persistentStore == nil, "the store left the session's coordinator")
    }
}

/// Another process replacing the store file under an open browser (the demo's `:reset` in a second
/// stackscope): noticed by the remote-change monitor, with the message `R` gives, without `R`.
@Suite struct BrowserReplacedFileTests {
    @Test("a store file replaced by another (a new inode renamed over the path) shows R's 'replaced by another file' message by itself")
    func replacedFileNoticed() throws {
        let folder = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = TestSupport.fixture("stores/bnr-CoreDataStack/TestModel.sqlite")
        let url = folder.appendingPathComponent("TestModel.sqlite")
        try FileManager.default.copyItem(at: source, to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
        let model = TestSupport.fixture("models/bnr-CoreDataStack-2015/TestModel.xcdatamodeld").path
        let session = try BrowserSession.open(storePath: url.path, modelPath: model, readOnly: false)
        let harness = try BrowserHarness(session: session)
        defer { harness.onMain { _ = harness.program.shutDown() } }
        let copy = folder.appendingPathComponent("new.sqlite")
        try FileManager.default.copyItem(at: source, to: copy)
        #expect(rename(copy.path, url.path) == 0)
        // The status line holds R's message whole (the screen cuts it at the terminal's width).
        let noticed = harness.waitUntil(timeout: 30) { $0.status.message?.contains("was replaced by another file while open") == true }
        #expect(noticed, "status: \(harness.state.status.message ?? "")")
        // The saves pane says what happened, not that something was committed.
        #expect(harness.state.saves.entries.contains { $0.note?.contains("put another file at the store's path") == true })
    }
}
