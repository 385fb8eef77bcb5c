import CoreStack
import Foundation

/// `stackscope demo create PATH [--size N] [--force]`.
///
/// ```swift
/// print(try DemoCommand.create(path: "/tmp/library.sqlite", size: 300), terminator: "")
/// // Created /tmp/library.sqlite: 301 objects (Author 40, Book 24 (30 with sub-entities), …)
/// try DemoCommand.create(path: "/tmp/library.sqlite", size: 300)               // throws: it exists
/// try DemoCommand.create(path: "/tmp/library.sqlite", size: 300, force: true)  // replaces it
/// ```
public enum DemoCommand {
    /// Creates the demo store and returns the line to print.
    ///
    /// Refuses a path where something already exists (``StackScopeError/alreadyExists(path:)``)
    /// unless `force` is true; with `force`, an existing file is replaced (with its `-wal` and
    /// `-shm` files); a folder is never replaced (``StackScopeError/notAFile(path:)``).
    /// `progress` hears how far the writing has come (see ``DemoProgressPrinter``). A store file
    /// made here keeps persistent history (its history tables are made, empty), as the demo store
    /// in the cache folder does.
    public static func create(
        path: String, size: Int, force: Bool = false, files: any StoreFileAccess = StoreFiles.standard,
        progress: (DemoProgress) -> Void = { _ in }
    ) throws -> String {
        let url = URL(fileURLWithPath: path)
        if let existing = existingItem(at: url, files: files) {
            guard existing != .folder else { throw StackScopeError.notAFile(path: path) }
            guard force else { throw StackScopeError.alreadyExists(path: path) }
            try remove(url, files: files)
        }
        let summary = try DemoLibrary.create(at: url, size: size, files: files, progress: progress)
        if files is SQLiteStoreFiles {
            // The demo store keeps persistent history, as the one in the cache folder does: its
            // history tables are made now (empty), so the browser records every later save in
            // them and a second stackscope on the file sees who saved what.
            let store = try SQLiteStore(
                url: url, model: try DemoLibrary.model(), options: PersistentStoreOptions(persistentHistoryTracking: true))
            store.close()
        }
        return "Created \(path): \(summary.total) objects (\(try countsLine(summary)))\n"
    }

    /// Removes the file at `url` (a link itself, not what it leads to) and its `-wal` and `-shm`
    /// files, under SQLite's exclusive lock on the store (``SQLiteStoreFileLock``): refused with
    /// ``CoreStackError/storeInUse(path:action:)`` while another process has it open.
    private static func remove(_ url: URL, files: any StoreFileAccess) throws {
        if files is InMemoryStoreFiles { return try files.removeStore(at: url) }
        let fm = FileManager.default
        // Under SQLite's exclusive lock: refused while another process has the store open.
        try SQLiteStoreFileLock.withExclusiveLock(on: url, toDo: "replace it with a new demo store (--force)") {
            for suffix in ["", "-wal", "-shm"] where (try? fm.attributesOfItem(atPath: url.path + suffix)) != nil {
                try fm.removeItem(atPath: url.path + suffix)
            }
        }
    }

    /// What stands at `url`.
    private enum Existing { case file, folder }

    private static func existingItem(at url: URL, files: any StoreFileAccess) -> Existing? {
        if let memory = files as? InMemoryStoreFiles { return memory.exists(at: url) ? .file : nil }
        let fm = FileManager.default
        var isFolder: ObjCBool = false
        // A dangling symbolic link counts too: writing through it would create a file elsewhere.
        if fm.fileExists(atPath: url.path, isDirectory: &isFolder) { return isFolder.boolValue ? .folder : .file }
        return (try? fm.attributesOfItem(atPath: url.path)) != nil ? .file : nil
    }

    /// Per-entity counts in the model's order, labelled as `info` counts them: an entity with
    /// sub-entities shows its own objects and, in parentheses, those with its sub-entities'
    /// (`Book 24 (30 with sub-entities)`); an abstract entity shows only the latter.
    static func countsLine(_ summary: DemoSummary) throws -> String {
        let model = try DemoLibrary.model()
        var parts: [String] = []
        for entity in model.entities {
            let own = summary.counts[entity.name] ?? 0
            if entity.subentities.isEmpty {
                parts.append("\(entity.name) \(own)")
                continue
            }
            let all = entity.selfAndDescendants.reduce(0) { $0 + (summary.counts[$1.name] ?? 0) }
            parts.append(entity.isAbstract ? "\(entity.name) (abstract) \(all) with sub-entities" : "\(entity.name) \(own) (\(all) with sub-entities)")
        }
        return parts.joined(separator: ", ")
    }
}
