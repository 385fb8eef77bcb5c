import CoreStack
import Foundation
import StackScope
import Testing

/// Drives the real browser program on its headless backend, as a person would: keys in, the
/// screen read back as text. Everything the program touches runs on the main queue (drained by
/// another thread under Swift Testing on Linux), so the harness hops there and waits for the
/// program to be idle instead of sleeping.
final class BrowserHarness: KeyDrivenHarness, @unchecked Sendable {
    let session: BrowserSession
    let backend: HeadlessBackend
    var program: BrowserProgram!

    /// `clock` gives the program's time; by default one that stands still.
    init(
        session: BrowserSession, size: Size = Size(width: 120, height: 36), open entity: String? = nil,
        clock: (@Sendable () -> Date)? = nil
    ) throws {
        self.session = session
        let backend = HeadlessBackend(size: size)
        self.backend = backend
        let box = ProgramBox()
        DispatchQueue.main.sync {
            // A clock that stands still: row marks fade only when a test ticks past them, however
            // slow the machine (tests that check fading send a later tick themselves).
            let start = Date()
            let p = BrowserProgram(session: session, backend: backend, clock: clock ?? { start })
            p.copyHandler = { _ in }
            box.program = p
            p.start(openEntity: entity)
        }
        program = box.program
        waitUntilIdle()
    }

    final class ProgramBox: @unchecked Sendable { var program: BrowserProgram? }

    /// An in-memory demo library of about `size` objects, browsed through a CoreDataStack.
    static func demo(size: Int = 120, screen: Size = Size(width: 120, height: 36), open entity: String? = nil) throws -> BrowserHarness {
        let model = try DemoLibrary.model()
        let session = try BrowserSession.stack(over: InMemoryStore(model: model))
        let root = try #require(session.stack).privateQueueContext
        try root.performAndWait {
            _ = try DemoLibrary.populate(root, size: size)
            try root.save()
        }
        return try BrowserHarness(session: session, size: screen, open: entity)
    }

    var idleTimeout: TimeInterval { 20 }
    var programIsIdle: Bool { program.isIdle }
    func deliver(_ key: Key) { program.dispatch(.key(key)) }

    func resize(_ size: Size) {
        onMain {
            backend.size = size
            program.dispatch(.resized(size))
        }
        waitUntilIdle()
    }

    var state: AppState { onMain { program.state } }

    /// Waits for text to appear on screen (saves arrive from other queues).
    @discardableResult
    func waitFor(_ text: String, timeout: TimeInterval = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            waitUntilIdle()
            if screen.contains(text) { return true }
            usleep(10_000)
        }
        return false
    }

    /// Waits until a condition on the state holds.
    @discardableResult
    func waitUntil(timeout: TimeInterval = 10, _ condition: (AppState) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            waitUntilIdle()
            if condition(state) { return true }
            usleep(10_000)
        }
        return false
    }
}
