import Foundation
import Testing

/// The built `stackscope` executable, next to the test bundle in the build products folder.
enum StackScopeBinary {
    static let url: URL? = {
        var candidates: [URL] = []
        let bundle = Bundle.main.bundleURL
        candidates.append(bundle.appendingPathComponent("stackscope"))
        candidates.append(bundle.deletingLastPathComponent().appendingPathComponent("stackscope"))
        for testBundle in Bundle.allBundles where testBundle.bundleURL.pathExtension == "xctest" {
            candidates.append(testBundle.bundleURL.deletingLastPathComponent().appendingPathComponent("stackscope"))
        }
        candidates.append(TestSupport.repoRoot.appendingPathComponent(".build/debug/stackscope"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs the binary with `arguments`, output captured through files (no pipe can fill up).
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        try run(executable: try #require(url).path, arguments, environment: environment)
    }

    /// Runs `executable` (the binary, or a program that runs it) with `arguments`.
    static func run(executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        let binary = URL(fileURLWithPath: executable)
        let dir = try TestSupport.temporaryDirectory()
        let out = dir.appendingPathComponent("stdout")
        let err = dir.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: out), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self))
    }
}

@Suite("stackscope binary", .enabled(
    if: StackScopeBinary.url != nil,
    "the stackscope binary was not found next to the test bundle or in .build/debug: run `swift build` first"))
struct EndToEndTests {
    @Test("demo create, info --json, dump --json, and an error exit")
    func endToEnd() throws {
        let store = try TestSupport.temporaryDirectory().appendingPathComponent("library.sqlite").path

        let created = try StackScopeBinary.run(["demo", "create", store, "--size", "150"])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.hasPrefix("Created \(store): "))
        #expect(created.stderr.isEmpty)

        let info = try StackScopeBinary.run(["info", store, "--json"])
        #expect(info.status == 0, "\(info.stderr)")
        let json = try #require(try TestSupport.parseJSON(info.stdout) as? [String: Any])
        let uuid = try #require(json["storeUUID"] as? String)
        #expect(UUID(uuidString: uuid) != nil)
        let entities = try #require(json["entities"] as? [[String: Any]])
        let counts = Dictionary(uniqueKeysWithValues: entities.compactMap { e in
            (e["name"] as? String).map { ($0, e["count"] as? Int ?? -1) }
        })
        #expect(counts["Book"] == 15)
        #expect(counts["GraphicNovel"] == 3)
        #expect(counts["Person"] == (counts["Author"] ?? 0) + (counts["Editor"] ?? 0))

        let dump = try StackScopeBinary.run(["dump", store, "--entity", "Author", "--sort", "name", "--limit", "4", "--json"])
        #expect(dump.status == 0, "\(dump.stderr)")
        let authors = try #require(try TestSupport.parseJSON(dump.stdout) as? [[String: Any]])
        #expect(authors.count == 4)
        #expect(authors.allSatisfy { ($0["objectID"] as? String)?.hasPrefix("x-coredata://\(uuid)/Author/p") == true })
        #expect(authors.allSatisfy { ($0["relationships"] as? [String: Any])?["books"] is [String] })

        let missing = try StackScopeBinary.run(["dump", store, "--entity", "Bok"])
        #expect(missing.status != 0)
        #expect(missing.stdout.isEmpty)
        #expect(missing.stderr.hasPrefix("stackscope: error: the model has no entity named \"Bok\""))
        #expect(missing.stderr.split(separator: "\n").count == 1)

        let noFile = try StackScopeBinary.run(["info", store + ".missing"])
        #expect(noFile.status == 1)
        #expect(noFile.stderr == "stackscope: error: no store at \(store).missing: the file does not exist\n")
    }

    @Test("without a terminal the browser says so before touching anything; --help lists the commands")
    func help() throws {
        let cache = try TestSupport.temporaryDirectory()
        let result = try StackScopeBinary.run([], environment: ["XDG_CACHE_HOME": cache.path])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("stackscope: error: the browser needs a terminal"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache.path).isEmpty)  // no demo store made
        let help = try StackScopeBinary.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: stackscope <subcommand>"))
        for name in ["browse", "info", "dump", "migrate", "demo"] { #expect(help.stdout.contains(name)) }
    }
}
