import Foundation
import GRDB

/// One way the fuzzer damages a copy of a fixture store: bytes, pages, values, schema rows, `-wal`.
enum StoreMutation: String, CaseIterable, Sendable {
    case flipBytes, flipHeader, zeroPage, garbagePage, swapPages, copyPage, truncate, appendGarbage
    case wrongValue, schemaRow, walBytes, several

    /// Values that do not belong in a column: other types, extremes, empties.
    static let hostileValues = [
        "'x'", "''", "X'00'", "X''", "-1", "0", "9223372036854775807", "-9223372036854775808", "1e308", "-1e308",
        "2.5", "NULL", "'9999999999999999999999'", "zeroblob(70000)", "'" + String(repeating: "z", count: 5000) + "'",
        "X'62706C6973743030D00800000000000001010000000000000001000000000000000000000000000009'",
    ]

    /// Damages the store at `url` (a copy in its own folder). `scratch` is an empty folder it may use.
    /// Returns a short description of what it did.
    func apply(to url: URL, scratch: URL, fixture: FixtureStore, fixtures: URL, rng: inout SplitMix64) throws -> String {
        switch self {
        case .wrongValue: return try Self.wrongValue(url, rng: &rng)
        case .schemaRow: return try Self.schemaRow(url, rng: &rng)
        case .walBytes: return try Self.walBytes(url, scratch: scratch, fixture: fixture, fixtures: fixtures, rng: &rng)
        case .several:
            // SQL edits first, on the intact file: the fuzzer's own GRDB connection must not meet
            // the damage (GRDB traps on some malformed schemas, and a crash here ends the run).
            var done: [String] = []
            if rng.below(2) == 0 {
                let m = rng.pick([StoreMutation.wrongValue, .schemaRow])
                done.append(try m.apply(to: url, scratch: scratch, fixture: fixture, fixtures: fixtures, rng: &rng))
            }
            for _ in 0..<(1 + rng.below(2)) {
                let m = rng.pick(StoreMutation.allCases.filter { ![.several, .walBytes, .wrongValue, .schemaRow].contains($0) })
                done.append(try m.apply(to: url, scratch: scratch, fixture: fixture, fixtures: fixtures, rng: &rng))
            }
            return done.joined(separator: " + ")
        default:
            var bytes = [UInt8](try Data(contentsOf: url))
            let what = Self.mutateBytes(&bytes, self, rng: &rng)
            try Data(bytes).write(to: url)
            return what
        }
    }

    /// The page size the header records (4096 when the header is unreadable).
    static func pageSize(_ bytes: [UInt8]) -> Int {
        guard bytes.count >= 100 else { return 4096 }
        let raw = Int(bytes[16]) << 8 | Int(bytes[17])
        let size = raw == 1 ? 65536 : raw
        return size >= 512 && size & (size - 1) == 0 ? size : 4096
    }

