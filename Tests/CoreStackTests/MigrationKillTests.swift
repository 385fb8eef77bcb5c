import Foundation
import Testing

@testable import CoreStack

/// A running `corestack-migrate-probe`: migrates a store on open, until it ends or is killed.
/// Its output is read on the caller's thread, blocking, so the test sees "migrating" the moment it
/// is written (a polling reader lags behind by milliseconds when the machine is busy).
final class MigrateProbe {
    let process = Process()
    private let handle: FileHandle
    private(set) var text = ""

    static func binary() throws -> URL { try ProbeExecutable.url(named: "corestack-migrate-probe") }

    init(_ arguments: [String]) throws {
        process.executableURL = try Self.binary()
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        handle = pipe.fileHandleForReading
        try process.run()
    }

    /// Blocks until the probe has printed `word` (true) or closed its output (false).
    func waitFor(_ word: String) -> Bool {
        while !text.contains(word) {
            let data = handle.availableData
            if data.isEmpty { return false }
            text += String(decoding: data, as: UTF8.self)
        }
        return true
    }

    /// Waits for the probe to end and reads the rest of its output.
    func finish() {
        text += String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
    }
}

@Suite("migration killed with SIGKILL (corestack-migrate-probe)", .serialized)
struct MigrationKillTests {
    static let store = "stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_3.sqlite"

    @Test("a migration SIGKILLed at 30 seeded moments leaves at the store's path the original or the migrated store, whole, never a mix")
    func killedMigrations() throws {
        let modelURL = Fixtures.url(MigrationTests.wibosco)
        let read = try XcodeModelReader.readBundle(at: modelURL)
        let v3 = try #require(read.version(named: "CoreDataMigration_Example 3"))
        let v4 = try #require(read.version(named: "CoreDataMigration_Example 4"))
        let bundle = ManagedObjectModelBundle(name: read.name, versions: read.versions, currentVersion: v4)
        let fixture = try Fixtures.copyStore(Self.store)
        let originalMetadata = try SQLiteStore.metadata(at: fixture)
        #expect(originalMetadata.versionHashes != v4.entityVersionHashes)
        let arguments = { (url: URL) in [url.path, modelURL.path, "CoreDataMigration_Example 4"] }

        // How long one migration takes here, as the probe measures it (the median of three). The
        // machine's load changes while the test runs, so each round adjusts the estimate.
        var durations: [Double] = []
        for _ in 0..<3 {
            let probe = try MigrateProbe(arguments(try Fixtures.copyStore(Self.store)))
            probe.finish()
            let words = probe.text.split(whereSeparator: \.isWhitespace)
            let ms = words.firstIndex(of: "done").flatMap { $0 + 2 < words.count ? Double(words[$0 + 2]) : nil }
            #expect(ms != nil, "\(probe.text)")
            durations.append((ms ?? 50) / 1000)
        }
        var window = max(durations.sorted()[1], 0.01)

        var generator = SplitMix64(seed: 17)  // fixed seed: the same kill moments on every run
        var outcomes: [String: Int] = [:]
        var killedBeforeTheEnd = 0
        let kills = 30
        for round in 0..<kills {
            let url = try Fixtures.copyStore(Self.store)
            let folder = url.deletingLastPathComponent()
            let probe = try MigrateProbe(arguments(url))
            #expect(probe.waitFor("migrating"), "\(probe.text)")
            // Seeded moments over the migration (as long as the estimate) and a little past it.
            let delay = window * Double.random(in: 0...1.2, using: &generator)
            usleep(UInt32(delay * 1e6))
            kill(probe.process.processIdentifier, SIGKILL)
            probe.finish()
            if probe.process.terminationReason == .uncaughtSignal {
                killedBeforeTheEnd += 1
                window = max(window, delay)  // it took longer than that
            } else {
                window = max((window + delay) / 2, 0.01)  // it took less
            }

            // The file at the store's path: whole, and one store or the other.
            let check = try RawSQLite.run("PRAGMA integrity_check", in: url).map { "\($0.values.first ?? "")" }
            #expect(check == ["ok"], "round \(round), killed after \(delay) s")
            let metadata = try SQLiteStore.metadata(at: url)
            #expect(metadata.storeUUID == originalMetadata.storeUUID)
            let outcome: String
            if metadata.versionHashes == originalMetadata.versionHashes {
                outcome = "original"
                #expect(try MigrationTests.count("Post", url, v3) == 7995)
                #expect(try MigrationTests.count("Color", url, v3) == 7995)
            } else {
                outcome = "migrated"
                #expect(metadata.versionHashes == v4.entityVersionHashes, "round \(round): neither version's hashes")
                #expect(try MigrationTests.count("Post", url, v4) == 7995)
                #expect(try MigrationTests.count("Color", url, v4) == 7995)
                #expect(try RawSQLite.scalar("SELECT COUNT(*) FROM ZPOST WHERE ZHIDE = 0 AND ZCOLOR IS NOT NULL", in: url) == 7995)
            }
            outcomes[outcome, default: 0] += 1
            // Beside it, at most an interrupted migration's temporary files (never named as the store).
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            let expected = Set(["", "-wal", "-shm"].map { url.lastPathComponent + $0 })
            #expect(names.allSatisfy { expected.contains($0) || $0.hasPrefix(SQLiteMigration.temporaryPrefix(for: url)) }, "\(names)")

            // It reopens (migrating if it was the original), and the leftovers are gone.
            let options = PersistentStoreOptions(shouldMigrateStoreAutomatically: true)
            do {
                let reopened = try SQLiteStore.open(url: url, bundle: bundle, readOnly: false, options: options)
                #expect(reopened.model === v4)
                #expect(reopened.migrationsOnOpen.count == (outcome == "original" ? 1 : 0))
            }
            #expect(try MigrationTests.count("Post", url, v4) == 7995)
            let after = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(!after.contains { $0.hasPrefix(SQLiteMigration.temporaryPrefix(for: url)) }, "\(after)")
        }
        print("migration kill test: \(kills) kills, measured \(durations.map { Int($0 * 1000) }) ms, last estimate \(Int(window * 1000)) ms, \(killedBeforeTheEnd) before the probe ended, outcomes \(outcomes.sorted { $0.key < $1.key })")
        #expect(outcomes.values.reduce(0, +) == kills)
        // The seeded moments fall inside the migration, not only after it.
        #expect(killedBeforeTheEnd >= kills / 4, "estimates of the migration's duration: \(durations)")
    }
}
