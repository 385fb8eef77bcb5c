import CoreStack
import Foundation
import StackScope
import Testing

/// Drives one of the runner's full-screen programs (the diff view, the store picker) on a
/// headless backend, as ``BrowserHarness`` drives the browser: keys in on the main queue, the
/// screen read back as text, waiting for the program to be idle instead of sleeping.
final class ScreenHarness<Program: ScreenProgram>: @unchecked Sendable {
    let backend: HeadlessBackend
    var program: Program!

    /// Makes the program on the main queue with `make` and starts it.
    init(size: Size = Size(width: 120, height: 36), _ make: @escaping @Sendable (HeadlessBackend) -> Program) {
        let backend = HeadlessBackend(size: size)
        self.backend = backend
        let box = Box()
        DispatchQueue.main.sync {
            let p = make(backend)
            box.program = p
            p.begin()
        }
        program = box.program
        waitUntilIdle()
    }

    final class Box: @unchecked Sendable { var program: Program? }

    func onMain<T>(_ body: () throws -> T) rethrows -> T { try DispatchQueue.main.sync(execute: body) }

    func waitUntilIdle(timeout: TimeInterval = 30) {
        let deadline = Date().addingTimeInterval(timeout)
        var quiet = 0
        while quiet < 3 && Date() < deadline {
            if onMain({ program.isIdle }) { quiet += 1 } else { quiet = 0 }
            usleep(2_000)
        }
    }

    /// Presses keys given by name, separated by spaces: `"j j Enter"`, `"Tab"`, `"Esc"`.
    func press(_ keys: String) {
        for name in keys.split(separator: " ") {
            guard let key = Key.parse(String(name)) else {
                Issue.record("unknown key name \(name)")
                continue
            }
            send(key)
        }
    }

    func type(_ text: String) {
        for c in text { send(.char(c)) }
    }

    func send(_ key: Key) {
        onMain { program.dispatchKeys([key]) }
        waitUntilIdle()
    }

    var screen: String { onMain { backend.text } }
    var lines: [String] { onMain { backend.lines } }

    func line(containing text: String) -> String? { lines.first { $0.contains(text) } }

    /// Waits until a condition on the program holds.
    @discardableResult
    func waitUntil(timeout: TimeInterval = 30, _ condition: (Program) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            waitUntilIdle()
            if onMain({ condition(program) }) { return true }
            usleep(10_000)
        }
        return false
    }
}
