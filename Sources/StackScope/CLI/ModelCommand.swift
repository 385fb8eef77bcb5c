import CoreStack
import Foundation

/// `stackscope model STORE [--model M] --format dot|mermaid|json|xcdatamodeld [-o PATH]`: the model
/// a store is read with (the one given, else the one it carries, else the one inferred from its
/// tables, as `info` chooses) drawn as Graphviz DOT or Mermaid, listed as JSON, or written as an
/// `.xcdatamodeld` bundle Xcode opens.
///
/// ```swift
/// let result = try ModelCommand.run(storePath: "App.sqlite", modelPath: nil, format: .mermaid, outputPath: nil)
/// print(result.output, terminator: "")          // classDiagram …
/// try ModelCommand.run(storePath: "App.sqlite", modelPath: nil, format: .xcdatamodeld, outputPath: "Recovered.xcdatamodeld")
/// ```
public enum ModelCommand {
    /// What the command produced.
    public struct Result: Sendable, Equatable {
        /// What goes to standard output: the rendering, or (with `-o`, and for `.xcdatamodeld`) a
        /// line saying what was written where.
        public var output: String
        /// One-line notes about the choice of model (for standard error), as `info` gives them.
        public var warnings: [String]
    }

    /// Draws or writes the model of the store at `storePath`, opened read-only.
    ///
    /// ```swift
    /// let dot = try ModelCommand.run(storePath: "App.sqlite", modelPath: nil, format: .dot, outputPath: nil).output
    /// ```
    ///
    /// - Parameters:
    ///   - storePath: the store whose model is drawn.
    ///   - modelPath: a model file to use instead of the one `info` would choose; nil lets it choose.
    ///   - format: DOT, Mermaid, JSON or an `.xcdatamodeld` bundle.
    ///   - outputPath: where to write; nil prints DOT, Mermaid and JSON on standard output and writes
    ///     the bundle as `STORENAME.xcdatamodeld` in the current folder. For `.xcdatamodeld`, a
    ///     path that is an existing folder (not itself a bundle) receives `STORENAME.xcdatamodeld`.
    ///   - currentDirectory: the folder relative paths start from.
    ///   - files: how store files are opened (the real file system by default).
    /// - Throws: the errors of ``StoreSession/open(storePath:modelPath:files:)``;
    ///   `CoreStackError/modelNotWritten(path:reason:)` when the bundle's path exists or cannot be
    ///   written; ``StackScopeError/cannotWrite(path:reason:)`` when the output file cannot be written.
    public static func run(
        storePath: String, modelPath: String?, format: ModelFormat, outputPath: String?,
        currentDirectory: String = FileManager.default.currentDirectoryPath,
        files: any StoreFileAccess = StoreFiles.standard
    ) throws -> Result {
        let session = try StoreSession.open(storePath: storePath, modelPath: modelPath, files: files)
        defer { session.close() }
        let model = session.model
        let storeName = URL(fileURLWithPath: storePath).deletingPathExtension().lastPathComponent
        let graph = ModelGraph(model: model)
        let text: String
        switch format {
        case .dot:
            text = ModelGraphDOT.render(graph, name: model.versionName ?? storeName)
        case .mermaid:
            text = ModelGraphMermaid.render(graph)
        case .json:
            text = ModelGraphJSON.render(
                graph, name: model.versionName ?? storeName, version: session.modelVersion, source: session.modelSource)
        case .xcdatamodeld:
            let url = bundleURL(outputPath, storeName: storeName, currentDirectory: currentDirectory)
            try XcodeModelWriter.writeBundle(model, to: url)
            let entities = model.entities.count
            return Result(
                output: "wrote \(url.path): \(entities) \(entities == 1 ? "entity" : "entities") (model: \(session.modelSource))\n",
                warnings: session.warnings)
        }
        guard let outputPath else { return Result(output: text, warnings: session.warnings) }
        let url = URL(fileURLWithPath: outputPath, relativeTo: URL(fileURLWithPath: currentDirectory, isDirectory: true))
        // `-o` naming the store itself (or a link to it) would replace the store with a picture.
        let target = url.standardizedFileURL.resolvingSymlinksInPath().path
        let store = URL(fileURLWithPath: storePath, relativeTo: URL(fileURLWithPath: currentDirectory, isDirectory: true))
            .standardizedFileURL.resolvingSymlinksInPath().path
        if [store, store + "-wal", store + "-shm"].contains(target) {
            throw StackScopeError.cannotWrite(path: url.path, reason: "it is the store being read (or one of its side files)")
        }
        do {
            try Data(text.utf8).write(to: url, options: .atomic)
        } catch {
            throw StackScopeError.cannotWrite(path: url.path, reason: (error as NSError).localizedDescription)
        }
        return Result(output: "wrote \(url.path)\n", warnings: session.warnings)
    }

    /// Where the bundle goes: `outputPath` (a folder that exists and is not a bundle gets
    /// `STORENAME.xcdatamodeld` inside), else `STORENAME.xcdatamodeld` in the current folder.
    static func bundleURL(_ outputPath: String?, storeName: String, currentDirectory: String) -> URL {
        let base = URL(fileURLWithPath: currentDirectory, isDirectory: true)
        let fileName = storeName + ".xcdatamodeld"
        guard let outputPath else { return base.appendingPathComponent(fileName) }
        let url = URL(fileURLWithPath: outputPath, relativeTo: base).standardizedFileURL
        var isDirectory: ObjCBool = false
        if url.pathExtension != "xcdatamodeld", FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory),
            isDirectory.boolValue
        {
            return url.appendingPathComponent(fileName)
        }
        return url
    }
}
