import Foundation

/// Reads compiled models, as Xcode builds them into an app: a `.momd` folder (one `.mom` per
/// version and a `VersionInfo.plist` naming the current one) or a single `.mom` file.
///
/// A `.mom` is an `NSKeyedArchiver` archive of an `NSManagedObjectModel`, decoded by
/// ``ManagedObjectModel/init(archivedModel:versionName:source:)``. The `.omo` files recent Xcode
/// versions add beside them (an undocumented format) are ignored.
///
/// ```swift
/// let bundle = try CompiledModelReader.readBundle(at: URL(fileURLWithPath: "App.momd"))
/// bundle.currentVersion.versionName  // "App 3"
/// let one = try CompiledModelReader.readModel(at: URL(fileURLWithPath: "App.momd/App 2.mom"))
/// ```
public enum CompiledModelReader {
    /// Every version of a `.momd` folder (by name, numbers compared by value), the current one
    /// from `VersionInfo.plist` (`NSManagedObjectModel_CurrentVersionName`), else the last. A
    /// `.mom` file is read as a bundle of one.
    public static func readBundle(at url: URL) throws -> ManagedObjectModelBundle {
        if url.pathExtension == "mom" {
            let model = try readModel(at: url)
            return ManagedObjectModelBundle(model: model, name: url.deletingPathExtension().lastPathComponent)
        }
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CoreStackError.modelFile(path: url.path, reason: "no such folder (expected a .momd folder or a .mom file)")
        }
        let children: [URL]
        do {
            children = try fm.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)
        } catch {
            throw CoreStackError.modelFile(path: url.path, reason: "cannot list the folder: \((error as NSError).localizedDescription)")
        }
        let files = children.filter { $0.pathExtension == "mom" }.sorted {
            $0.deletingPathExtension().lastPathComponent.compare($1.deletingPathExtension().lastPathComponent, options: [.numeric]) == .orderedAscending
        }
        guard !files.isEmpty else { throw CoreStackError.modelFile(path: url.path, reason: "no .mom file inside") }
        let versions = try files.map { try readModel(at: $0) }
        var current = versions[versions.count - 1]
        let info = url.appendingPathComponent("VersionInfo.plist")
        if let data = try? Data(contentsOf: info),
            let plist = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any],
            let name = plist["NSManagedObjectModel_CurrentVersionName"] as? String
        {
            guard let found = versions.first(where: { $0.versionName == name }) else {
                throw CoreStackError.modelFile(path: info.path, reason: "the current version \"\(name)\" has no .mom file")
            }
            current = found
        }
        return ManagedObjectModelBundle(
            name: url.deletingPathExtension().lastPathComponent, versions: versions, currentVersion: current)
    }

    /// One compiled model: a `.mom` file, or the current version of a `.momd` folder.
    public static func readModel(at url: URL) throws -> ManagedObjectModel {
        if url.pathExtension == "momd" { return try readBundle(at: url).currentVersion }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw CoreStackError.modelFile(path: url.path, reason: "cannot read the file: \((error as NSError).localizedDescription)")
        }
        return try ManagedObjectModel(
            archivedModel: data, versionName: url.deletingPathExtension().lastPathComponent, source: url.path)
    }
}
