import Dispatch
import Foundation
import Testing
@testable import CoreStack

/// Changes made on a main-queue context outside `perform` (legal on the main thread) are processed
/// and announced at the end of the current main-queue turn, as Core Data does at the end of the
/// run loop's turn (issue 19).
@Suite("main-queue context: changes outside perform are announced at the end of the turn")
@MainActor
struct MainQueueEndOfTurnTests {
    private func endOfTurn() async { await endOfMainQueueTurn() }

    /// The inserted, updated and deleted titles of each objectsDidChange.
    final class Announcements {
        var changes: [(inserted: Set<String>, updated: Set<String>, deleted: Set<String>)] = []
        func record(_ change: ObjectsDidChange) {
            func titles(_ objects: Set<ManagedObject>) -> Set<String> {
                Set(objects.compactMap { ($0 as? Book)?.title })
            }
            changes.append((titles(change.inserted), titles(change.updated), titles(change.deleted)))
        }
    }

    @Test("inserts, updates and deletes outside perform: nothing during the turn, one objectsDidChange after it, and the controller and monitor follow")
    func announcedOnceAtTheEndOfTheTurn() async throws {
        let stack = try BookFixture.makeStack()
        let main = ManagedObjectContext(concurrencyType: .mainQueue, coordinator: stack.coordinator, name: "main")
        let announcements = Announcements()
        let token = main.addObjectsDidChangeObserver { announcements.record($0) }
        let controller = BookFixture.controller(main)
        let controllerRecorder = RecordingDelegate()
        controller.delegate = controllerRecorder
        try controller.performFetch()
        let monitor = try EntityMonitor<Book>(context: main, frequency: .onChange)
        let monitorRecorder = MonitorRecorder<Book>(name: { $0.title })
        monitor.delegate = monitorRecorder
        #expect(controller.fetchedObjects.count == 100)

        // On the main thread, outside perform.
        let added = try Book(context: main)
        added.title = "Dune Messiah"
        added.pages = 256
        let emma = try #require(controller.fetchedObjects.first { $0.title == "Emma" })
        emma.pages = 1_000
        let dune = try #require(controller.fetchedObjects.first { $0.title == "Dune" })
        try main.delete(dune)

        #expect(announcements.changes.isEmpty, "nothing is announced before the turn ends")
        #expect(controllerRecorder.didCount == 0)
        #expect(monitorRecorder.calls.isEmpty)

        await endOfTurn()

        #expect(announcements.changes.count == 1, "one announcement for the whole turn")
        #expect(announcements.changes.first?.inserted == ["Dune Messiah"])
        #expect(announcements.changes.first?.updated == ["Emma"])
        #expect(announcements.changes.first?.deleted == ["Dune"])
        #expect(controllerRecorder.didCount == 1)
        #expect(controller.fetchedObjects.count == 100)
        #expect(controller.fetchedObjects.contains { $0.title == "Dune Messiah" })
        #expect(!controller.fetchedObjects.contains { $0.title == "Dune" })
        #expect(monitorRecorder.calls.count == 3)
        #expect(monitorRecorder.calls.contains(.inserted(["Dune Messiah"])))
        #expect(monitorRecorder.calls.contains(.updated(["Emma"])))
        #expect(monitorRecorder.calls.contains(.deleted(["Dune"])))

        // A second turn with a change announces again, once.
        emma.pages = 2_000
        await endOfTurn()
        #expect(announcements.changes.count == 2)
        #expect(announcements.changes.last?.updated == ["Emma"])

        // A turn with no change announces nothing.
        await endOfTurn()
        #expect(announcements.changes.count == 2)
        withExtendedLifetime((token, monitor)) {}
    }

    @Test("performAndWait on the main queue (run inline, no processing of its own) is announced at the end of the turn too")
    func inlinePerformAndWait() async throws {
        let stack = try BookFixture.makeStack()
        let main = ManagedObjectContext(concurrencyType: .mainQueue, coordinator: stack.coordinator, name: "main")
        let announcements = Announcements()
        let token = main.addObjectsDidChangeObserver { announcements.record($0) }
        try main.performAndWait {
            let b = try Book(context: main)
            b.title = "Gormenghast"
        }
        #expect(announcements.changes.isEmpty)
        await endOfTurn()
        #expect(announcements.changes.map(\.inserted) == [["Gormenghast"]])
        withExtendedLifetime(token) {}
    }

    @Test("changes made inside perform are announced at the end of the block, and the end of the turn adds nothing")
    func performAnnouncesOnce() async throws {
        let stack = try BookFixture.makeStack()
        let main = ManagedObjectContext(concurrencyType: .mainQueue, coordinator: stack.coordinator, name: "main")
        let announcements = Announcements()
        let token = main.addObjectsDidChangeObserver { announcements.record($0) }
        try await main.perform {
            let b = try Book(context: main)
            b.title = "Titus Groan"
        }
        #expect(announcements.changes.map(\.inserted) == [["Titus Groan"]])
        await endOfTurn()
        #expect(announcements.changes.count == 1)
        withExtendedLifetime(token) {}
    }
}
