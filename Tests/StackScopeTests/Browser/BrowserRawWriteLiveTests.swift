import CoreStack
import Foundation
import StackScope
import Testing

/// The real `stackscope` binary in tmux, on a store another process writes with `sqlite3` (no
/// persistent history added): the browser shows the write live, without `R`, and quitting leaves
/// no `-wal` or `-shm` beside the store.
@Suite("browser: raw writes live, and a clean folder after quitting", .serialized, .enabled(if: Tmux.isAvailable && StackScopeBinary.url != nil))
struct BrowserRawWriteLiveTests {
    var binary: String { StackScopeBinary.url?.path ?? "stackscope" }

    private func sqlite3(_ store: URL, _ sql: String) throws {
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sqlite.arguments = ["sqlite3", store.path, sql]
        try sqlite.run()
        sqlite.waitUntilExit()
        try #require(sqlite.terminationStatus == 0, "sqlite3 is needed (apt-get install sqlite3)")
    }

    @Test("a sqlite3 UPDATE of every title in the demo store (which keeps persistent history) shows in the table without R; q leaves no -wal or -shm")
    func rawUpdateShowsLive() throws {
        let cache = try TestSupport.temporaryDirectory()
        let tmux = try Tmux("bash --norc --noprofile", width: 120, height: 36, environment: ["XDG_CACHE_HOME": cache.path])
        defer { tmux.kill() }
        try tmux.waitFor(text: Tmux.prompt.trimmingCharacters(in: .whitespaces), timeout: 30)
        try tmux.sendLine(binary)
        try tmux.waitFor(text: "Book · ", timeout: 60)
        let files = FileManager.default.enumerator(atPath: cache.path)?.compactMap { $0 as? String } ?? []
        let name = try #require(files.first { $0.hasSuffix(".sqlite") })
        let store = cache.appendingPathComponent(name)
        let folder = store.deletingLastPathComponent()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).contains(store.lastPathComponent + "-wal"))
        // The demo store keeps persistent history; sqlite3 adds none to it.
        try sqlite3(store, "UPDATE ZBOOK SET ZTITLE = 'Raw Title ' || Z_PK")
        try tmux.waitUntil("the raw update in the table", timeout: 30) { $0.contains("Raw Title ") && $0.contains("Re-read the store") }
        try tmux.sendKeys("q")
        try tmux.waitFor(format: "#{alternate_on}", toBe: "0", timeout: 30)
        try tmux.sendLine("echo back-$((6*7))")
        try tmux.waitFor(text: "back-42", timeout: 30)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(!left.contains(store.lastPathComponent + "-wal") && !left.contains(store.lastPathComponent + "-shm"))
    }
}
