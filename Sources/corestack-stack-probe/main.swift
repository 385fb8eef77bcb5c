// A helper for CoreStack's tests: sets up a PersistentStoreManager over the store at argv[1],
// inserts a Note without saving, prints "ready", then waits (servicing the main queue) for a
// signal. With argv[2] == "exit" it calls exit(0) instead of waiting; with "handler" it first
// installs its own SIGHUP handler (printing "handled"), as an application with its own signal
// handling would, and then waits; with "reregister" it deregisters its manager from the
// TerminationSaver and registers it again before waiting (the second install must work too).
import CoreStack
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: corestack-stack-probe <store path> [wait|exit] [note text]\n".utf8))
    exit(64)
}
let mode = arguments.count >= 3 ? arguments[2] : "wait"
let text = arguments.count >= 4 ? arguments[3] : "unsaved at termination"

if mode == "handler" {
    signal(SIGHUP) { _ in
        let line: StaticString = "handled\n"
        _ = write(1, line.utf8Start, line.utf8CodeUnitCount)
    }
}

do {
    let model = try ManagedObjectModel(versionName: "Probe") {
        EntityDescription("Note") {
            AttributeDescription("text", .string)
        }
    }
    let manager = try PersistentStoreManager(
        configuration: .init(model: model, storeURL: URL(fileURLWithPath: arguments[1])))
    let context = manager.managedObjectContext
    try context.performAndWait {
        let note = try context.insertObject(forEntityName: "Note")
        try note.setValue(text, forKey: "text")
    }
    if mode == "reregister" {
        TerminationSaver.shared.deregister(manager)
        TerminationSaver.shared.register(manager)
    }
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    if mode == "exit" { exit(0) }
    dispatchMain()
} catch {
    FileHandle.standardError.write(Data("corestack-stack-probe: \(error)\n".utf8))
    exit(1)
}
