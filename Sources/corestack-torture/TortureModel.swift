import CoreStack
import Foundation

/// The torture test's model, its acknowledgement logs and the check every surviving process makes
/// at the end of a round.
///
/// Writers insert one `Item` (writer name, sequence number) per save and, once `save()` has
/// returned, append the number to their own log (`acks-<writer>.log`): an acknowledged commit.
enum Torture {
    /// One entity: `Item` with `writer` (text) and `seq` (integer), table `ZITEM`.
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionName: "Torture") {
            EntityDescription("Item") {
                AttributeDescription("writer", .string, isOptional: false)
                AttributeDescription("seq", .integer64, isOptional: false)
            }
        }
    }

    /// The options every process opens the store with: history on, as an app with other processes would.
    static let storeOptions = PersistentStoreOptions(persistentHistoryTracking: true)

    /// A commit: writer name and sequence number.
    struct Commit: Hashable, Comparable, CustomStringConvertible {
        var writer: String
        var seq: Int64
        static func < (a: Commit, b: Commit) -> Bool { (a.writer, a.seq) < (b.writer, b.seq) }
        var description: String { "\(writer)#\(seq)" }
    }

    /// Every acknowledged commit in `folder` (its `acks-*.log` files; a line cut by a kill is skipped).
    static func acknowledged(in folder: URL) -> Set<Commit> {
        var acks: Set<Commit> = []
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where name.hasPrefix("acks-") && name.hasSuffix(".log") {
            let writer = String(name.dropFirst(5).dropLast(4))
            guard let text = try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8) else { continue }
            for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
                if let seq = Int64(line) { acks.insert(Commit(writer: writer, seq: seq)) }
            }
        }
        return acks
    }

    /// The commits `context` sees now (a fetch of every `Item`, run on its queue).
    static func visible(in context: ManagedObjectContext) throws -> Set<Commit> {
        try context.performAndWait {
            context.reset()
            var seen: Set<Commit> = []
            for item in try context.fetch(FetchRequest<ManagedObject>(entityName: "Item")) {
                guard let writer = try item.value(forKey: "writer") as? String, let seq = try item.value(forKey: "seq") as? Int64 else {
                    throw TortureError("an Item without writer or seq: \(item.objectID)")
                }
                seen.insert(Commit(writer: writer, seq: seq))
            }
            return seen
        }
    }

    /// Waits for the file `name` in `folder` to appear (polling), up to `limit` seconds.
    static func wait(for name: String, in folder: URL, limit: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(limit)
        let path = folder.appendingPathComponent(name).path
        while !FileManager.default.fileExists(atPath: path) {
            if Date() > deadline { return false }
            Worker.exitIfOrphaned()
            usleep(5_000)
        }
        return true
    }

    /// The end-of-round check of one process: every acknowledged commit of every writer is visible
    /// to it through the stack it has had open all along. Writes `result-<name>.txt`.
    static func check(name: String, context: ManagedObjectContext, folder: URL) throws {
        let acks = acknowledged(in: folder)
        let seen = try visible(in: context)
        let missing = acks.subtracting(seen).sorted()
        let text: String
        if missing.isEmpty {
            text = "ok \(seen.count) visible, \(acks.count) acknowledged\n"
        } else {
            text = "missing \(missing.count) of \(acks.count) acknowledged: "
                + missing.prefix(10).map(\.description).joined(separator: " ") + "\n"
        }
        try Data(text.utf8).write(to: folder.appendingPathComponent("result-\(name).txt"))
    }
}

/// A failure of the torture run, with what and where.
struct TortureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Prints a line at once (standard output may be a pipe, which `print` buffers).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