    static func mutateBytes(_ bytes: inout [UInt8], _ kind: StoreMutation, rng: inout SplitMix64) -> String {
        guard !bytes.isEmpty else { return "empty file" }
        let size = pageSize(bytes)
        let pages = max(1, bytes.count / size)
        func page(_ n: Int) -> Range<Int> { (n * size)..<min(bytes.count, (n + 1) * size) }
        switch kind {
        case .flipBytes:
            let n = 1 + rng.below(16)
            for _ in 0..<n { bytes[rng.below(bytes.count)] ^= 1 << UInt8(rng.below(8)) | (rng.below(4) == 0 ? rng.byte() : 0) }
            return "flip \(n) bytes"
        case .flipHeader:
            let n = 1 + rng.below(4)
            for _ in 0..<n { bytes[rng.below(min(100, bytes.count))] = rng.byte() }
            return "header: \(n) bytes"
        case .zeroPage:
            let p = rng.below(pages)
            for i in page(p) { bytes[i] = 0 }
            return "zero page \(p + 1)"
        case .garbagePage:
            let p = rng.below(pages)
            // Half the time keep the b-tree page type byte, so SQLite reads further into the page.
            let keep = rng.below(2) == 0
            for i in page(p) where !(keep && i == page(p).lowerBound + (p == 0 ? 100 : 0)) { bytes[i] = rng.byte() }
            return "garbage page \(p + 1)"
        case .swapPages:
            let a = rng.below(pages), b = rng.below(pages)
            let ra = page(a), rb = page(b)
            guard ra.count == rb.count, a != b else { return "swap nothing" }
            let copy = Array(bytes[ra])
            bytes.replaceSubrange(ra, with: bytes[rb])
            bytes.replaceSubrange(rb, with: copy)
            return "swap pages \(a + 1) and \(b + 1)"
        case .copyPage:
            let a = rng.below(pages), b = rng.below(pages)
            let ra = page(a), rb = page(b)
            guard ra.count == rb.count else { return "copy nothing" }
            bytes.replaceSubrange(rb, with: Array(bytes[ra]))
            return "copy page \(a + 1) over \(b + 1)"
        case .truncate:
            let at = rng.below(2) == 0 ? rng.below(pages) * size : rng.below(bytes.count)
            bytes.removeSubrange(at...)
            return "truncate at \(at)"
        default:
            let n = 1 + rng.below(3 * size)
            for _ in 0..<n { bytes.append(rng.byte()) }
            return "append \(n) bytes"
        }
    }

    /// Sets a column of some rows of a table (Core Data's own tables more often) to a hostile value.
    static func wrongValue(_ url: URL, rng: inout SplitMix64) throws -> String {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        return try queue.write { db in
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            guard !tables.isEmpty else { return "no tables" }
            let own = tables.filter { ["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"].contains($0) }
            let table = rng.below(2) == 0 && !own.isEmpty ? rng.pick(own) : rng.pick(tables)
            let columns = try db.columns(in: table).map(\.name)
            guard !columns.isEmpty else { return "no columns in \(table)" }
            let column = rng.pick(columns)
            let value = rng.pick(hostileValues)
            let rowids = try Int64.fetchAll(db, sql: "SELECT rowid FROM \"\(table)\" ORDER BY rowid")
            let chosen = rowids.isEmpty ? [] : (0..<(1 + rng.below(3))).map { _ in rng.pick(rowids) }
            let filter = rng.below(4) == 0 ? "" : " WHERE rowid IN (\(chosen.map(String.init).joined(separator: ",")))"
            try? db.execute(sql: "UPDATE OR IGNORE \"\(table)\" SET \"\(column)\" = \(value)\(filter)")
            return "\(table).\(column) = \(value.prefix(24))\(filter.isEmpty ? " (all rows)" : "")"
        }
    }

