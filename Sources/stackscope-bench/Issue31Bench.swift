import CImageFixtures
import CoreStack
import Foundation
import StackScope

/// `stackscope-bench --issue31 PART`: the "Speed and memory" targets of issue 31, release build,
/// each printed with the command that measures it again (PART: `archive`, `picture`, `table`,
/// `store` or `all`; the 100 MB value is `--inspector`'s, ``InspectorBench``):
///
/// - `archive`: the inspector opened on a keyed archive of about 10 MB (an array of 175,000
///   strings): the value located, `ValueInspectorState` made, its first screen of lines (target ≤ 100 ms);
/// - `picture`: the picture of a 12-megapixel JPEG written by libjpeg (the tests' fixture encoder):
///   the inspector opened on it (its header read, the picture decoded at a preview size) and
///   rendered by chafa in true-colour symbols for 116 × 30 cells (target ≤ 100 ms);
/// - `table`: the browser (headless, 120 × 36) on a table of 1,000,000 objects with a binary
///   column shown as summaries (small archives, and a 1 MB value every 50th row in the first
///   5,000 rows and the last 2,000): `j`, `PgDn`, `G` (target ≤ 16 ms a key);
/// - `store`: the browser's first screen on a store of 70 entities opened with no model file,
///   through its model cache and, with the cache dropped, by inference (target ≤ 500 ms).
///
/// Each figure is the minimum and the median of several runs, with the user CPU time of the
/// median run (the machine is shared: wall times move with the load, CPU times less).
///
/// ```sh
/// swift build -c release --scratch-path .build-bench --product stackscope-bench
/// .build-bench/release/stackscope-bench --issue31 all
/// ```
struct Issue31Bench {
    let dir: URL
    let part: String

    static let command = ".build-bench/release/stackscope-bench --issue31"

    func run() throws {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        print("| issue 31 (release) | figure | target | command |")
        print("|---|---:|---:|---|")
        if part == "archive" || part == "all" { try archive() }
        if part == "picture" || part == "all" { try picture() }
        if part == "store" || part == "all" { try store() }
        if part == "table" || part == "all" { try table() }
    }

    // MARK: Timing

    /// Wall and user CPU milliseconds of `body`, `runs` times.
    func timed(_ runs: Int, _ body: () throws -> Void) rethrows -> (wall: [Double], cpu: [Double]) {
        var wall: [Double] = [], cpu: [Double] = []
        for _ in 0..<runs {
            let c0 = userCPUms(), t0 = nowNs()
            try body()
            wall.append(Double(nowNs() - t0) / 1e6)
            cpu.append(userCPUms() - c0)
        }
        return (wall, cpu)
    }

