import Foundation
import Testing
@testable import CoreStack

@Suite("Remote change notifications (two coordinators in one process)", .serialized)
struct RemoteChangeTests {
    @Test("another coordinator's save is posted with its transaction and token; this coordinator's own saves are not")
    func otherCoordinatorNotices() async throws {
        let url = try HistoryStack.newURL()
        let model = try NoteModel.make()
        let a = try HistoryStack(url: url, model: model, notifications: true, name: "a")
        let b = try HistoryStack(url: url, model: model, notifications: true, name: "b")
        let events = Recorder<RemoteStoreChange>()
        let observation = b.coordinator.addRemoteChangeObserver { events.append($0) }
        let notes = Recorder<PersistentHistoryToken>()
        let center = NotificationCenter.default.addObserver(forName: .persistentStoreRemoteChange, object: b.coordinator, queue: nil) { note in
            if let t = note.userInfo?[RemoteChangeKey.historyToken] as? PersistentHistoryToken { notes.append(t) }
        }
        defer { NotificationCenter.default.removeObserver(center) }
        try b.insertNotes(["own"], author: "b")
        try a.insertNotes(["x", "y"], author: "a")
        #expect(await eventually(10) { events.count >= 1 })
        try await Task.sleep(nanoseconds: 150_000_000)
        let got = events.values
        #expect(got.count == 1)
        #expect(got.first?.transactions.map(\.author) == ["a"])
        #expect(got.first?.transactions.first?.changes.count == 2)
        #expect(got.first?.historyToken == PersistentHistoryToken(storeIdentifier: b.store.identifier, transactionNumber: 2))
        #expect(got.first?.storeURL == url)
        #expect(notes.values == [PersistentHistoryToken(storeIdentifier: b.store.identifier, transactionNumber: 2)])
        // a saw b's save, not its own.
        _ = observation
    }

    @Test("an auto-merging context's fetched results controller shows the other coordinator's insert, update and delete")
    func autoMergeUpdatesFRC() async throws {
        let url = try HistoryStack.newURL()
        let model = try NoteModel.make()
        let a = try HistoryStack(url: url, model: model, name: "a")
        try a.insertNotes(["m", "z"])
        let b = try HistoryStack(url: url, model: model, notifications: true, name: "b")
        b.context.automaticallyMergesChangesFromParent = true
        let log = FRCLog()
        let controller = FetchedResultsController(
            fetchRequest: FetchRequest<ManagedObject>(entityName: "Note", sortDescriptors: [SortDescriptor("text")]), context: b.context)
        controller.delegate = log
        try b.context.performAndWait {
            try controller.performFetch()
            // Materialise both rows, so the update must come from the merge, not a later fault.
            _ = controller.fetchedObjects.map { try? $0.value(forKey: "text") }
        }
        try a.insertNotes(["a"])
        #expect(await eventually(10) { log.last == ["a", "m", "z"] })
        try a.context.performAndWait {
            for note in try a.context.fetch(FetchRequest<ManagedObject>(entityName: "Note")) {
                let text = try note.value(forKey: "text") as? String
                if text == "m" { try note.setValue("n", forKey: "text") }
                if text == "z" { try a.context.delete(note) }
            }
            try a.context.save()
        }
        #expect(await eventually(10) { log.last == ["a", "n"] })
    }

    @Test("without history the event carries no transactions and the row cache is emptied")
    func withoutHistory() async throws {
        let url = try HistoryStack.newURL()
        let model = try NoteModel.make()
        let a = try HistoryStack(url: url, model: model, tracking: false, name: "a")
        let b = try HistoryStack(url: url, model: model, tracking: false, notifications: true, name: "b")
        try a.insertNotes(["x"])
        _ = try b.noteTexts()
        #expect(b.coordinator.rowCacheCount == 1)
        let events = Recorder<RemoteStoreChange>()
        let observation = b.coordinator.addRemoteChangeObserver { events.append($0) }
        try a.insertNotes(["y"])
        #expect(await eventually(10) { events.count >= 1 })
        #expect(events.values.first?.transactions.isEmpty == true)
        #expect(events.values.first?.historyToken == nil)
        #expect(b.coordinator.rowCacheCount == 0)
        b.coordinator.removeRemoteChangeObserver(observation)
    }

    @Test("stores opened without the option start no monitor and post nothing")
    func optIn() async throws {
        let url = try HistoryStack.newURL()
        let model = try NoteModel.make()
        let a = try HistoryStack(url: url, model: model, name: "a")
        let b = try HistoryStack(url: url, model: model, name: "b")
        let events = Recorder<RemoteStoreChange>()
        let observation = b.coordinator.addRemoteChangeObserver { events.append($0) }
        try a.insertNotes(["x"])
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(events.count == 0)
        _ = observation
    }
}
