import Foundation
import StackScope
import Testing

/// What ``BrowserHarness`` and ``ScreenHarness`` share: keys handed to a program on the main
/// queue, waiting until it is idle instead of sleeping, and the headless screen read back as text.
///
/// ```swift
/// h.press("j j Enter")
/// #expect(h.screen.contains("Book 1"))
/// ```
protocol KeyDrivenHarness: AnyObject {
    var backend: HeadlessBackend { get }
    /// How long ``waitUntilIdle()`` waits at most.
    var idleTimeout: TimeInterval { get }
    /// Whether the program has no queued actions or scheduled jobs (called on the main queue).
    var programIsIdle: Bool { get }
    /// Hands `key` to the program (called on the main queue).
    func deliver(_ key: Key)
}

extension KeyDrivenHarness {
    func onMain<T>(_ body: () throws -> T) rethrows -> T { try DispatchQueue.main.sync(execute: body) }

    /// Waits until the program is idle for several turns of the main queue in a row (so that
    /// saves posted from other queues have arrived), or ``idleTimeout`` passes.
    func waitUntilIdle() {
        let deadline = Date().addingTimeInterval(idleTimeout)
        var quiet = 0
        while quiet < 3 && Date() < deadline {
            if onMain({ programIsIdle }) { quiet += 1 } else { quiet = 0 }
            usleep(2_000)
        }
    }

    /// Presses keys given by name, separated by spaces: `"j j Enter"`, `"C-d"`, `"PgDn"`, `"S-Tab"`.
    func press(_ keys: String) {
        for name in keys.split(separator: " ") {
            guard let key = Key.parse(String(name)) else {
                Issue.record("unknown key name \(name)")
                continue
            }
            send(key)
        }
    }

    /// Types text character by character.
    func type(_ text: String) {
        for c in text { send(.char(c)) }
    }

    func send(_ key: Key) {
        onMain { deliver(key) }
        waitUntilIdle()
    }

    var screen: String { onMain { backend.text } }
    var lines: [String] { onMain { backend.lines } }

    /// The screen line containing `text`, if any.
    func line(containing text: String) -> String? { lines.first { $0.contains(text) } }
}
