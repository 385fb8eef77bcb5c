// A helper for CoreStack's cross-process history tests and the remote-change benchmark: another
// process writing to (or watching) a store that tracks persistent history.
//
//   corestack-history-probe STORE insert COUNT TEXT AUTHOR   one save of COUNT notes, prints "saved"
//   corestack-history-probe STORE loop COUNT PAUSE_MS         COUNT saves of one note each, authors
//                                                             "loop-<pid>-<i>"; prints "saved <i> <unix time
//                                                             after the commit> <save duration in ms>"
//   corestack-history-probe STORE set OLD NEW POLICY          sets the note OLD to NEW and saves
//                                                             (POLICY: error, overwrite, object, store, rollback)
//   corestack-history-probe STORE bigsave COUNT               prints "saving", then one save of COUNT notes
//   corestack-history-probe STORE watch                       an auto-merging context with a fetched results
//                                                             controller; prints "ready", then "frc <count> <texts>"
//                                                             after each change it reports
//
// The model is Note { text: String, n: Integer 64 }, as in the tests and the benchmark.
import CoreStack
import Foundation

func line(_ s: String) { FileHandle.standardOutput.write(Data((s + "\n").utf8)) }
func fail(_ s: String) -> Never {
    FileHandle.standardError.write(Data("corestack-history-probe: \(s)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else { fail("usage: corestack-history-probe STORE insert|loop|set|bigsave|watch …") }
func argument(_ i: Int) -> String {
    guard i < arguments.count else { fail("missing argument \(i) for \(arguments[2])") }
    return arguments[i]
}
func number(_ i: Int) -> Int {
    guard let n = Int(argument(i)) else { fail("argument \(i) is not a number: \(argument(i))") }
    return n
}

final class Watcher: FetchedResultsControllerDelegate {
    typealias Object = ManagedObject
    func controllerDidChangeContent(_ controller: FetchedResultsController<ManagedObject>) {
        let texts = controller.fetchedObjects.map { (try? $0.value(forKey: "text") as? String) ?? "" }
        line("frc \(texts.count) \(texts.joined(separator: ","))")
    }
}

do {
    let model = try ManagedObjectModel(versionName: "HistoryProbe") {
        EntityDescription("Note") {
            AttributeDescription("text", .string)
            AttributeDescription("n", .integer64, defaultValue: 0)
        }
    }
    let url = URL(fileURLWithPath: arguments[1])
    let options = PersistentStoreOptions(persistentHistoryTracking: true, remoteChangeNotifications: arguments[2] == "watch")
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(SQLiteStore(url: url, model: model, options: options))
    let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: "probe")
    switch arguments[2] {
    case "insert":
        let count = number(3), text = argument(4)
        context.transactionAuthor = argument(5)
        try context.performAndWait {
            for i in 0..<count {
                let note = try context.insertObject(forEntityName: "Note")
                try note.setValue(count == 1 ? text : "\(text)-\(i)", forKey: "text")
            }
            try context.save()
        }
        line("saved")
    case "loop":
        let count = number(3), pause = number(4)
        let pid = ProcessInfo.processInfo.processIdentifier
        for i in 0..<count {
            let start = Date()
            try context.performAndWait {
                context.transactionAuthor = "loop-\(pid)-\(i)"
                let note = try context.insertObject(forEntityName: "Note")
                try note.setValue("loop-\(ProcessInfo.processInfo.processIdentifier)-\(i)", forKey: "text")
                try note.setValue(Int64(i), forKey: "n")
                try context.save()
            }
            let end = Date()
            line("saved \(i) \(end.timeIntervalSince1970) \(end.timeIntervalSince(start) * 1000)")
            if pause > 0 { usleep(UInt32(pause) * 1000) }
        }
    case "set":
        let old = argument(3), new = argument(4)
        context.mergePolicy =
            switch argument(5) {
            case "overwrite": .overwrite
            case "object": .mergeByPropertyObjectTrump
            case "store": .mergeByPropertyStoreTrump
            case "rollback": .rollback
            default: .error
            }
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Note", predicate: try Predicate(format: "text == %@", old))
            guard let note = try context.fetch(request).first else { fail("no note \(old)") }
            try note.setValue(new, forKey: "text")
            try context.save()
        }
        line("saved")
    case "bigsave":
        let count = number(3)
        try context.performAndWait {
            for i in 0..<count {
                let note = try context.insertObject(forEntityName: "Note")
                try note.setValue("big-\(i)", forKey: "text")
            }
            line("saving")
            try context.save()
        }
        line("saved")
    case "watch":
        context.automaticallyMergesChangesFromParent = true
        let watcher = Watcher()
        let request = FetchRequest<ManagedObject>(entityName: "Note", sortDescriptors: [SortDescriptor("text")])
        let controller = FetchedResultsController(fetchRequest: request, context: context)
        controller.delegate = watcher
        try context.performAndWait { try controller.performFetch() }
        line("ready")
        withExtendedLifetime((watcher, controller)) { dispatchMain() }
    default:
        fail("unknown command \(arguments[2])")
    }
} catch {
    fail("\(error)")
}
