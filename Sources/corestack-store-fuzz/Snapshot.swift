import Foundation

/// The bytes of a store file and its `-wal`, and the names in its folder, to tell what a run changed.
struct Snapshot: Equatable {
    var store: Data?
    var wal: Data?
    var names: Set<String>

    init(_ url: URL) {
        store = try? Data(contentsOf: url)
        wal = try? Data(contentsOf: URL(fileURLWithPath: url.path + "-wal"))
        names = Set((try? FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)) ?? [])
    }

    /// What differs in `after`, or nil.
    func change(to after: Snapshot) -> String? {
        var changes: [String] = []
        if store != after.store { changes.append("the store file") }
        if wal != after.wal { changes.append("the -wal file") }
        let added = after.names.subtracting(names), removed = names.subtracting(after.names)
        if !added.isEmpty { changes.append("left behind \(added.sorted())") }
        if !removed.isEmpty { changes.append("removed \(removed.sorted())") }
        return changes.isEmpty ? nil : changes.joined(separator: ", ")
    }
}
