import Dispatch
import Foundation
import Testing
@testable import CoreStack

/// A slow `.persistentStoreRemoteChange` observer must not stall the poll: the notification is
/// posted from a queue of the coordinator's, not from the monitor's queue.
@Suite("Remote change notifications: a slow NotificationCenter observer", .serialized)
struct RemoteChangeSlowObserverTests {
    /// Lets the observer block on its first notification until the test releases it.
    final class Gate: @unchecked Sendable {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var tokens: [PersistentHistoryToken] = []
        /// Records a notification's token; true for the first one.
        func note(_ token: PersistentHistoryToken?) -> Bool {
            lock.withLock {
                if let token { tokens.append(token) }
                return tokens.count == 1
            }
        }
        var seen: [PersistentHistoryToken] { lock.withLock { tokens } }
    }

    @Test("while a queue-less notification observer blocks, later commits are still noticed and reach addRemoteChangeObserver observers; the notifications follow in commit order")
    func slowObserverDoesNotStallPolling() async throws {
        let url = try HistoryStack.newURL()
        let model = try NoteModel.make()
        let writer = try HistoryStack(url: url, model: model, name: "writer")
        let reader = try HistoryStack(url: url, model: model, notifications: true, name: "reader")
        let gate = Gate()
        let observer = NotificationCenter.default.addObserver(
            forName: .persistentStoreRemoteChange, object: reader.coordinator, queue: nil
        ) { note in
            guard gate.note(note.userInfo?[RemoteChangeKey.historyToken] as? PersistentHistoryToken) else { return }
            gate.entered.signal()
            _ = gate.release.wait(timeout: .now() + 20)
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let events = Recorder<RemoteStoreChange>()
        let observation = reader.coordinator.addRemoteChangeObserver(queue: DispatchQueue(label: "test.events")) { events.append($0) }
        defer { _ = observation }

        try writer.insertNotes(["first"])
        #expect(gate.entered.wait(timeout: .now() + 10) == .success, "the reader never noticed the first write")
        // The observer is blocked now. The next commits must still be noticed.
        try writer.insertNotes(["second"])
        try writer.insertNotes(["third"])
        let noticed = await eventually(10) { events.values.flatMap(\.transactions).count >= 3 }
        gate.release.signal()
        #expect(noticed, "polling stalled while a NotificationCenter observer was running")
        // The poll may fold the second and third commits into one notification.
        #expect(await eventually(10) { gate.seen.last?.transactionNumber == 3 })
        let numbers = gate.seen.map(\.transactionNumber)
        #expect(numbers.first == 1)
        #expect(numbers == numbers.sorted() && Set(numbers).count == numbers.count)
    }
}
