import Foundation
import Testing
@testable import CoreStack

/// Records a monitor's reports in order.
final class MonitorRecorder<Object: ManagedObject>: EntityMonitorDelegate {
    enum Call: Equatable {
        case inserted(Set<String>)
        case deleted(Set<String>)
        case updated(Set<String>)
    }

    var calls: [Call] = []
    let name: (Object) -> String

    init(name: @escaping (Object) -> String) { self.name = name }

    func entityMonitor(_ monitor: EntityMonitor<Object>, didInsert objects: Set<Object>) {
        calls.append(.inserted(Set(objects.map(name))))
    }

    func entityMonitor(_ monitor: EntityMonitor<Object>, didDelete objects: Set<Object>) {
        calls.append(.deleted(Set(objects.map(name))))
    }

    func entityMonitor(_ monitor: EntityMonitor<Object>, didUpdate objects: Set<Object>) {
        calls.append(.updated(Set(objects.map(name))))
    }
}

@Suite("EntityMonitor")
struct EntityMonitorTests {
    /// Titles are read from committed values so deleted books still have a name.
    static func title(_ b: Book) -> String {
        if case let .attribute(.string(t))? = b.committedValues(forKeys: ["title"])["title"], !t.isEmpty { return t }
        return b.title
    }

    @Test("on save: inserts, updates and deletes each fire once per save")
    func onSave() throws {
        let stack = try BookFixture.makeStack()
        let context = stack.context
        let recorder = MonitorRecorder<Book>(name: Self.title)
        let monitor = try context.performAndWait { try EntityMonitor<Book>(context: context, frequency: .onSave) }
        monitor.delegate = recorder
        #expect(monitor.frequency == .onSave)
        let (a, b) = try context.performAndWait {
            let a = try Book(context: context)
            a.title = "Adam Bede"
            let b = try GraphicNovel(context: context)  // a sub-entity counts
            b.title = "Watchmen"
            return (a, b)
        }
        context.performAndWait { a.pages = 300 }
        #expect(recorder.calls.isEmpty)
        try context.performAndWait { try context.save() }
        #expect(recorder.calls == [.inserted(["Adam Bede", "Watchmen"])])
        recorder.calls = []
        try context.performAndWait {
            a.pages = 301
            b.pages = 12
            try context.save()
        }
        #expect(recorder.calls == [.updated(["Adam Bede", "Watchmen"])])
        recorder.calls = []
        try context.performAndWait {
            try context.delete(a)
            try context.save()
        }
        #expect(recorder.calls == [.deleted(["Adam Bede"])])
        recorder.calls = []
        // One save with all three: inserts, then deletes, then updates.
        try context.performAndWait {
            let c = try Book(context: context)
            c.title = "Cranford"
            try context.delete(b)
            let emma = try #require(try context.fetch(FetchRequest<Book>(entityName: "Book", predicate: .key("title") == "Emma")).first)
            emma.pages = 1
            try context.save()
        }
        #expect(recorder.calls == [.inserted(["Cranford"]), .deleted(["Watchmen"]), .updated(["Emma"])])
    }

    @Test("a Book save does not fire an Author monitor")
    func otherEntity() throws {
        let stack = try BookFixture.makeStack()
        let context = stack.context
        let recorder = MonitorRecorder<Author>(name: \.name)
        let monitor = try context.performAndWait { try EntityMonitor<Author>(context: context, frequency: .onSave) }
        monitor.delegate = recorder
        try context.performAndWait {
            let b = try Book(context: context)
            b.title = "Middlemarch"
            try context.save()
        }
        #expect(recorder.calls.isEmpty)
        try context.performAndWait {
            let a = try Author(context: context)
            a.name = "George Eliot"
            try context.save()
        }
        #expect(recorder.calls == [.inserted(["George Eliot"])])
    }

    @Test("on change: fires at processPendingChanges, not before")
    func onChange() throws {
        let stack = try BookFixture.makeStack()
        let context = stack.context
        let recorder = MonitorRecorder<Book>(name: Self.title)
        try context.performAndWait {
            let monitor = try EntityMonitor<Book>(context: context, frequency: .onChange)
            monitor.delegate = recorder
            let b = try Book(context: context)
            b.title = "Dune"
            #expect(recorder.calls.isEmpty)
            context.processPendingChanges()
            #expect(recorder.calls == [.inserted(["Dune"])])
            b.pages = 412
            #expect(recorder.calls.count == 1)
            context.processPendingChanges()
            #expect(recorder.calls == [.inserted(["Dune"]), .updated(["Dune"])])
            try context.delete(b)
            context.processPendingChanges()
            #expect(recorder.calls.last == .deleted(["Dune"]))
            withExtendedLifetime(monitor) {}
        }
    }

    @Test("the filter predicate title CONTAINS[cd] \"nerd\" leaves out other books")
    func filter() throws {
        let stack = try BookFixture.makeStack()
        let context = stack.context
        let recorder = MonitorRecorder<Book>(name: Self.title)
        let filter: Predicate = .key("title").contains("nerd", options: [.caseInsensitive, .diacriticInsensitive])
        let monitor = try context.performAndWait { try EntityMonitor<Book>(context: context, frequency: .onSave, filterPredicate: filter) }
        monitor.delegate = recorder
        let (nerds, dune) = try context.performAndWait {
            let nerds = try Book(context: context)
            nerds.title = "Revenge of the NÉRDS"
            let dune = try Book(context: context)
            dune.title = "Dune"
            try context.save()
            return (nerds, dune)
        }
        #expect(recorder.calls == [.inserted(["Revenge of the NÉRDS"])])
        recorder.calls = []
        try context.performAndWait {
            dune.pages = 10
            try context.save()
        }
        #expect(recorder.calls.isEmpty)
        // Stops matching: reported once as updated (it was reported before), then no more.
        try context.performAndWait {
            nerds.title = "Revenge"
            try context.save()
        }
        #expect(recorder.calls == [.updated(["Revenge"])])
        recorder.calls = []
        try context.performAndWait {
            nerds.pages = 5
            try context.save()
            try context.delete(dune)
            try context.save()
        }
        #expect(recorder.calls.isEmpty)
        try context.performAndWait {
            let n = try Book(context: context)
            n.title = "Nerd Do Well"
            try context.save()
            try context.delete(n)
            try context.save()
        }
        #expect(recorder.calls == [.inserted(["Nerd Do Well"]), .deleted(["Nerd Do Well"])])
    }

    @Test("the event stream carries the sets as object IDs")
    func events() async throws {
        let stack = try BookFixture.makeStack()
        let context = stack.context
        let monitor = try context.performAndWait { try EntityMonitor<Book>(context: context, frequency: .onSave) }
        let events = monitor.events()
        let id = try context.performAndWait {
            let b = try Book(context: context)
            b.title = "Dune"
            try context.save()
            return b.objectID
        }
        var iterator = events.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first == .inserted([id]))
        withExtendedLifetime(monitor) {}
    }
}
