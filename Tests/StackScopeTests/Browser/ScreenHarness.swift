import CoreStack
import Foundation
import StackScope
import Testing

/// Drives one of the runner's full-screen programs (the diff view, the store picker) on a
/// headless backend, as ``BrowserHarness`` drives the browser: keys in on the main queue, the
/// screen read back as text, waiting for the program to be idle instead of sleeping.
final class ScreenHarness<Program: ScreenProgram>: KeyDrivenHarness, @unchecked Sendable {
    let backend: HeadlessBackend
    var program: Program!

    /// Makes the program on the main queue with `make` and starts it; waits until it is idle
    /// unless `waitForIdle` is false (a test that holds its background job).
    init(size: Size = Size(width: 120, height: 36), waitForIdle: Bool = true, _ make: @escaping @Sendable (HeadlessBackend) -> Program) {
        let backend = HeadlessBackend(size: size)
        self.backend = backend
        let box = Box()
        DispatchQueue.main.sync {
            let p = make(backend)
            box.program = p
            p.begin()
        }
        program = box.program
        if waitForIdle { waitUntilIdle() }
    }

    final class Box: @unchecked Sendable { var program: Program? }

    var idleTimeout: TimeInterval { 30 }
    var programIsIdle: Bool { program.isIdle }
    func deliver(_ key: Key) { program.dispatchKeys([key]) }

    /// Polls a condition on the program on the main queue without waiting for it to be idle
    /// (while a background job of its runs).
    @discardableResult
    func poll(timeout: TimeInterval = 30, _ condition: (Program) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if onMain({ condition(program) }) { return true }
            usleep(10_000)
        }
        return false
    }

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
