// A helper for CoreStack's migration crash test: another process that migrates a store, so the
// test can SIGKILL it at any moment and check what is left at the store's path.
//
//   corestack-migrate-probe STORE MODEL VERSION
//
// Opens STORE for writing with the version named VERSION of the model file MODEL (.xcdatamodeld)
// as the current version, with automatic migration on (PersistentStoreOptions
// .shouldMigrateStoreAutomatically). Prints "migrating" before it opens the store, then
// "done <number of migration steps> <milliseconds the opening took>" once the store is open.
import CoreStack
import Foundation

func line(_ s: String) { FileHandle.standardOutput.write(Data((s + "\n").utf8)) }
func fail(_ s: String) -> Never {
    FileHandle.standardError.write(Data("corestack-migrate-probe: \(s)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count == 4 else { fail("usage: corestack-migrate-probe STORE MODEL VERSION") }
do {
    let read = try XcodeModelReader.readBundle(at: URL(fileURLWithPath: arguments[2]))
    guard let current = read.version(named: arguments[3]) else { fail("\(arguments[2]) has no version \(arguments[3])") }
    let bundle = ManagedObjectModelBundle(name: read.name, versions: read.versions, currentVersion: current)
    line("migrating")
    let start = ContinuousClock.now
    let store = try SQLiteStore.open(
        url: URL(fileURLWithPath: arguments[1]), bundle: bundle, readOnly: false,
        options: PersistentStoreOptions(shouldMigrateStoreAutomatically: true))
    let elapsed = ContinuousClock.now - start
    let ms = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
    line("done \(store.migrationsOnOpen.count) \(ms)")
} catch {
    fail("\(error)")
}