    func userCPUms() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec) * 1000 + Double(usage.ru_utime.tv_usec) / 1000
    }

    func f(_ x: Double) -> String { x >= 100 ? String(format: "%.0f", x) : String(format: "%.1f", x) }

    /// `min X ms (median Y ms, user CPU Z ms)`.
    func figure(_ t: (wall: [Double], cpu: [Double])) -> String {
        let sorted = t.wall.enumerated().sorted { $0.element < $1.element }
        let mid = sorted[sorted.count / 2]
        return "**\(f(sorted[0].element)) ms** (median \(f(mid.element)) ms, user CPU \(f(t.cpu[mid.offset])) ms; \(t.wall.count) runs)"
    }

    /// A store of one entity `Blob` whose `data` holds each of `values`; their object IDs in the store opened read-only.
    func blobStore(_ name: String, _ values: [Data]) throws -> (SQLiteStore, [ManagedObjectID]) {
        let url = dir.appendingPathComponent(name)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Blob", attributes: [AttributeDescription("data", .binaryData)], relationships: [])
        ])
        do {
            let store = try SQLiteStore(url: url, model: model)
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(store)
            let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
            try context.performAndWait {
                for value in values {
                    let blob = try context.insertObject(forEntityName: "Blob")
                    try blob.setAttributeValue(.data(value), forKey: "data")
                }
                try context.save()
            }
            store.close()
        }
        let store = try SQLiteStore(url: url, model: model, readOnly: true)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(store)
        let ids = try (1...values.count).map { pk -> ManagedObjectID in
            guard let uri = URL(string: "x-coredata://\(store.identifier)/Blob/p\(pk)"),
                let id = coordinator.managedObjectID(forURIRepresentation: uri)
            else { throw Probe.Failure(description: "no object \(pk) in \(name)") }
            return id
        }
        return (store, ids)
    }

    // MARK: Parts

    func archive() throws {
        let n = 175_000
        let data = try NSKeyedArchiver.archivedData(
            withRootObject: NSArray(array: (0..<n).map { "item \($0) of the benchmark archive" as NSString }), requiringSecureCoding: false)
        let (store, ids) = try blobStore("issue31-archive.sqlite", [data])
        defer { store.close() }
        var screen: [String] = []
        var summary = ""
        let open = try timed(7) {
            let value = try store.storedValue(of: ids[0], attribute: "data")!
            let inspector = try ValueInspectorState(title: "Blob.data", value: value)
            screen = inspector.lines(from: 0, count: 30)
            _ = inspector.lineCount
            summary = inspector.summary
        }
        guard screen.count == 30, screen[1] == "  [0]: \"item 0 of the benchmark archive\"", summary.hasSuffix("archive NSArray · \(n) items") else {
            throw Probe.Failure(description: "unexpected first screen: \(summary) / \(screen.prefix(2))")
        }
        // G: every line of the tree (the node bound of 100,000) made.
        var last = ""
        let end = try timed(3) {
            var inspector = try ValueInspectorState(title: "Blob.data", value: try store.storedValue(of: ids[0], attribute: "data")!)
            inspector.scroll(by: Int.max / 2, height: 30)
            last = inspector.lines(from: inspector.offset, count: 30).last ?? ""
        }
        guard last.contains("more: the tree stops at 100000 values") else { throw Probe.Failure(description: "unexpected last line: \(last)") }
        let mb = String(format: "%.1f", Double(data.count) / 1e6)
        print("| inspector opened on a \(mb) MB keyed archive (\(n) strings): first screen | \(figure(open)) | ≤ 100 ms | `\(Self.command) archive` |")
        print("| … then G (the tree to its bound of 100,000 nodes) | \(figure(end)) | | `\(Self.command) archive` |")
    }

    func picture() throws {
        let width = 4000, height = 3000
        // Gradients with noise, so that the file is about as large as a photo's (a few MB).
        var rgba = [UInt8](repeating: 255, count: width * height * 4)
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for y in 0..<height {
            for x in 0..<width {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let noise = Int(seed >> 58)  // 0…63
                let i = (y * width + x) * 4
                rgba[i] = UInt8(truncatingIfNeeded: min(255, x * 192 / width + noise))
                rgba[i + 1] = UInt8(truncatingIfNeeded: min(255, y * 192 / height + noise))
                rgba[i + 2] = UInt8(truncatingIfNeeded: ((x ^ y) & 0x7F) + noise)
            }
        }
        var encoded = sif_encoded()
        guard sif_encode("JPEG", rgba, Int32(width), Int32(height), 85, &encoded) == 0, let bytes = encoded.bytes else {
            throw Probe.Failure(description: "the JPEG encoder failed")
        }
        let jpeg = Data(bytes: bytes, count: encoded.length)
        sif_free(&encoded)
        rgba = []
        let (store, ids) = try blobStore("issue31-picture.sqlite", [jpeg])
        defer { store.close() }
        let style = PictureStyle(graphics: .symbols, colors: .truecolor)
        var rendered = 0
        let t = try timed(7) {
            let inspector = try ValueInspectorState(title: "Blob.data", value: try store.storedValue(of: ids[0], attribute: "data")!)
            guard case let .success(picture)? = inspector.picture,
                let out = PictureRenderer.render(picture, columns: 116, rows: 30, style: style)
            else { throw Probe.Failure(description: "no picture: \(inspector.summary)") }
            rendered = out.text.utf8.count
        }
        guard rendered > 1000 else { throw Probe.Failure(description: "the picture is \(rendered) bytes of output") }
        let mb = String(format: "%.1f", Double(jpeg.count) / 1e6)
        print("| picture of a 12-megapixel JPEG (4000×3000, \(mb) MB, libjpeg q85): inspector opened, decoded, chafa symbols 116×30 | \(figure(t)) | ≤ 100 ms | `\(Self.command) picture` |")
    }

    // MARK: A 70-entity store with no model file

    /// 70 entities in chains of to-one relationships with to-many inverses (every fifth ordered),
    /// four attributes each, 20 objects each.
    func seventyEntityStore() throws -> URL {
        let url = dir.appendingPathComponent("issue31-70.sqlite")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        let names = (0..<70).map { String(format: "Entity%02d", $0) }
        let entities = names.indices.map { i -> EntityDescription in
            var relationships: [RelationshipDescription] = []
            if i + 1 < names.count {
                relationships.append(RelationshipDescription("next", destination: names[i + 1], inverse: "previous"))
            }
            if i > 0 {
                relationships.append(RelationshipDescription("previous", destination: names[i - 1], inverse: "next", toMany: true, isOrdered: i % 5 == 0))
            }
            return EntityDescription(
                name: names[i],
                attributes: [
                    AttributeDescription("name", .string), AttributeDescription("count", .integer64),
                    AttributeDescription("stamp", .date), AttributeDescription("payload", .binaryData),
                ],
                relationships: relationships)
        }
        let model = try ManagedObjectModel(entities: entities)
        let store = try SQLiteStore(url: url, model: model)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(store)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        let payload = try PropertyListSerialization.data(fromPropertyList: ["k": 1], format: .binary, options: 0)
        try context.performAndWait {
            var previous: [ManagedObject] = []
            for name in names {
                var here: [ManagedObject] = []
                for k in 0..<20 {
                    let o = try context.insertObject(forEntityName: name)
                    try o.setAttributeValue(.string("\(name) \(k)"), forKey: "name")
                    try o.setAttributeValue(.integer(Int64(k)), forKey: "count")
                    try o.setAttributeValue(.date(Date(timeIntervalSinceReferenceDate: Double(k))), forKey: "stamp")
                    try o.setAttributeValue(.data(payload), forKey: "payload")
                    if previous.indices.contains(k) { try previous[k].setObject(o, forKey: "next") }
                    here.append(o)
                }
                previous = here
            }
            try context.save()
        }
        store.close()
        return url
    }

    func store() throws {
        let url = try seventyEntityStore()
        let inferred = dir.appendingPathComponent("issue31-70-inferred.sqlite")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: inferred.path + suffix) }
        try FileManager.default.copyItem(at: url, to: inferred)
        try sqlite(inferred, "DROP TABLE Z_MODELCACHE;")
        for (label, file) in [("its model cache", url), ("inference (cache dropped)", inferred)] {
            // The model it opens with, checked once.
            let session: BrowserSession
            do {
                session = try BrowserSession.open(storePath: file.path, modelPath: nil, readOnly: true)
            } catch {
                print("| browser's first screen, 70-entity store, no model file, through \(label) | refused: \(String(describing: error).prefix(160))… | ≤ 500 ms | `\(Self.command) store` |")
                continue
            }
            let count = session.model.entities.count
            session.close()
            guard count == 70 else { throw Probe.Failure(description: "\(file.lastPathComponent) opened with \(count) entities") }
            var launches: [Double] = [], cpu: [Double] = []
            for _ in 0..<5 {
                let c0 = userCPUms()
                let probe = Probe(.init(storePath: file.path, size: 1400, entity: "Entity00", reps: 1, launchOnly: true))
                launches.append(try probe.run().launchMs)
                cpu.append(userCPUms() - c0)
                probe.close()
            }
            print("| browser's first screen, 70-entity store, no model file, through \(label) | \(figure((launches, cpu))) | ≤ 500 ms | `\(Self.command) store` |")
        }
    }

    // MARK: A table of 1,000,000 objects with a binary column

    func table() throws {
        let url = dir.appendingPathComponent("issue31-binary-1M.sqlite")
        let marker = url.appendingPathExtension("complete")
        if !FileManager.default.fileExists(atPath: marker.path) {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
            let model = try ManagedObjectModel(entities: [
                EntityDescription(
                    name: "Item", attributes: [AttributeDescription("name", .string), AttributeDescription("payload", .binaryData)],
                    relationships: [])
            ])
            try SQLiteStore(url: url, model: model).close()
            let small = try NSKeyedArchiver.archivedData(withRootObject: NSArray(array: ["a", "b", 3]), requiringSecureCoding: false)
            let hex = small.map { String(format: "%02X", $0) }.joined()
            log("creating \(url.path) (1,000,000 rows) …")
            try sqlite(url, """
                PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000)
                INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZNAME, ZPAYLOAD)
                  SELECT i, 1, 1, 'item ' || i,
                    CASE WHEN (i <= 5000 OR i > 998000) AND i % 50 = 0 THEN X'62706C6973743030' || zeroblob(1048576) ELSE X'\(hex)' END
                  FROM n;
                UPDATE Z_PRIMARYKEY SET Z_MAX = 1000000 WHERE Z_NAME = 'Item';
                """)
            try Data("1000000\n".utf8).write(to: marker)
        }
        let probe = Probe(.init(storePath: url.path, size: 1_000_000, entity: "Item", reps: 1, launchOnly: true))
        let launch = try probe.run()
        probe.letTickerStop()
        var keys: [String: (wall: [Double], cpu: [Double])] = [:]
        func record(_ name: String, _ key: Key) throws {
            let c0 = userCPUms()
            let ms = try probe.press(key)
            keys[name, default: ([], [])].wall.append(ms)
            keys[name, default: ([], [])].cpu.append(userCPUms() - c0)
        }
        for _ in 0..<60 { try record("j", .char("j")) }
        for _ in 0..<40 { try record("PgDn", .pageDown) }
        for _ in 0..<5 {
            try probe.press(.char("g"))
            try record("G", .char("G"))
        }
        for _ in 0..<60 { try record("k (at the end)", .char("k")) }
        let shown: [String] = probe.onMain {
            if case let .object(_, cells)? = probe.program.state.table.window.row(probe.program.state.table.scroll.selection) { cells } else { [] }
        }
        let peak = peakKiB() * 1024 / 1e6
        probe.close()
        print("| 1,000,000-row table with a summarised binary column: launch to first screen | \(f(launch.launchMs)) ms | | `\(Self.command) table` |")
        for name in ["j", "PgDn", "G", "k (at the end)"] {
            guard let t = keys[name] else { continue }
            let sorted = t.wall.sorted()
            print("| … \(name): median \(f(sorted[sorted.count / 2])) ms, max \(f(sorted.last ?? .nan)) ms (user CPU median \(f(t.cpu.sorted()[t.cpu.count / 2])) ms, \(t.wall.count) presses) | **\(f(sorted[sorted.count / 2])) ms** | ≤ 16 ms | `\(Self.command) table` |")
        }
        print("| … peak memory of the whole run (VmHWM; a 1 MB value every 50th row near both ends) | \(String(format: "%.0f", peak)) MB | | `\(Self.command) table` |")
        log("last row's cells: \(shown)")
    }

    /// Runs SQL through the `sqlite3` command.
    func sqlite(_ url: URL, _ sql: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        p.arguments = [url.path, sql]
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw Probe.Failure(description: "sqlite3 failed on \(sql.prefix(80))") }
    }
}
