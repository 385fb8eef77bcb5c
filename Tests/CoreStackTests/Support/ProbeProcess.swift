import Foundation

/// A running probe executable of this package (see ``ProbeExecutable``) whose standard output and
/// error are collected in the background as it writes them; the tests poll ``text``.
///
/// ```swift
/// let probe = try ProbeProcess(named: "corestack-history-probe", arguments: ["write", path])
/// #expect(await probe.waitFor("ready"))
/// ```
class ProbeProcess: @unchecked Sendable {
    // `process` is started in init and then only read; `output` is locked.
    let process = Process()
    let output = Recorder<String>()

    /// Starts the probe `name` with `arguments`.
    init(named name: String, arguments: [String]) throws {
        process.executableURL = try ProbeExecutable.url(named: name)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let handle = pipe.fileHandleForReading
        let output = output
        DispatchQueue.global().async {
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                output.append(String(decoding: data, as: UTF8.self))
            }
        }
    }

    /// Everything the probe wrote so far.
    var text: String { output.values.joined() }
    /// ``text`` in lines.
    var lines: [String] { text.split(separator: "\n").map(String.init) }

    /// Waits until the probe has written `word` (false after `seconds`).
    func waitFor(_ word: String, seconds: Double = 60) async -> Bool { await eventually(seconds) { self.text.contains(word) } }
    /// Waits until the probe has ended (false after `seconds`).
    func waitUntilExit(seconds: Double = 120) async -> Bool { await eventually(seconds) { !self.process.isRunning } }

    /// ``waitFor(_:seconds:)`` holding the calling thread (polling every 5 ms) instead of
    /// suspending: for a test whose next step must follow at once. An `await` can resume seconds
    /// later when the full suite keeps every thread of the cooperative pool busy.
    func waitForBlocking(_ word: String, seconds: Double = 60) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if text.contains(word) { return true }
            usleep(5_000)
        }
        return text.contains(word)
    }

    /// ``waitUntilExit(seconds:)`` holding the calling thread.
    func waitUntilExitBlocking(seconds: Double = 120) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        return !process.isRunning
    }
}