    /// Edits `sqlite_master` directly: a wrong root page, a column dropped or retyped in a
    /// CREATE statement, a row deleted or renamed.
    static func schemaRow(_ url: URL, rng: inout SplitMix64) throws -> String {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        return try queue.writeWithoutTransaction { db in
            let rows = try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name")
            guard !rows.isEmpty else { return "no schema rows" }
            let row = rng.pick(rows)
            let name = String.fromDatabaseValue(row[0] as DatabaseValue) ?? ""
            let sql = String.fromDatabaseValue(row[1] as DatabaseValue) ?? ""
            let edit: String
            var arguments: StatementArguments = [name]
            switch rng.below(6) {
            case 0:
                edit = "UPDATE sqlite_master SET rootpage = ? WHERE name = ?"
                arguments = [rng.below(3) == 0 ? Int64(rng.next() >> 1) : Int64(rng.below(64)), name]
            case 1:
                edit = "DELETE FROM sqlite_master WHERE name = ?"
            case 2:
                edit = "UPDATE sqlite_master SET name = name || '_X', tbl_name = tbl_name || '_X' WHERE name = ?"
            case 3:
                // Drop one column definition from the CREATE statement.
                var parts = sql.components(separatedBy: ", ")
                if parts.count > 2 { parts.remove(at: 1 + rng.below(parts.count - 1)) }
                edit = "UPDATE sqlite_master SET sql = ? WHERE name = ?"
                arguments = [parts.joined(separator: ", "), name]
            case 4:
                let retyped = sql.replacingOccurrences(of: rng.pick(["INTEGER", "VARCHAR", "BLOB", "FLOAT", "TIMESTAMP"]), with: rng.pick(["TEXT", "BLOB", "INTEGER", "REAL", ""]))
                edit = "UPDATE sqlite_master SET sql = ? WHERE name = ?"
                arguments = [retyped, name]
            default:
                var chars = Array(sql)
                for _ in 0..<(1 + rng.below(3)) where !chars.isEmpty { chars[rng.below(chars.count)] = rng.pick(["(", ")", ",", " ", "'", "\"", "x"]) }
                edit = "UPDATE sqlite_master SET sql = ? WHERE name = ?"
                arguments = [String(chars), name]
            }
            try db.execute(sql: "PRAGMA writable_schema = ON")
            try? db.execute(sql: edit, arguments: arguments)
            let version = try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
            try? db.execute(sql: "PRAGMA schema_version = \(version + 1)")
            try db.execute(sql: "PRAGMA writable_schema = OFF")
            return "schema row \(name): \(edit.prefix(30))"
        }
    }

    /// Damages a `-wal` file: the fixture's own, or one made here by writing to the copy with
    /// checkpoints off and taking the files while the connection is open.
    static func walBytes(_ url: URL, scratch: URL, fixture: FixtureStore, fixtures: URL, rng: inout SplitMix64) throws -> String {
        let fm = FileManager.default
        let wal = url.path + "-wal"
        if !fm.fileExists(atPath: wal) {
            let source = try fixture.copy(from: fixtures, into: scratch)
            let queue = try DatabaseQueue(path: source.path)
            try queue.writeWithoutTransaction { db in
                _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
                try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
                let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z%' ORDER BY name")
                for table in tables {
                    let columns = try db.columns(in: table).map(\.name)
                    if columns.contains("Z_OPT") {
                        try? db.execute(sql: "UPDATE \"\(table)\" SET Z_OPT = Z_OPT + 1 WHERE rowid IN (SELECT rowid FROM \"\(table)\" ORDER BY rowid LIMIT 5)")
                    }
                }
                try? db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + 1")
            }
            // Taken while the connection is open: the WAL holds the writes, not yet checkpointed.
            for suffix in ["", "-wal"] {
                try? fm.removeItem(atPath: url.path + suffix)
                try fm.copyItem(atPath: source.path + suffix, toPath: url.path + suffix)
            }
            try? fm.removeItem(atPath: url.path + "-shm")
            try? queue.close()
        }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: wal)))
        guard !bytes.isEmpty else { return "empty -wal" }
        let what: String
        switch rng.below(5) {
        case 0:
            let n = 1 + rng.below(8)
            for _ in 0..<n { bytes[rng.below(bytes.count)] ^= 1 << UInt8(rng.below(8)) }
            what = "-wal: flip \(n) bits"
        case 1:
            let at = rng.below(bytes.count)
            bytes.removeSubrange(at...)
            what = "-wal: truncate at \(at)"
        case 2:
            for i in 0..<min(32, bytes.count) { bytes[i] = rng.below(2) == 0 ? 0 : rng.byte() }
            what = "-wal: header overwritten"
        case 3:
            // A frame body (after its 24-byte frame header) overwritten, checksums untouched.
            let start = min(bytes.count - 1, 32 + 24 + rng.below(max(1, bytes.count - 56)))
            for i in start..<min(bytes.count, start + 512) { bytes[i] = rng.byte() }
            what = "-wal: frame bytes at \(start)"
        default:
            what = "-wal: appended garbage"
            for _ in 0..<(1 + rng.below(8192)) { bytes.append(rng.byte()) }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: wal))
        return what
    }
}
