import CoreStack
import Foundation

/// The two stores of a `stackscope diff`, open read-only as `info` opens them, and the comparison
/// between them (`StoreDiff`) with the command's keys and entities: what the text and JSON
/// reports and the browser's diff view share.
///
/// ```swift
/// let stores = try DiffStores.open(oldPath: "before.sqlite", newPath: "after.sqlite", modelPath: nil,
///                                  keys: ["Book=isbn"], entities: [], changeLimit: 20)
/// defer { stores.close() }
/// let report = try stores.diff.run()
/// ```
public final class DiffStores: @unchecked Sendable {
    /// The store before.
    public let old: StoreSession
    /// The store after.
    public let new: StoreSession
    /// The comparison of the two, with the options the command was given.
    public let diff: StoreDiff
    /// One-line notes about the choice of models (for standard error), each naming its store.
    public let warnings: [String]

    private init(old: StoreSession, new: StoreSession, diff: StoreDiff, warnings: [String]) {
        self.old = old
        self.new = new
        self.diff = diff
        self.warnings = warnings
    }

    /// Opens the store at `oldPath` and the one at `newPath` read-only and prepares their comparison.
    ///
    /// ```swift
    /// let stores = try DiffStores.open(oldPath: "a.sqlite", newPath: "b.sqlite", modelPath: nil,
    ///                                  keys: [], entities: ["Book"], changeLimit: nil)
    /// ```
    ///
    /// - Parameters:
    ///   - oldPath: the store before.
    ///   - newPath: the store after.
    ///   - modelPath: a model file for both stores; nil uses each store's own choice (as `info` makes it).
    ///   - keys: `Entity=attribute` mappings used to match objects when the stores differ.
    ///   - entities: the entities to compare; empty compares all.
    ///   - changeLimit: objects of each kind kept per entity (nil: all); counts are always exact.
    ///   - files: how store files are opened (the real file system by default).
    /// - Throws: the errors of ``StoreSession/open(storePath:modelPath:files:)`` for either store;
    ///   ``StackScopeError/invalidOption(name:reason:)`` for a malformed `--key`;
    ///   ``StackScopeError/unknownEntity(name:available:)`` for an entity neither model has;
    ///   `CoreStackError/notAStore(path:reason:)` for a store that is not an SQLite file.
    public static func open(
        oldPath: String, newPath: String, modelPath: String?, keys: [String], entities: [String], changeLimit: Int?,
        files: any StoreFileAccess = StoreFiles.standard
    ) throws -> DiffStores {
        var keyMap: [String: String] = [:]
        for k in keys {
            let parts = k.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw StackScopeError.invalidOption(name: "--key", reason: "'\(k)' is not Entity=attribute")
            }
            keyMap[parts[0]] = parts[1]
        }
        let oldSession = try StoreSession.open(storePath: oldPath, modelPath: modelPath, files: files)
        let newSession: StoreSession
        do {
            newSession = try StoreSession.open(storePath: newPath, modelPath: modelPath, files: files)
        } catch {
            oldSession.close()
            throw error
        }
        do {
            guard let oldStore = oldSession.coordinator.persistentStore as? SQLiteStore else {
                throw CoreStackError.notAStore(path: oldPath, reason: "not an SQLite store")
            }
            guard let newStore = newSession.coordinator.persistentStore as? SQLiteStore else {
                throw CoreStackError.notAStore(path: newPath, reason: "not an SQLite store")
            }
            let names = Set(oldSession.model.entities.map(\.name) + newSession.model.entities.map(\.name))
            for name in entities + keyMap.keys.sorted() where !names.contains(name) {
                throw StackScopeError.unknownEntity(name: name, available: names.sorted())
            }
            let options = StoreDiffOptions(keys: keyMap, entities: entities.isEmpty ? nil : entities, changeLimit: changeLimit)
            let warnings = oldSession.warnings.map { "\(oldPath): \($0)" } + newSession.warnings.map { "\(newPath): \($0)" }
            return DiffStores(
                old: oldSession, new: newSession, diff: StoreDiff(old: oldStore, new: newStore, options: options), warnings: warnings)
        } catch {
            oldSession.close()
            newSession.close()
            throw error
        }
    }

    /// Closes both stores (SQLite removes the `-wal` and `-shm` their read-only connections made).
    public func close() {
        old.close()
        new.close()
    }
}
