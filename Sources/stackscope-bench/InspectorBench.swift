import CoreStack
import Foundation
import StackScope

/// `stackscope-bench --inspector`: the value inspector on large values (issue 31, "Speed and
/// memory"). In a temporary store it saves a 100 MB binary value and a keyed archive of
/// about 10 MB, then measures, through the same calls the browser makes:
///
/// - opening the inspector on the 100 MB value (`SQLiteStore.storedValue`, then
///   `ValueInspectorState(title:value:)`: its first 256 KiB decoded), against reading the value
///   whole through a fetch (what the inspector did before);
/// - paging through its hex dump: 10,000 pages of 32 rows spread over the whole value, and the
///   last page (`G`), each read through SQLite's blob I/O;
/// - a hex search for bytes that are not there (the whole value read in 1 MiB chunks);
/// - the peak resident memory those add (`VmHWM` reset through `/proc/self/clear_refs` first);
/// - opening the inspector on the archive (an array of 250,000 strings: its first screen, the rest made as it is scrolled).
///
/// ```sh
/// swift build -c release --scratch-path .build-bench --product stackscope-bench
/// .build-bench/release/stackscope-bench --inspector
/// ```
struct InspectorBench {
    let dir: URL
    static let valueSize = 100 << 20

    func run() throws {
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("inspector.sqlite")
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Blob", attributes: [AttributeDescription("data", .binaryData)], relationships: []),
        ])
        // The values, saved (not timed).
        let archive = try NSKeyedArchiver.archivedData(
            // Strings (dictionaries would make swift-corelibs-foundation's archiver compare them all with each other).
            withRootObject: NSArray(array: (0..<250_000).map { i in "item \(i) of the benchmark's archive" as NSString }),
            requiringSecureCoding: false)
        var big = Data(count: Self.valueSize)
        big.withUnsafeMutableBytes { raw in
            for i in stride(from: 0, to: raw.count, by: 16) { raw.storeBytes(of: UInt64(i).bigEndian, toByteOffset: i, as: UInt64.self) }
        }
        let (bigID, archiveID): (ManagedObjectID, ManagedObjectID) = try {
            let store = try SQLiteStore(url: url, model: model)
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(store)
            let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
            let ids = try context.performAndWait {
                let a = try context.insertObject(forEntityName: "Blob")
                try a.setAttributeValue(.data(big), forKey: "data")
                let b = try context.insertObject(forEntityName: "Blob")
                try b.setAttributeValue(.data(archive), forKey: "data")
                try context.save()
                return (a.objectID, b.objectID)
            }
            store.close()
            return ids
        }()
        big = Data()

        let store = try SQLiteStore(url: url, model: model, readOnly: true)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(store)
        let bigValueID = try remap(bigID, store, coordinator)
        let archiveValueID = try remap(archiveID, store, coordinator)
        let resettable = resetPeak()
        let before = residentKiB("VmRSS")

        // Open: the value located and its prefix decoded.
        var t = nowNs()
        let value = try store.storedValue(of: bigValueID, attribute: "data")!
        var inspector = try ValueInspectorState(title: "Blob.data", value: value)
        let openMs = ms(since: t)
        inspector.mode = .hex
        // Paging: 10,000 pages spread over the value, then the last.
        let pages = 10_000
        let rows = inspector.lineCount
        var checksum = 0
        t = nowNs()
        for k in 0..<pages {
            inspector.offset = Int(Double(k) / Double(pages) * Double(rows - 32))
            checksum &+= inspector.lines(from: inspector.offset, count: 32).count
        }
        let pageUs = ms(since: t) * 1000 / Double(pages)
        t = nowNs()
        inspector.scroll(by: Int.max / 2, height: 32)
        let last = inspector.lines(from: inspector.offset, count: 32)
        let lastPageMs = ms(since: t)
        t = nowNs()
        let found = inspector.find("no such bytes")
        let searchMs = ms(since: t)
        let peakAbove = resettable ? (residentKiB("VmHWM") - before) / 1024 : .nan

        // Before: the value read whole through a fetch.
        t = nowNs()
        let request = StoreFetchRequest(entity: try model.requireEntity("Blob"))
        let whole = try store.fetch(request).reduce(0) { total, row in
            if case let .data(d) = row.snapshot.values[0] { return total + d.count }
            return total
        }
        let fetchMs = ms(since: t)

        // A keyed archive decoded whole.
        t = nowNs()
        let archiveInspector = try ValueInspectorState(title: "Blob.data", value: try store.storedValue(of: archiveValueID, attribute: "data")!)
        let archiveMs = ms(since: t)

        guard checksum == pages * 32, last.last?.hasPrefix("0" + String(Self.valueSize - 16, radix: 16)) == true, found == nil, whole > Self.valueSize else {
            throw CocoaError(.coderInvalidValue)
        }
        print("""
            | value inspector (release) | time | |
            |---|---:|---|
            | open on a 100 MB value (locate, decode its first 256 KiB) | \(f(openMs)) ms | a fetch reading it whole: \(f(fetchMs)) ms |
            | one page of its hex dump (32 rows, blob I/O), mean of \(pages) over the value | \(f(pageUs)) µs | |
            | the last page (G) | \(f(lastPageMs)) ms | |
            | hex search through all of it, not found | \(f(searchMs)) ms | |
            | peak memory added by the above | \(f(peakAbove)) MB | the value is 100 MB |
            | open on a keyed archive of \(archive.count / 1_000_000) MB (\(archiveInspector.summary.split(separator: "·").dropFirst().first.map { $0.trimmingCharacters(in: .whitespaces) } ?? "")) | \(f(archiveMs)) ms | |
            """)
    }

    /// The ID of the same row in the store opened for reading.
    func remap(_ id: ManagedObjectID, _ store: SQLiteStore, _ coordinator: PersistentStoreCoordinator) throws -> ManagedObjectID {
        guard let pk = id.primaryKey, let uri = URL(string: "x-coredata://\(store.identifier)/Blob/p\(pk)") else { throw CocoaError(.coderInvalidValue) }
        guard let mapped = coordinator.managedObjectID(forURIRepresentation: uri) else { throw CocoaError(.coderInvalidValue) }
        return mapped
    }

    func ms(since start: UInt64) -> Double { Double(nowNs() - start) / 1e6 }
    func f(_ x: Double) -> String { x.isNaN ? "–" : x >= 100 ? String(format: "%.0f", x) : String(format: "%.1f", x) }

    func resetPeak() -> Bool {
        guard let h = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? h.close() }
        return (try? h.write(contentsOf: Data("5".utf8))) != nil
    }

    func residentKiB(_ field: String) -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return .nan }
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Double(line.split(separator: " ").dropFirst().first ?? "") ?? .nan
        }
        return .nan
    }
}
