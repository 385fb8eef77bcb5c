import Foundation
import Testing

@testable import CoreStack

/// Issue 35: a process that closes a store must never remove a `-wal` or `-shm` that another
/// process is about to use. SQLite opens a WAL-mode store by taking a SHARED lock on the store
/// file, then opening the `-wal` and the `-shm`, and only then locking the `-shm`: a process
/// caught in between holds no lock on the `-shm` at all. CoreStack used to look for locks on the
/// `-shm` (in `/proc/locks`) and, finding none, delete it; the other process then ran on a WAL
/// index no one else saw. The half-opened process here is `corestack-torture half-open`.
@Suite struct HalfOpenedStoreTests {
    /// Starts `corestack-torture half-open` on `url` and waits until it is half way open.
    private func halfOpen(_ url: URL) throws -> (process: Process, input: Pipe, output: Pipe) {
        let process = Process()
        process.executableURL = try ProbeExecutable.url(named: "corestack-torture")
        process.arguments = ["half-open", url.path]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var text = ""
        while !text.contains("\n") {
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { break }
            text += String(decoding: data, as: UTF8.self)
        }
        #expect(text == "ready\n", "the half-open process said: \(text)")
        return (process, input, output)
    }

    /// Lets the half-opened process finish and returns what it found: "kept" or "deleted".
    private func finish(_ child: (process: Process, input: Pipe, output: Pipe)) throws -> String {
        try child.input.fileHandleForWriting.close()
        let data = child.output.fileHandleForReading.readDataToEndOfFile()
        child.process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("a read-only store that closes while another process is half way through opening the store (its SHARED lock taken, its -shm open but not locked) leaves that -shm in place")
    func readOnlyCloseKeepsTheOtherProcessesSHM() throws {
        let url = try Fixtures.copyStore("stores/bnr-CoreDataStack/TestModel.sqlite")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let bundle = try XcodeModelReader.readBundle(at: Fixtures.url("models/bnr-CoreDataStack-2015/TestModel.xcdatamodeld"))
        let child: (process: Process, input: Pipe, output: Pipe)
        do {
            let store = try SQLiteStore.open(url: url, bundle: bundle, readOnly: true)
            _ = try store.storeEntities()
            #expect(FileManager.default.fileExists(atPath: url.path + "-shm"), "SQLite made the -shm")
            child = try halfOpen(url)
            store.close()
        }
        #expect(try finish(child) == "kept", "the -shm the other process had open was removed")
        #expect(FileManager.default.fileExists(atPath: url.path + "-shm"))
    }

    @Test("a read-write store that closes last in its process leaves the -shm of a half-opened process in place, and a read-only inspection (stackscope info's first step) too")
    func writerAndInspectionKeepTheOtherProcessesSHM() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Notes.sqlite")
        let model = try ManagedObjectModel {
            EntityDescription("Note") { AttributeDescription("text", .string) }
        }
        try SQLiteStore(url: url, model: model).close()
        #expect(!FileManager.default.fileExists(atPath: url.path + "-shm"), "SQLite removed its side files at the last close")
        let child: (process: Process, input: Pipe, output: Pipe)
        do {
            let store = try SQLiteStore(url: url, model: model)
            _ = try store.storeEntities()
            child = try halfOpen(url)
            _ = try SQLiteStore.metadata(at: url)
            store.close()
        }
        #expect(try finish(child) == "kept", "the -shm the other process had open was removed")
    }
}
