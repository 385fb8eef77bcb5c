import Foundation
import Testing

/// Issue 35, the way SQLite tests itself: `corestack-torture` starts writers, readers, short-lived
/// openers (`stackscope info` and `dump` among them) and browsers in tmux on new stores, kills
/// some with SIGKILL, and checks that every acknowledged commit is in the file and seen by every
/// surviving process, that `integrity_check` passes and that no process held a deleted `-wal` or
/// `-shm`. A short, gentle run here (no CPU burner: the suite's other tests run beside it and some
/// wait on the main queue with time limits); `.ci/run` runs it alone for a minute, a burner a core.
@Suite("many processes on one store", .enabled(if: TortureBinary.url != nil, "needs corestack-torture, stackscope, tmux and sqlite3"))
struct ManyProcessesTortureTests {
    /// The number before `label` in the run's summary line ("12 rounds, 579 processes …").
    private func count(_ label: String, in text: String) -> Int? {
        guard let range = text.range(of: " " + label, options: .backwards) else { return nil }
        let digits = text[..<range.lowerBound].reversed().prefix { $0.isNumber || $0 == "," }
        return Int(String(digits.reversed()).replacingOccurrences(of: ",", with: ""))
    }

    @Test("eight seconds of writers, readers, openers and browsers started together on new stores, with kill -9: no acknowledged commit lost or hidden, no deleted side file held, every file whole")
    func tortureRunFindsNothing() throws {
        let torture = try #require(TortureBinary.url)
        let stackscope = try #require(StackScopeBinary.url)
        let folder = try TestSupport.temporaryDirectory().appendingPathComponent("torture", isDirectory: true)
        let result = try StackScopeBinary.run(
            executable: torture.path,
            ["run", "--seed", "7", "--seconds", "8", "--burners", "0", "--stackscope", stackscope.path, "--folder", folder.path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("no acknowledged commit lost or hidden, no deleted side file held"), "\(result.stdout)")
        // The run did the work it reports on.
        #expect((count("rounds", in: result.stdout) ?? 0) >= 2, "\(result.stdout)")
        #expect((count("acknowledged commits", in: result.stdout) ?? 0) > 0, "\(result.stdout)")
        #expect((count("browsers)", in: result.stdout) ?? 0) > 0, "\(result.stdout)")
        #expect((count("end-of-round checks", in: result.stdout) ?? 0) > 0, "\(result.stdout)")
    }
}

/// The `corestack-torture` executable beside `stackscope`, when it and the tools it drives are there.
enum TortureBinary {
    static let url: URL? = {
        guard let stackscope = StackScopeBinary.url,
            FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")
        else { return nil }
        let url = stackscope.deletingLastPathComponent().appendingPathComponent("corestack-torture")
        return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
    }()
}
