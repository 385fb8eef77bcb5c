import Dispatch
import Foundation
import Testing
@testable import CoreStack

/// Removing a store while its remote-change monitor is delivering must not deadlock: the poll runs
/// on the monitor's queue and takes the coordinator's lock (row cache, contexts, observers reading
/// the coordinator), so the coordinator stops the monitor before taking its own lock.
@Suite("Remote change notifications: removing the store during a delivery", .serialized)
struct RemoteChangeRemovalTests {
    /// Flags shared between the observer (on the monitor's queue) and the test.
    final class Handshake: @unchecked Sendable {
        let inDelivery = DispatchSemaphore(value: 0)
        let removalStarted = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var fired = false
        private var storeSeen: Bool?
        func firstDelivery() -> Bool { lock.withLock { defer { fired = true }; return !fired } }
        func noteStore(_ seen: Bool) { lock.withLock { storeSeen = seen } }
        var seen: Bool? { lock.withLock { storeSeen } }
    }

    @Test("removePersistentStore while an observer inside the delivery reads the coordinator: both finish")
    func removeDuringDelivery() async throws {
        let url = try HistoryStack.newURL()
        let model = try NoteModel.make()
        let writer = try HistoryStack(url: url, model: model, name: "writer")
        let reader = try HistoryStack(url: url, model: model, notifications: true, name: "reader")
        let coordinator = reader.coordinator
        let handshake = Handshake()
        let observer = NotificationCenter.default.addObserver(
            forName: .persistentStoreRemoteChange, object: coordinator, queue: nil
        ) { _ in
            // Runs on the coordinator's notification queue, posted by the poll.
            guard handshake.firstDelivery() else { return }
            handshake.inDelivery.signal()
            // Let the other thread enter removePersistentStore first, then touch the coordinator.
            _ = handshake.removalStarted.wait(timeout: .now() + 5)
            Thread.sleep(forTimeInterval: 0.2)
            handshake.noteStore(coordinator.persistentStore != nil)
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        try writer.insertNotes(["from the writer"])
        #expect(handshake.inDelivery.wait(timeout: .now() + 10) == .success, "the reader never noticed the write")

        let removed = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            handshake.removalStarted.signal()
            coordinator.removePersistentStore()
            removed.signal()
        }
        let finished = await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
            DispatchQueue.global().async { done.resume(returning: removed.wait(timeout: .now() + 10) == .success) }
        }
        #expect(finished, "removePersistentStore deadlocked with the delivery in progress")
        guard finished else {
            // Deadlocked threads hold the reader's monitor queue and lock: keep the stacks alive
            // so that tearing them down does not hang the rest of the run.
            Self.leaked.keep((writer, reader))
            return
        }
        // The notification is posted from the coordinator's notification queue, not from the
        // poll (so the removal no longer waits for the observer): the observer finishes too, and
        // reads the coordinator without deadlocking.
        #expect(await eventually(10) { handshake.seen != nil }, "the observer inside the delivery did not finish")
        #expect(coordinator.persistentStore == nil)
    }

    /// Stacks left alive after a deadlock (only when the test fails).
    final class Leak: @unchecked Sendable {
        private let lock = NSLock()
        private var kept: [Any] = []
        func keep(_ value: Any) { lock.withLock { kept.append(value) } }
    }
    private static let leaked = Leak()
}
