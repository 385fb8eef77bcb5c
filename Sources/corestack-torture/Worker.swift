import CoreStack
import Foundation

/// The roles the orchestrator starts this executable in: each opens the store the way a real
/// process would and runs until the orchestrator's control files say stop.
///
/// Control files in the round's folder: `stop-writers` (writers stop saving), `check` (every
/// surviving writer and reader checks what it sees, writes `result-<name>.txt` and exits).
enum Worker {
    /// A stack over the store: a root context on a coordinator with an `SQLiteStore`, or an app's
    /// `PersistentStoreManager`.
    enum Kind: String { case store, manager }

    /// The orchestrator that started this process: when it is gone (killed, crashed), so is the
    /// reason to go on.
    nonisolated(unsafe) static var parent: pid_t = getppid()

    /// Exits when the orchestrator is gone.
    static func exitIfOrphaned() {
        if getppid() != parent { exit(3) }
    }

    static func openContext(_ kind: Kind, store url: URL, readOnly: Bool) throws -> (ManagedObjectContext, AnyObject) {
        let model = try Torture.model()
        switch kind {
        case .store:
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(
                SQLiteStore(url: url, model: model, readOnly: readOnly, options: Torture.storeOptions))
            return (ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator), coordinator)
        case .manager:
            var configuration = PersistentStoreManager.Configuration(model: model, storeURL: url, savesOnTermination: false)
            configuration.storeOptions.persistentHistoryTracking = true
            let manager = try PersistentStoreManager(configuration: configuration)
            guard !manager.dataStoreWasResetOrCreatedOnLoad else {
                throw TortureError("the manager reset or created the store: \(manager.resetReason ?? "no reason given")")
            }
            return (manager.managedObjectContext, manager)
        }
    }

    /// Saves one `Item` at a time and acknowledges each in `acks-<name>.log` once `save()` returned,
    /// until `stop-writers` appears; then waits for `check`.
    static func writer(name: String, kind: Kind, store url: URL, seed: UInt64) throws {
        let folder = url.deletingLastPathComponent()
        let (context, keep) = try openContext(kind, store: url, readOnly: false)
        let log = folder.appendingPathComponent("acks-\(name).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let fd = open(log.path, O_WRONLY | O_APPEND)
        guard fd >= 0 else { throw TortureError("cannot open \(log.path)") }
        var random = SplitMix64(seed: seed)
        var seq: Int64 = 0
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("stop-writers").path) {
            exitIfOrphaned()
            seq += 1
            let number = seq
            try context.performAndWait {
                let item = try context.insertObject(forEntityName: "Item")
                try item.setValue(name, forKey: "writer")
                try item.setValue(number, forKey: "seq")
                try context.save()
            }
            let line = Array("\(number)\n".utf8)
            guard write(fd, line, line.count) == line.count else { throw TortureError("cannot write to \(log.path)") }
            usleep(UInt32(random.next() % 4_000))
        }
        close(fd)
        guard Torture.wait(for: "check", in: folder, limit: 120) else { throw TortureError("no check file") }
        try Torture.check(name: name, context: context, folder: folder)
        withExtendedLifetime(keep) {}
    }

    /// Opens the store read-only and fetches its items every few milliseconds until `check`.
    static func reader(name: String, kind: Kind, store url: URL, seed: UInt64) throws {
        let folder = url.deletingLastPathComponent()
        let (context, keep) = try openContext(kind, store: url, readOnly: kind == .store)
        var random = SplitMix64(seed: seed)
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("check").path) {
            exitIfOrphaned()
            _ = try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Item")) }
            usleep(UInt32(2_000 + random.next() % 20_000))
        }
        try Torture.check(name: name, context: context, folder: folder)
        withExtendedLifetime(keep) {}
    }

    /// Opens the store (read-only with a coordinator, or read-write with an app's manager),
    /// counts its items and closes it: a short-lived opener.
    static func opener(kind: Kind, store url: URL) throws {
        let (context, keep) = try openContext(kind, store: url, readOnly: kind == .store)
        _ = try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Item")) }
        if let coordinator = keep as? PersistentStoreCoordinator {
            (coordinator.persistentStore as? SQLiteStore)?.close()
        }
    }
}

/// A small seeded generator (SplitMix64), so a run is the same schedule for the same seed.
struct SplitMix64 {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// A number in `0..<bound`.
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(bound, 1))) }
}
