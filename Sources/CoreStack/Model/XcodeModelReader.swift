import Foundation

/// Reads the model files Xcode writes: `.xcdatamodeld` bundles and their `.xcdatamodel` versions.
///
/// Each version folder holds one XML file, `contents`, which this reader parses with Foundation's
/// `XMLParser`. Everything is mapped to ``EntityDescription``, ``AttributeDescription``,
/// ``RelationshipDescription``, ``FetchIndexDescription`` and ``FetchRequestTemplate``, and the
/// result is checked by ``ManagedObjectModel``.
///
/// ```swift
/// let bundle = try XcodeModelReader.readBundle(at: URL(fileURLWithPath: "Library.xcdatamodeld"))
/// bundle.versions.count             // 3
/// bundle.currentVersion.versionName // "Library 3"
///
/// let model = try XcodeModelReader.readModel(at: URL(fileURLWithPath: "Library.xcdatamodeld"))
/// model.entity(named: "Book")?.attribute(named: "title")?.isOptional // false
/// ```
///
/// Not supported, and skipped: fetched properties (`<fetchedProperty>`), the diagram layout
/// (`<elements>`), expression elements of fetch indexes, and whether a fetch index is an R-tree.
/// Unknown elements and attributes are ignored. Every failure is a ``CoreStackError``:
/// ``CoreStackError/modelFile(path:reason:)`` for files that cannot be read or parsed (with the line
/// number of malformed XML), ``CoreStackError/invalidModel(entity:property:reason:)`` for a model
/// that is wrong.
public enum XcodeModelReader {
    /// Serializes XML parsing, as a precaution against libxml2 state shared behind
    /// swift-corelibs-foundation's `XMLParser` (model files are small, so this costs little).
    private static let parseLock = NSLock()

    /// Reads every version of a `.xcdatamodeld` bundle and finds the current one.
    ///
    /// Versions are the `*.xcdatamodel` folders inside, ordered by name (numbers compared by value,
    /// so "Model" < "Model 2" < "Model 10"). The current version is the one `.xccurrentversion`
    /// names; without that file, the only version, or the last one by name. A single `.xcdatamodel`
    /// folder is read as a bundle of one.
    ///
    /// ```swift
    /// let bundle = try XcodeModelReader.readBundle(at: URL(fileURLWithPath: "Library.xcdatamodeld"))
    /// bundle.version(named: "Library 2")?.entities.map(\.name) // ["Author", "Book"]
    /// ```
    public static func readBundle(at url: URL) throws -> ManagedObjectModelBundle {
        if url.pathExtension == "xcdatamodel" {
            let model = try readVersion(at: url)
            return ManagedObjectModelBundle(model: model, name: versionName(of: url))
        }
        try requireFolder(url)
        let fm = FileManager.default
        let children: [URL]
        do {
            children = try fm.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)
        } catch {
            throw CoreStackError.modelFile(path: url.path, reason: "cannot list the folder: \(describe(error))")
        }
        let versionFolders = children
            .filter { $0.pathExtension == "xcdatamodel" }
            .sorted { versionName(of: $0).compare(versionName(of: $1), options: [.numeric]) == .orderedAscending }
        guard !versionFolders.isEmpty else {
            throw CoreStackError.modelFile(path: url.path, reason: "no .xcdatamodel version folder inside")
        }
        let versions = try versionFolders.map { try readVersion(at: $0) }

