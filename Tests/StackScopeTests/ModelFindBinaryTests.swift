import Foundation
import StackScope
import Testing

/// `stackscope model` and `stackscope find` run as the built binary: output, exit status, errors.
@Suite("model and find: the binary", .enabled(
    if: StackScopeBinary.url != nil,
    "the stackscope binary was not found next to the test bundle or in .build/debug: run `swift build` first"))
struct ModelFindBinaryTests {
    @Test("model prints Mermaid and DOT, writes a bundle once, and refuses an unknown format with status 64")
    func model() throws {
        let (url, _) = try TestSupport.demoStore(size: 40)
        let mermaid = try StackScopeBinary.run(["model", url.path, "--format", "mermaid"])
        #expect(mermaid.status == 0)
        #expect(mermaid.stdout.hasPrefix("classDiagram\n"))
        #expect(mermaid.stderr.isEmpty)
        let dot = try StackScopeBinary.run(["model", url.path, "--format", "dot"])
        #expect(dot.stdout.contains("digraph \"DemoLibrary\" {"))

        let bundle = try TestSupport.temporaryDirectory().appendingPathComponent("Library.xcdatamodeld").path
        let first = try StackScopeBinary.run(["model", url.path, "--format", "xcdatamodeld", "-o", bundle])
        #expect(first.status == 0)
        #expect(first.stdout == "wrote \(bundle): 8 entities (model: demo model)\n")
        let again = try StackScopeBinary.run(["model", url.path, "--format", "xcdatamodeld", "-o", bundle])
        #expect(again.status == 1)
        #expect(again.stderr == "stackscope: error: cannot write model \(bundle): it already exists; choose another path or remove it first\n")

        let png = try StackScopeBinary.run(["model", url.path, "--format", "png"])
        #expect(png.status == 64)
        #expect(png.stderr.contains("'dot', 'mermaid', 'json' or 'xcdatamodeld'"))
    }

    @Test("find lists the stores of a folder with a summary line; a missing folder is an error line and status 1")
    func find() throws {
        let (url, summary) = try TestSupport.demoStore(size: 40)
        let folder = url.deletingLastPathComponent().path
        let result = try StackScopeBinary.run(["find", folder])
        #expect(result.status == 0)
        let row = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix(url.path) })
        let cells = row.split(separator: " ").map(String.init)
        #expect(cells.contains("stored"))
        #expect(cells.contains(String(summary.counts.values.reduce(0, +))))
        #expect(result.stdout.hasSuffix("1 store; 1 folder searched, 1 file examined.\n"))
        let json = try #require(try TestSupport.parseJSON(try StackScopeBinary.run(["find", folder, "--json"]).stdout) as? [String: Any])
        #expect((json["stores"] as? [[String: Any]])?.first?["path"] as? String == url.path)

        let missing = folder + "/nowhere"
        let error = try StackScopeBinary.run(["find", missing])
        #expect(error.status == 1)
        #expect(error.stderr == "stackscope: error: no folder or file at \(missing) to search\n")
    }
}
