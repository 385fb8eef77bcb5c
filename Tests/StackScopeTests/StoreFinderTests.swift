import CoreStack
import Foundation
import StackScope
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `stackscope find`: stores under a real folder tree with decoys, an unreadable folder, a FIFO and link loops.
@Suite("find: stores under folders")
struct StoreFinderTests {
    /// The tree every test searches, and what is in it.
    struct Tree {
        var root: URL
        var demoCount: Int
        var walSize: Int64
        var locked: URL
    }

    /// root/
    ///   apps/Recipes.sqlite                      Apple store (model in Z_MODELCACHE)
    ///   apps/deep/er/Cars.store                  Apple store under another name
    ///   apps/deep/er/library.db                  CoreStack demo store
    ///   apps/history/notes                       CoreStack store with persistent history, no extension
    ///   wal/CoreDataMigration_Example_WAL.sqlite with its -wal (content not yet in the file)
    ///   inferred/Recipes copy.sqlite             Apple store without Z_MODELCACHE
    ///   decoys/Recipes.sqlite                    a text file with a store's name
    ///   decoys/plain.sqlite                      an SQLite database without Core Data's tables
    ///   decoys/header.sqlite                     SQLite's header and then garbage
    ///   decoys/pipe.sqlite                       a FIFO (opening it would block)
    ///   locked/Hidden.sqlite                     a store in a folder the test's lister refuses
    ///   apps/deep/back -> ../..                  a link loop
    ///   self -> .                                a link to the folder itself
    ///   shortcut.sqlite -> apps/Recipes.sqlite   a second way to a store already found
    ///   dangling.sqlite -> nowhere               a dangling link
    static func makeTree() throws -> Tree {
        let fm = FileManager.default
        let root = try TestSupport.temporaryDirectory().appendingPathComponent("tree")
        func folder(_ path: String) throws -> URL {
            let url = root.appendingPathComponent(path)
            try fm.createDirectory(at: url, withIntermediateDirectories: true)
            return url
        }
        func copy(_ fixture: String, to path: String) throws {
            let destination = root.appendingPathComponent(path)
            try fm.copyItem(at: TestSupport.fixture("stores/\(fixture)"), to: destination)
            try fm.setAttributes([.posixPermissions: 0o644], ofItemAtPath: destination.path)
        }
        _ = try folder("apps/deep/er")
        _ = try folder("apps/history")
        _ = try folder("wal")
        _ = try folder("inferred")
        _ = try folder("decoys")
        let locked = try folder("locked")
        try copy("apple-iPhoneCoreDataRecipes-2018/Recipes.sqlite", to: "apps/Recipes.sqlite")
        try copy("alemar11-CoreDataPlus/SampleModel_V1.sqlite", to: "apps/deep/er/Cars.store")
        let demo = try DemoLibrary.create(at: root.appendingPathComponent("apps/deep/er/library.db"), size: 60)
        try copy("wibosco-CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite", to: "wal/CoreDataMigration_Example_WAL.sqlite")
        try copy("wibosco-CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite-wal", to: "wal/CoreDataMigration_Example_WAL.sqlite-wal")
        try copy("apple-iPhoneCoreDataRecipes-2018/Recipes.sqlite", to: "inferred/Recipes copy.sqlite")
        _ = try StoreOwnModelTests.sqlite3("DELETE FROM Z_MODELCACHE", root.appendingPathComponent("inferred/Recipes copy.sqlite"), readOnly: false)
        try copy("bnr-CoreDataStack/TestModel.sqlite", to: "locked/Hidden.sqlite")

        let notes = root.appendingPathComponent("apps/history/notes")
        let model = try ManagedObjectModel(versionName: "Notes") { EntityDescription("Note") { AttributeDescription("text", .string) } }
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            let store = try SQLiteStore(url: notes, model: model, options: PersistentStoreOptions(persistentHistoryTracking: true))
            try coordinator.addPersistentStore(store)
            let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: "find-test")
            try context.performAndWait {
                for text in ["one", "two", "three"] { try context.insertObject(forEntityName: "Note").setValue(text, forKey: "text") }
                try context.save()
            }
            try coordinator.remove(store)
            store.close()
        }

        try Data("SQLite format 3 is what this file is not\n".utf8).write(to: root.appendingPathComponent("decoys/Recipes.sqlite"))
        _ = try StoreOwnModelTests.sqlite3(
            "CREATE TABLE Z_NOTES (x); INSERT INTO Z_NOTES VALUES (1);", root.appendingPathComponent("decoys/plain.sqlite"), readOnly: false)
        try (Data("SQLite format 3\u{0}".utf8) + Data(repeating: 0xA5, count: 2000)).write(to: root.appendingPathComponent("decoys/header.sqlite"))
        #expect(mkfifo(root.appendingPathComponent("decoys/pipe.sqlite").path, 0o644) == 0)

        try fm.createSymbolicLink(atPath: root.appendingPathComponent("apps/deep/back").path, withDestinationPath: "../..")
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("self").path, withDestinationPath: ".")
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("shortcut.sqlite").path, withDestinationPath: "apps/Recipes.sqlite")
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("dangling.sqlite").path, withDestinationPath: "nowhere")

        let walSize = try #require((try fm.attributesOfItem(atPath: root.appendingPathComponent("wal/CoreDataMigration_Example_WAL.sqlite-wal").path))[.size] as? NSNumber).int64Value
        return Tree(root: root, demoCount: demo.counts.values.reduce(0, +), walSize: walSize, locked: locked)
    }

    /// A lister that refuses `locked` as the file system refuses a folder without read permission.
    static func finder(refusing locked: URL) -> StoreFinder {
        let lockedPath = locked.path
        return StoreFinder { path in
            if path == lockedPath { throw CocoaError(.fileReadNoPermission, userInfo: [NSFilePathErrorKey: path]) }
            return try StoreFinder.systemListing(path)
        }
    }

    @Test("finds every store by content whatever its name, with its metadata, model source, counts, history and -wal; decoys are not stores")
    func findsStores() throws {
        let tree = try Self.makeTree()
        let root = tree.root.path
        let search = try Self.finder(refusing: tree.locked).search([root])
        #expect(search.stores.map(\.path) == [
            "\(root)/apps/Recipes.sqlite",
            "\(root)/apps/deep/er/Cars.store",
            "\(root)/apps/deep/er/library.db",
            "\(root)/apps/history/notes",
            "\(root)/inferred/Recipes copy.sqlite",
            "\(root)/wal/CoreDataMigration_Example_WAL.sqlite",
        ])
        func store(_ relative: String) throws -> FoundStore {
            try #require(search.stores.first { $0.path == "\(root)/\(relative)" })
        }
        let recipes = try store("apps/Recipes.sqlite")
        #expect(recipes.model == .stored)
        #expect(recipes.entityCount == 4)
        #expect(recipes.objectCount == (try StoreOwnModelTests.sqliteCounts(tree.root.appendingPathComponent("apps/Recipes.sqlite"))).filter { ["Image", "Ingredient", "Recipe", "RecipeType"].contains($0.key) }.values.reduce(0, +))
        #expect((recipes.frameworkVersion ?? 0) > 1)
        #expect(recipes.storeUUID == (try SQLiteStore.metadata(at: tree.root.appendingPathComponent("apps/Recipes.sqlite"))).storeUUID)
        #expect(recipes.hasHistory == false)
        #expect(!recipes.hasWAL)
        #expect(recipes.problem == nil)
        let attributes = try FileManager.default.attributesOfItem(atPath: recipes.path)
        #expect(recipes.size == (attributes[.size] as? NSNumber)?.int64Value)
        let modified = try #require(attributes[.modificationDate] as? Date)
        #expect(abs(recipes.modified.timeIntervalSince(modified)) < 1)

        let demo = try store("apps/deep/er/library.db")
        #expect(demo.model == .stored)
        #expect(demo.entityCount == TestSupport.demoEntities.count)
        #expect(demo.objectCount == tree.demoCount)
        #expect(demo.frameworkVersion == SQLiteStore.frameworkVersion)

        let notes = try store("apps/history/notes")
        #expect(notes.hasHistory == true)
        #expect(notes.objectCount == 3)
        #expect(notes.entityCount == 1)

        #expect(try store("apps/deep/er/Cars.store").entityCount == 4)
        let inferred = try store("inferred/Recipes copy.sqlite")
        #expect(inferred.model == .inferred)
        #expect(inferred.objectCount == recipes.objectCount)

        let wal = try store("wal/CoreDataMigration_Example_WAL.sqlite")
        #expect(wal.hasWAL)
        #expect(wal.walSize == tree.walSize)
        #expect(tree.walSize > 0)
    }

    @Test("the locked folder is skipped and counted, its store unseen; link loops and a second link to a store end the walk once")
    func skipsAndLoops() throws {
        let tree = try Self.makeTree()
        let search = try Self.finder(refusing: tree.locked).search([tree.root.path])
        #expect(search.skippedFolders.map(\.path) == [tree.locked.path])
        #expect(search.skippedFolders.first?.reason.isEmpty == false)
        #expect(!search.stores.contains { $0.path.hasSuffix("Hidden.sqlite") })
        // apps/deep/back → root and self → root: both reach a folder already searched.
        #expect(search.linksNotFollowed == 2)
        #expect(search.stores.filter { $0.path.hasSuffix("Recipes.sqlite") }.count == 1)
        #expect(search.skippedFiles.isEmpty)
        // root, apps, apps/deep, apps/deep/er, apps/history, decoys, inferred, wal (locked refused).
        #expect(search.foldersSearched == 8)
        let text = FindCommand.renderText(search)
        #expect(text.contains("6 stores; 8 folders searched"))
        #expect(text.contains("1 folder skipped (unreadable)"))
        #expect(text.contains("skipped folder \(tree.locked.path): "))

        // With the file system's own lister, the folder is searched like the others.
        let all = try StoreFinder().search([tree.root.path])
        #expect(all.stores.contains { $0.path == tree.locked.path + "/Hidden.sqlite" })
        #expect(all.skippedFolders.isEmpty)
    }

    @Test("searching leaves every file as it was: same bytes, no -wal or -shm left behind, the -wal beside a store untouched")
    func readOnly() throws {
        let tree = try Self.makeTree()
        let before = try TestSupport.folderSnapshot(tree.root)
        _ = try Self.finder(refusing: tree.locked).search([tree.root.path])
        #expect(try TestSupport.folderSnapshot(tree.root) == before)
    }

    @Test("a store file given as the root is examined; a root that does not exist is an error naming it")
    func roots() throws {
        let tree = try Self.makeTree()
        let file = tree.root.appendingPathComponent("apps/Recipes.sqlite").path
        #expect(try StoreFinder().search([file]).stores.map(\.path) == [file])
        let missing = tree.root.appendingPathComponent("no-such-folder").path
        #expect(throws: StackScopeError.notAFolder(path: missing)) { try StoreFinder().search([missing]) }
        #expect(StoreFinder.defaultFolders(home: "/home/x", currentDirectory: "/work") == ["/work"])
    }

    @Test("JSON lists each store's fields and the skipped folders")
    func json() throws {
        let tree = try Self.makeTree()
        let search = try Self.finder(refusing: tree.locked).search([tree.root.path])
        let json = try #require(try TestSupport.parseJSON(FindCommand.renderJSON(search)) as? [String: Any])
        let stores = try #require(json["stores"] as? [[String: Any]])
        #expect(stores.count == 6)
        let wal = try #require(stores.first { ($0["path"] as? String)?.hasSuffix("_WAL.sqlite") == true })
        #expect(wal["wal"] as? Bool == true)
        #expect((wal["walSize"] as? NSNumber)?.int64Value == tree.walSize)
        #expect(wal["model"] as? String == "stored")
        #expect(wal["history"] as? Bool == false)
        #expect(ISO8601DateFormatter().date(from: wal["modified"] as? String ?? "") != nil)
        let skipped = try #require(json["skippedFolders"] as? [[String: Any]])
        #expect(skipped.map { $0["path"] as? String } == [tree.locked.path])
        #expect(json["linksNotFollowed"] as? Int == 2)
    }

    @Test("a file with Core Data's tables but a damaged metadata table is listed with its problem; an SQLite file without them is not")
    func damagedStore() throws {
        let folder = try TestSupport.temporaryDirectory()
        let damaged = folder.appendingPathComponent("Damaged.sqlite")
        _ = try StoreOwnModelTests.sqlite3(
            "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER); "
                + "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);",
            damaged, readOnly: false)
        _ = try StoreOwnModelTests.sqlite3("CREATE TABLE Z_NOTES (x);", folder.appendingPathComponent("plain.sqlite"), readOnly: false)
        let search = try StoreFinder().search([folder.path])
        #expect(search.stores.map(\.path) == [damaged.path])
        let store = try #require(search.stores.first)
        #expect(store.model == .none)
        #expect(store.objectCount == nil)
        #expect(store.problem?.contains("Z_METADATA has no row") == true)
        #expect(FindCommand.renderText(search).contains("\(damaged.path): "))
    }

    /// Root is not stopped by permissions; another user is, and then the real file system is tested.
    @Test("a folder without read permission is skipped (run as a user other than root)", .enabled(if: getuid() != 0, "root reads any folder"))
    func realPermissions() throws {
        let tree = try Self.makeTree()
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: tree.locked.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tree.locked.path) }
        let search = try StoreFinder().search([tree.root.path])
        #expect(search.skippedFolders.map(\.path) == [tree.locked.path])
    }
}
