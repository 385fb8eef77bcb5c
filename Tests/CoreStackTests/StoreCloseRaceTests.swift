import Foundation
import Synchronization
import TestSupportKit
import Testing

@testable import CoreStack

/// `SQLiteStore.close()` on one thread while other threads read and write through the store:
/// each call either completes (on a connection still open) or throws `storeClosed`; never a
/// crash, and never an SQLite "connection is closed" error dressed as something else.
@Suite struct StoreCloseRaceTests {
    /// The calls made by the reading threads, in turn: every way a read or write enters the store.
    private static let operations = 6

    /// One call of kind `kind`; returns whether its result is what the store holds (three books).
    private static func call(_ kind: Int, on store: SQLiteStore, book: EntityDescription) throws -> Bool {
        let request = StoreFetchRequest(entity: book)
        switch kind {
        case 0: return try store.fetch(request).count == 3  // one statement (readStatement)
        case 1: return try store.storeEntities().isEmpty == false  // a read transaction (read)
        case 2:  // the off-queue reader's connection
            return try store.fetchObjectIDColumns(request, valuesAt: [0], cancellation: FetchCancellation()).ids.count == 3
        case 3: return try store.count(request) == 3
        case 4:  // a stream, on a connection of its own
            var rows = 0
            try store.fetch(request, withToMany: false) { chunk, _ in rows += chunk.count }
            return rows == 3
        default: return try store.newPrimaryKeys(for: book, count: 1).count == 1  // a write transaction
        }
    }

    /// A store of three books (written through a context), closed again; and its model.
    private func library(_ name: String) throws -> (folder: URL, url: URL, model: ManagedObjectModel) {
        let (folder, store, stack) = try StoreClosingTests.library(name, file: "Race.sqlite")
        try stack.coordinator.remove(store)
        store.close()
        return (folder, folder.appendingPathComponent("Race.sqlite"), store.model)
    }

    @Test(
        "a call that passed the store's open check when the store closes throws storeClosed: read, single statement, count, stream, write, off-queue read",
        arguments: [0, 1, 2, 3, 4, 5])
    func closeBetweenCheckAndConnection(kind: Int) throws {
        let (folder, url, model) = try library("close-between")
        defer { try? FileManager.default.removeItem(at: folder) }
        let book = try #require(model.entity(named: "Book"))
        let store = try SQLiteStore(url: url, model: model)
        #expect(try Self.call(kind, on: store, book: book))  // opens the off-queue reader, for kind 2
        let close: @Sendable () -> Void = { [weak store] in store?.close() }
        if kind == 2 {
            // Between taking the off-queue reader's connection and reaching its queue.
            store.offQueueReader.afterConnectionHook.withLock { $0 = close }
        } else {
            store.afterOpenCheckHook = close
        }
        #expect(throws: CoreStackError.storeClosed(url.path)) { _ = try Self.call(kind, on: store, book: book) }
        #expect(store.isClosed)
        #expect(throws: CoreStackError.storeClosed(url.path)) { _ = try Self.call(kind, on: store, book: book) }
    }

    /// The names of the files in `folder`, sorted.
    private func names(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    @Test("a stream that passed the open check as a writable store closed throws storeClosed and opens no connection: only the store file is left")
    func streamStartingAfterClose() throws {
        let (folder, url, model) = try library("stream-after-close")
        defer { try? FileManager.default.removeItem(at: folder) }
        let book = try #require(model.entity(named: "Book"))
        let store = try SQLiteStore(url: url, model: model)
        _ = try store.newPrimaryKeys(for: book, count: 1)  // a write: the -wal holds a frame
        store.afterOpenCheckHook = { [weak store] in store?.close() }
        var delivered = 0
        #expect(throws: CoreStackError.storeClosed(url.path)) {
            try store.fetch(StoreFetchRequest(entity: book), withToMany: false) { chunk, _ in delivered += chunk.count }
        }
        #expect(delivered == 0)
        #expect(store.isClosed)
        #expect(try names(folder) == ["Race.sqlite"])
    }

    @Test("a writable store closed while a stream runs: the stream reads to its end, the store refuses other calls, and once the stream ends only the store file is left (the -wal checkpointed)")
    func closeDuringStream() throws {
        let (folder, url, model) = try library("close-during-stream")
        defer { try? FileManager.default.removeItem(at: folder) }
        let book = try #require(model.entity(named: "Book"))
        let store = try SQLiteStore(url: url, model: model)
        let key = try #require(try store.newPrimaryKeys(for: book, count: 1).first)  // a write: the -wal holds a frame
        var delivered = 0
        try store.fetch(StoreFetchRequest(entity: book), withToMany: false) { chunk, _ in
            delivered += chunk.count
            store.close()
            #expect(throws: CoreStackError.storeClosed(url.path)) { _ = try store.count(StoreFetchRequest(entity: book)) }
        }
        #expect(delivered == 3)
        #expect(store.isClosed)
        #expect(try names(folder) == ["Race.sqlite"])
        // The write reached the store file.
        let again = try SQLiteStore(url: url, model: model)
        defer { again.close() }
        #expect(try again.storeEntities().first { $0.name == "Book" }?.maxPrimaryKey == key)
    }

    @Test("closing a store while three threads read and write through it: every call returns the store's rows or throws storeClosed (300 rounds)")
    func closeRacingReads() throws {
        let (folder, url, model) = try library("close-race")
        defer { try? FileManager.default.removeItem(at: folder) }
        let book = try #require(model.entity(named: "Book"))
        let path = url.path
        let problems = LockedValue<[String]>([])
        for round in 0..<300 {
            let store = try SQLiteStore(url: url, model: model)
            let calls = Atomic<Int>(0)
            let finished = Atomic<Int>(0)
            let group = DispatchGroup()
            for thread in 0..<3 {
                DispatchQueue.global().async(group: group) {
                    defer { finished.add(1, ordering: .releasing) }
                    var kind = thread
                    // Until the store refuses (bounded, so a store that never refuses ends the test).
                    for _ in 0..<100_000 {
                        do {
                            if try !Self.call(kind % Self.operations, on: store, book: book) {
                                problems.withLock { $0.append("round \(round): call \(kind % Self.operations) returned a wrong result") }
                            }
                        } catch let error as CoreStackError where error == .storeClosed(path) {
                            return
                        } catch {
                            problems.withLock { $0.append("round \(round): call \(kind % Self.operations) threw \(error)") }
                            return
                        }
                        calls.add(1, ordering: .relaxed)
                        kind += 1
                    }
                    problems.withLock { $0.append("round \(round): the store never refused") }
                }
            }
            // Close once every thread is well under way (a different mix of calls in flight each round).
            while calls.load(ordering: .relaxed) < 6 + round % 12 && finished.load(ordering: .acquiring) < 3 { sched_yield() }
            store.close()
            group.wait()
            let found = problems.withLock { $0 }
            #expect(found.isEmpty, "\(found.prefix(5))")
            if !found.isEmpty { break }
        }
    }
}