        var current = versions[versions.count - 1]
        let currentFile = url.appendingPathComponent(".xccurrentversion")
        if fm.fileExists(atPath: currentFile.path) {
            let name = try currentVersionName(in: currentFile)
            let wanted = name.hasSuffix(".xcdatamodel") ? String(name.dropLast(".xcdatamodel".count)) : name
            guard let index = versionFolders.firstIndex(where: { versionName(of: $0) == wanted }) else {
                throw CoreStackError.modelFile(
                    path: currentFile.path, reason: "the current version \"\(name)\" is not in the bundle")
            }
            current = versions[index]
        }
        return ManagedObjectModelBundle(
            name: url.deletingPathExtension().lastPathComponent, versions: versions, currentVersion: current)
    }

    /// Reads one model: a `.xcdatamodel` folder (its `contents` file), or the current version of a
    /// `.xcdatamodeld` bundle.
    ///
    /// ```swift
    /// let model = try XcodeModelReader.readModel(at: URL(fileURLWithPath: "Library.xcdatamodeld/Library 2.xcdatamodel"))
    /// model.versionName // "Library 2"
    /// ```
    public static func readModel(at url: URL) throws -> ManagedObjectModel {
        if url.pathExtension == "xcdatamodeld" {
            return try readBundle(at: url).currentVersion
        }
        return try readVersion(at: url)
    }

    /// Parses the XML of a `contents` file.
    ///
    /// - Parameters:
    ///   - data: the XML.
    ///   - versionName: the model's version name (the `.xcdatamodel` folder name without extension).
    ///
    /// ```swift
    /// let xml = """
    ///     <model userDefinedModelVersionIdentifier="v1">
    ///         <entity name="Book"><attribute name="title" attributeType="String"/></entity>
    ///     </model>
    ///     """
    /// let model = try XcodeModelReader.parse(contents: Data(xml.utf8), versionName: "Library")
    /// model.versionIdentifiers // ["v1"]
    /// ```
    public static func parse(contents data: Data, versionName: String?) throws -> ManagedObjectModel {
        try parse(contents: data, versionName: versionName, path: versionName.map { "\($0).xcdatamodel/contents" } ?? "contents")
    }

    // MARK: - Internals

    static func parse(contents data: Data, versionName: String?, path: String) throws -> ManagedObjectModel {
        let document = try parseLock.withLock {
            try XcodeModelXMLParser(path: path).parse(data)
        }
        return try ManagedObjectModel(
            entities: document.entities,
            versionName: versionName,
            versionIdentifiers: document.versionIdentifier.map { [$0] } ?? [],
            fetchRequestTemplates: document.fetchRequestTemplates,
            configurations: document.configurations,
            origin: .xcodeModel)
    }

    /// Reads a `.xcdatamodel` folder.
    private static func readVersion(at url: URL) throws -> ManagedObjectModel {
        try requireFolder(url)
        let fm = FileManager.default
        let contents = url.appendingPathComponent("contents")
        guard fm.fileExists(atPath: contents.path) else {
            if fm.fileExists(atPath: url.appendingPathComponent("elements").path) {
                throw CoreStackError.modelFile(
                    path: url.path,
                    reason: "unsupported pre-Xcode 4 model format (a binary elements file and no contents file)")
            }
            throw CoreStackError.modelFile(path: url.path, reason: "no contents file")
        }
        let data: Data
        do {
            data = try Data(contentsOf: contents)
        } catch {
            throw CoreStackError.modelFile(path: contents.path, reason: "cannot read the file: \(describe(error))")
        }
        return try parse(contents: data, versionName: versionName(of: url), path: contents.path)
    }

    /// The `_XCCurrentVersionName` of a `.xccurrentversion` property list.
    private static func currentVersionName(in file: URL) throws -> String {
        let plist: Any
        do {
            let data = try Data(contentsOf: file)
            plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw CoreStackError.modelFile(path: file.path, reason: "not a readable property list: \(describe(error))")
        }
        guard let dict = plist as? [String: Any], let name = dict["_XCCurrentVersionName"] as? String, !name.isEmpty
        else {
            throw CoreStackError.modelFile(path: file.path, reason: "no _XCCurrentVersionName string")
        }
        return name
    }

    private static func requireFolder(_ url: URL) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw CoreStackError.modelFile(path: url.path, reason: "no such folder")
        }
        guard isDirectory.boolValue else {
            throw CoreStackError.modelFile(path: url.path, reason: "not a folder (expected .xcdatamodel or .xcdatamodeld)")
        }
    }

    /// The folder name without its extension: "Library 2.xcdatamodel" → "Library 2".
    private static func versionName(of url: URL) -> String {
        url.deletingPathExtension().lastPathComponent
    }

    private static func describe(_ error: Error) -> String {
        (error as NSError).localizedDescription
    }
}
