import Foundation
import Testing
@testable import CoreStack

/// A running `corestack-stack-probe` child process.
final class StackProbe: ProbeProcess, @unchecked Sendable {
    let storeURL: URL

    init(storeURL: URL, mode: String = "wait", text: String = "unsaved at termination") throws {
        self.storeURL = storeURL
        try super.init(named: "corestack-stack-probe", arguments: [storeURL.path, mode, text])
    }

    func waitUntilReady() async -> Bool { await waitFor("ready", seconds: 30) }

    /// The process state letter from /proc (R, S, T…).
    var state: String? {
        guard let s = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let close = s.lastIndex(of: ")")
        else { return nil }
        return s[s.index(after: close)...].split(separator: " ").first.map(String.init)
    }

    /// The probe's model, built the same way as in the probe.
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionName: "Probe") {
            EntityDescription("Note") { AttributeDescription("text", .string) }
        }
    }

    /// The texts of the notes in the probe's store, read through a separate read-only store.
    static func notes(at url: URL) throws -> [String] {
        let model = try model()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(SQLiteStore(url: url, model: model, readOnly: true))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        return try context.performAndWait {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).map { o in
                (try o.value(forKey: "text") as? String) ?? ""
            }
        }
    }
}

@Suite("PersistentStoreManager termination saves (child process)", .serialized)
struct PersistentStoreManagerTerminationStackTests {
    @Test("an unsaved insert is on disk after the process receives a termination signal, and it dies of that signal",
          arguments: [SIGTERM, SIGINT, SIGHUP])
    func terminationSignalSaves(sig: Int32) async throws {
        let folder = try StackTempFolder("probe")
        let url = folder.file("LocalData.sqlite")
        let probe = try StackProbe(storeURL: url, text: "signal \(sig)")
        #expect(await probe.waitUntilReady(), "the probe did not start: \(probe.text)")
        #expect(try StackProbe.notes(at: url).isEmpty, "nothing is saved before the signal")
        #expect(kill(probe.process.processIdentifier, sig) == 0)
        #expect(await probe.waitUntilExit(), "the probe did not end: \(probe.text)")
        #expect(probe.process.terminationReason == .uncaughtSignal)
        #expect(probe.process.terminationStatus == sig)
        #expect(try StackProbe.notes(at: url) == ["signal \(sig)"])
    }

    @Test("SIGTSTP saves and then stops the process; it continues after SIGCONT")
    func suspendSaves() async throws {
        let folder = try StackTempFolder("probe")
        let url = folder.file("LocalData.sqlite")
        let probe = try StackProbe(storeURL: url, text: "suspended")
        #expect(await probe.waitUntilReady(), "the probe did not start: \(probe.text)")
        #expect(kill(probe.process.processIdentifier, SIGTSTP) == 0)
        #expect(await eventually(30) { probe.state == "T" }, "the probe did not stop")
        #expect(try StackProbe.notes(at: url) == ["suspended"])
        #expect(kill(probe.process.processIdentifier, SIGCONT) == 0)
        #expect(await eventually(30) { probe.state != "T" })
        #expect(kill(probe.process.processIdentifier, SIGTERM) == 0)
        #expect(await probe.waitUntilExit())
        #expect(probe.process.terminationStatus == SIGTERM)
    }

    @Test("a signal the application handles itself: saved, then the application's handler runs and the process goes on")
    func applicationHandlerRunsAfterTheSave() async throws {
        let folder = try StackTempFolder("probe")
        let url = folder.file("LocalData.sqlite")
        let probe = try StackProbe(storeURL: url, mode: "handler", text: "handled by the app")
        #expect(await probe.waitUntilReady(), "the probe did not start: \(probe.text)")
        #expect(kill(probe.process.processIdentifier, SIGHUP) == 0)
        #expect(await eventually(30) { probe.text.contains("handled") }, "the application's handler did not run: \(probe.text)")
        #expect(try StackProbe.notes(at: url) == ["handled by the app"])
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(probe.process.isRunning, "SIGHUP ended the process although the application handles it")
        #expect(kill(probe.process.processIdentifier, SIGTERM) == 0)
        #expect(await probe.waitUntilExit())
        #expect(probe.process.terminationStatus == SIGTERM)
    }

    @Test("a manager registered again after the last one was deregistered still saves on SIGTERM, and the process dies of it")
    func reregisteredSaverStillSaves() async throws {
        let folder = try StackTempFolder("probe")
        let url = folder.file("LocalData.sqlite")
        let probe = try StackProbe(storeURL: url, mode: "reregister", text: "after a second install")
        #expect(await probe.waitUntilReady(), "the probe did not start: \(probe.text)")
        #expect(kill(probe.process.processIdentifier, SIGTERM) == 0)
        let ended = await probe.waitUntilExit(seconds: 30)
        #expect(ended, "SIGTERM did not end the probe: \(probe.text)")
        if !ended {
            kill(probe.process.processIdentifier, SIGKILL)
            _ = await probe.waitUntilExit(seconds: 10)
        }
        #expect(probe.process.terminationReason == .uncaughtSignal)
        #expect(probe.process.terminationStatus == SIGTERM)
        #expect(try StackProbe.notes(at: url) == ["after a second install"])
    }

    @Test("deregistering the last manager restores the dispositions the process had (handler, ignored, default)")
    func deregisterRestoresDispositions() throws {
        func disposition(_ sig: Int32) -> Int {
            var current = sigaction()
            sigaction(sig, nil, &current)
            return unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self)
        }
        let signals = TerminationSaver.terminationSignals + [SIGTSTP]
        // The application's own: a handler for SIGHUP, SIGINT ignored (restored after the test).
        var originalHUP = sigaction(), originalINT = sigaction()
        sigaction(SIGHUP, nil, &originalHUP)
        sigaction(SIGINT, nil, &originalINT)
        defer {
            sigaction(SIGHUP, &originalHUP, nil)
            sigaction(SIGINT, &originalINT, nil)
        }
        signal(SIGHUP) { _ in }
        signal(SIGINT, SIG_IGN)
        let before = signals.map(disposition)
        let folder = try StackTempFolder("saver")
        let manager = try PersistentStoreManager(configuration: .init(
            model: try LibraryModel.make(), storeURL: folder.file("LocalData.sqlite"), savesOnTermination: false, log: { _ in }))
        TerminationSaver.shared.register(manager)
        #expect(TerminationSaver.shared.isInstalled)
        #expect(disposition(SIGHUP) != before[2], "the saver did not take SIGHUP over")
        TerminationSaver.shared.deregister(manager)
        #expect(!TerminationSaver.shared.isInstalled)
        #expect(signals.map(disposition) == before)
    }

    @Test("a normal exit saves")
    func exitSaves() async throws {
        let folder = try StackTempFolder("probe")
        let url = folder.file("LocalData.sqlite")
        let probe = try StackProbe(storeURL: url, mode: "exit", text: "at exit")
        #expect(await probe.waitUntilExit())
        #expect(probe.process.terminationReason == .exit)
        #expect(probe.process.terminationStatus == 0)
        #expect(try StackProbe.notes(at: url) == ["at exit"])
    }
}
