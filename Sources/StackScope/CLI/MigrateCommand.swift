import CoreStack
import Foundation

/// `stackscope migrate STORE --model MODEL [--dry-run]`: lightweight migration of a store to the
/// current version of a model, with the plan and the object counts before and after.
///
/// The store's version is the version of `MODEL` that matches it, else the model the store
/// carries (`Z_MODELCACHE`). The destination is `MODEL`'s current version (a `.xcdatamodeld` or
/// `.momd`; a single `.xcdatamodel` or `.mom` is its own current version). A `MODEL` with no
/// version matching the store and no entity in common with the model the store carries is another
/// app's model, not a later version: it is refused
/// (``StackScopeError/unrelatedModel(model:storeEntities:modelEntities:)``), dry run or not, and
/// the file is not touched. So is a store whose file or folder cannot be written
/// (``StackScopeError/cannotMigrateReadOnly(store:path:)``; a dry run still works there).
///
/// ```swift
/// let text = try MigrateCommand.run(storePath: "App.sqlite", modelPath: "App.xcdatamodeld", dryRun: true)
/// print(text)  // Migrating from "App 3" to "App 4":\n  Post.hide: added (default false)\n…
/// ```
public enum MigrateCommand {
    /// Plans, and unless `dryRun` performs, the migration; returns the report, ending with a newline.
    public static func run(storePath: String, modelPath: String, dryRun: Bool) throws -> String {
        // Through a link, SQLiteMigration migrates and replaces the store it points to.
        let url = URL(fileURLWithPath: storePath)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw StackScopeError.storeNotFound(path: storePath)
        }
        guard !isDirectory.boolValue else { throw StackScopeError.notAFile(path: storePath) }
        let modelURL = URL(fileURLWithPath: modelPath)
        let bundle: ManagedObjectModelBundle
        switch modelURL.pathExtension {
        case "xcdatamodeld", "xcdatamodel": bundle = try XcodeModelReader.readBundle(at: modelURL)
        case "momd", "mom": bundle = try CompiledModelReader.readBundle(at: modelURL)
        default: throw StackScopeError.unsupportedModelPath(path: modelPath)
        }
        let destination = bundle.currentVersion
        // The steps: through every later version when the store is one of the bundle's versions
        // (V1 → V2 → V3), else from the model the store carries straight to the current version.
        var steps: [(from: ManagedObjectModel, to: ManagedObjectModel, name: String)] = []
        let versions = bundle.versions
        func quoted(_ m: ManagedObjectModel) -> String { "\"\(m.versionName ?? "unnamed")\"" }
        do {
            let source = try SQLiteStore.open(url: url, bundle: bundle, readOnly: true).model
            if let start = versions.firstIndex(where: { $0 === source }),
                let end = versions.firstIndex(where: { $0 === destination }), start < end
            {
                for i in start..<end { steps.append((versions[i], versions[i + 1], quoted(versions[i]))) }
            }
        } catch CoreStackError.modelMismatch(let path, let differences) {
            guard let stored = try SQLiteStore.storedModel(at: url) else {
                throw CoreStackError.modelMismatch(path: path, differences: differences)
            }
            // No version of the bundle is the store's: a model sharing no entity with the one
            // the store carries is another app's (a wrong --model path), and "migrating" to it
            // would drop every table. Refuse before anything is planned or written.
            try checkRelated(stored: stored, destination: destination, modelName: modelURL.lastPathComponent)
            steps.append((stored, destination, "the model stored in the store"))
        }
        var lines: [String] = []
        for step in steps {
            let plan = try SQLiteMigration.plan(from: step.from, to: step.to)
            lines.append("Migrating \(storePath) from \(step.name) to \(quoted(step.to))\(dryRun ? " (dry run)" : ""):")
            lines += plan.lines.isEmpty ? ["  no change"] : plan.lines.map { "  " + $0 }
        }
        guard let first = steps.first else {
            return "\(storePath) is already at version \(quoted(destination)) of \(bundle.name): nothing to migrate\n"
        }
        let before = try counts(url, first.from)
        if dryRun {
            lines.append("")
            lines += TextTable.render(
                header: ["Entity", "Objects"], rows: before.map { [$0.name, String($0.count)] }, rightAligned: [1])
            return lines.joined(separator: "\n") + "\n"
        }
        // Said before anything is written, naming the store: else SQLite's error names the hidden
        // scratch file the migration makes beside the store.
        // Through a link, the target's folder is where the migration writes.
        let file = url.resolvingSymlinksInPath()
        let folder = file.deletingLastPathComponent().path
        for path in [folder, file.path] where !FileManager.default.isWritableFile(atPath: path) {
            throw StackScopeError.cannotMigrateReadOnly(store: storePath, path: path)
        }
        for step in steps { try SQLiteMigration.migrateStore(at: url, from: step.from, to: step.to) }
        let after = try counts(url, destination)
        let old = Dictionary(before.map { ($0.name, $0.count) }, uniquingKeysWith: { a, _ in a })
        let renamed = Dictionary(
            destination.entities.compactMap { e in e.renamingIdentifier.map { (e.name, $0) } }, uniquingKeysWith: { a, _ in a })
        let rows = after.map { e in
            [e.name, (old[e.name] ?? renamed[e.name].flatMap { old[$0] }).map(String.init) ?? "—", String(e.count)]
        }
        lines.append("")
        lines += TextTable.render(header: ["Entity", "Before", "After"], rows: rows, rightAligned: [1, 2])
        return lines.joined(separator: "\n") + "\n"
    }

    /// Throws ``StackScopeError/unrelatedModel(model:storeEntities:modelEntities:)`` when
    /// `destination` has no entity of `stored` (by name, or by its renaming identifier).
    static func checkRelated(stored: ManagedObjectModel, destination: ManagedObjectModel, modelName: String) throws {
        let storeNames = Set(stored.entities.map(\.name))
        guard !storeNames.isEmpty else { return }
        let related = destination.entities.contains { e in
            storeNames.contains(e.name) || e.renamingIdentifier.map(storeNames.contains) == true
        }
        guard !related else { return }
        throw StackScopeError.unrelatedModel(
            model: modelName, storeEntities: stored.entities.map(\.name).sorted(),
            modelEntities: destination.entities.map(\.name).sorted())
    }

    /// Objects per entity (sub-entities included) in the store opened read-only with `model`.
    private static func counts(_ url: URL, _ model: ManagedObjectModel) throws -> [(name: String, count: Int)] {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try SQLiteStore(url: url, model: model, readOnly: true)
        try coordinator.addPersistentStore(store)
        defer {
            try? coordinator.remove(store)
            store.close()
        }
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: "stackscope-migrate")
        return try context.performAndWait {
            try model.entities.map { e in (e.name, try context.count(for: FetchRequest<ManagedObject>(entityName: e.name))) }
        }
    }
}
