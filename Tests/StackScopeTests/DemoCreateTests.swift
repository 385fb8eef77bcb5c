import CoreStack
import Foundation
import StackScope
import Testing

/// `demo create` refuses to overwrite what exists unless forced, and labels its counts as `info` does.
@Suite struct DemoCreateTests {
    @Test("demo create onto an existing file (a demo store or any other file) refuses with alreadyExists and leaves it as it was")
    func refusesExisting() throws {
        let (url, _) = try TestSupport.demoStore(size: 20)
        let before = try TestSupport.checksum(url)
        #expect(throws: StackScopeError.alreadyExists(path: url.path)) { try DemoCommand.create(path: url.path, size: 40) }
        #expect(try TestSupport.checksum(url) == before)

        let notes = url.deletingLastPathComponent().appendingPathComponent("notes.txt")
        try Data("keep me".utf8).write(to: notes)
        #expect(throws: StackScopeError.alreadyExists(path: notes.path)) { try DemoCommand.create(path: notes.path, size: 20) }
        #expect(try Data(contentsOf: notes) == Data("keep me".utf8))
        #expect(StackScopeError.alreadyExists(path: "/tmp/x").description == "/tmp/x already exists; choose another path, or pass --force to replace it")
    }

    @Test("demo create --force replaces an existing demo store or other file, with its -wal and -shm; a folder is refused even then")
    func forceReplaces() throws {
        let (url, first) = try TestSupport.demoStore(size: 20)
        let oldUUID = try SQLiteStore.metadata(at: url).storeUUID
        let line = try DemoCommand.create(path: url.path, size: 40, force: true)
        #expect(line.hasPrefix("Created \(url.path): "))
        #expect(try SQLiteStore.metadata(at: url).storeUUID != oldUUID)
        #expect(try InfoCommand.info(storePath: url.path).entities.reduce(0) { $0 + ($1.superentity == nil ? $1.count : 0) } > first.total)

        let notes = url.deletingLastPathComponent().appendingPathComponent("notes.sqlite")
        try Data("not a store".utf8).write(to: notes)
        try Data("stale".utf8).write(to: URL(fileURLWithPath: notes.path + "-wal"))
        _ = try DemoCommand.create(path: notes.path, size: 20, force: true)
        #expect(try SQLiteStore.metadata(at: notes).storeType == "SQLite")

        let folder = url.deletingLastPathComponent().appendingPathComponent("folder.sqlite", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        #expect(throws: StackScopeError.notAFile(path: folder.path)) { try DemoCommand.create(path: folder.path, size: 20, force: true) }
    }

    @Test("demo create --force refuses while another process (the sqlite3 shell) has the store open, says so, and leaves the store as it was")
    func forceRefusesAStoreInUse() throws {
        let (url, _) = try TestSupport.demoStore(size: 20)
        let before = try TestSupport.checksum(url)
        let other = Process()
        other.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        other.arguments = [url.path]
        let input = Pipe(), output = Pipe()
        other.standardInput = input
        other.standardOutput = output
        try other.run()
        input.fileHandleForWriting.write(Data("SELECT count(*) FROM Z_PRIMARYKEY;\n".utf8))
        _ = output.fileHandleForReading.availableData
        #expect {
            try DemoCommand.create(path: url.path, size: 40, force: true)
        } throws: { error in
            guard case let CoreStackError.storeInUse(path, action) = error else { return false }
            return path == url.resolvingSymlinksInPath().path && action.contains("--force")
                && StackScopeErrorMessage.line(for: error).hasPrefix("another process has this store open")
        }
        #expect(try TestSupport.checksum(url) == before)
        try input.fileHandleForWriting.close()
        other.waitUntilExit()
    }

    @Test("a store made by demo create keeps persistent history, as the demo store in the cache folder does: the browser's saves on it are recorded")
    func demoCreateKeepsHistory() throws {
        let url = try TestSupport.temporaryDirectory().appendingPathComponent("library.sqlite")
        _ = try DemoCommand.create(path: url.path, size: 20)
        let store = try SQLiteStore(url: url, model: try DemoLibrary.model(), readOnly: true)
        #expect(try store.hasPersistentHistory())
        store.close()
    }

    @Test("the summary shows each entity's own count and, for a parent entity, the count with sub-entities that info shows")
    func countsMatchInfo() throws {
        let url = try TestSupport.temporaryDirectory().appendingPathComponent("library.sqlite")
        let line = try DemoCommand.create(path: url.path, size: 150)
        let info = try InfoCommand.info(storePath: url.path)
        let model = try DemoLibrary.model()
        var checked = 0
        for entity in model.entities where !entity.subentities.isEmpty {
            let all = try #require(info.entities.first { $0.name == entity.name }?.count)
            #expect(line.contains("\(all) with sub-entities"), "\(entity.name): info says \(all); summary: \(line)")
            checked += 1
        }
        #expect(checked > 0)
        for entity in model.entities where entity.subentities.isEmpty {
            let count = try #require(info.entities.first { $0.name == entity.name }?.count)
            #expect(line.contains("\(entity.name) \(count)"), "\(entity.name) \(count) in \(line)")
        }
    }

    @Test("the demo store indexes Book.title: the top rows by title come from the index, not a sort of every book")
    func titleIndexed() throws {
        let (url, _) = try TestSupport.demoStore(size: 200)
        let indexes = try StoreOwnModelTests.sqlite3("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ZBOOK'", url)
        #expect(indexes.contains("ZBOOK_ZTITLE_INDEX"))
        let plan = try StoreOwnModelTests.sqlite3("EXPLAIN QUERY PLAN SELECT Z_PK FROM ZBOOK ORDER BY ZTITLE LIMIT 10", url).joined(separator: "\n")
        #expect(plan.contains("ZBOOK_ZTITLE_INDEX"), "\(plan)")
        #expect(!plan.contains("TEMP B-TREE"), "\(plan)")
    }
}
