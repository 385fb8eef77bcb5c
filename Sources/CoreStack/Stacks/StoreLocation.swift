import Foundation

/// Where the ready-made stacks keep their SQLite files, and how they create, destroy and move
/// them aside (always with the `-wal` and `-shm` files SQLite keeps next to a store in WAL mode,
/// the `-journal` of a store in rollback-journal mode, and the `.<StoreName>_SUPPORT` folder of
/// Core Data's external binary data).
///
/// ```swift
/// let url = StoreLocation.dataFolder(applicationName: "Notes").appendingPathComponent("Notes.sqlite")
/// try StoreLocation.prepareFolder(for: url)
/// try StoreLocation.destroyStore(at: url)
/// ```
public enum StoreLocation {
    /// The suffixes of the files SQLite keeps next to a store (`""` is the store itself): a
    /// store's files go together, and a leftover `-journal` beside a new store at the same path
    /// would be rolled back into it.
    ///
    /// ```swift
    /// let files = StoreLocation.fileSuffixes.map { url.path + $0 }   // Notes.sqlite, Notes.sqlite-wal, …
    /// ```
    public static let fileSuffixes = ["", "-wal", "-shm", "-journal"]

    /// The application name used for default folders: the process name.
    public static var defaultApplicationName: String {
        let name = ProcessInfo.processInfo.processName
        return name.isEmpty ? "CoreStack" : name
    }

    /// The user's data folder for an application: `$XDG_DATA_HOME/<app>` or `~/.local/share/<app>`.
    ///
    /// ```swift
    /// StoreLocation.dataFolder(applicationName: "Notes", environment: ["HOME": "/home/ann"])
    /// // /home/ann/.local/share/Notes
    /// ```
    public static func dataFolder(
        applicationName: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
        xdgFolder("XDG_DATA_HOME", fallback: ".local/share", environment: environment)
            .appendingPathComponent(applicationName, isDirectory: true)
    }

    /// The user's cache folder for an application: `$XDG_CACHE_HOME/<app>` or `~/.cache/<app>`.
    ///
    /// ```swift
    /// StoreLocation.cacheFolder(applicationName: "Photos", environment: ["XDG_CACHE_HOME": "/tmp/c"])
    /// // /tmp/c/Photos
    /// ```
    public static func cacheFolder(
        applicationName: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
        xdgFolder("XDG_CACHE_HOME", fallback: ".cache", environment: environment)
            .appendingPathComponent(applicationName, isDirectory: true)
    }

    private static func xdgFolder(_ variable: String, fallback: String, environment: [String: String]) -> URL {
        // The XDG spec: the variable counts only when it holds an absolute path.
        if let value = environment[variable], value.hasPrefix("/") {
            return URL(fileURLWithPath: value, isDirectory: true)
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(fallback, isDirectory: true)
    }

    /// Creates the store's parent folders and checks that files can be written there.
    ///
    /// ```swift
    /// try StoreLocation.prepareFolder(for: URL(fileURLWithPath: "/tmp/app/Model.sqlite"))
    /// ```
    /// - Throws: ``StackError/storeLocationUnavailable(path:reason:)``.
    public static func prepareFolder(for storeURL: URL) throws {
        let folder = storeURL.deletingLastPathComponent()
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: storeURL.path, isDirectory: &isDir), isDir.boolValue {
            throw StackError.storeLocationUnavailable(path: storeURL.path, reason: "it is a folder")
        }
        do {
            try fm.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw StackError.storeLocationUnavailable(
                path: storeURL.path, reason: "the folder \(folder.path) cannot be created (\(describe(error)))")
        }
        // Probe with a real file: access(2) says yes to root even on read-only folders and file systems.
        let probe = folder.appendingPathComponent(".corestack-write-probe-\(UUID().uuidString)")
        guard fm.createFile(atPath: probe.path, contents: Data()) else {
            throw StackError.storeLocationUnavailable(
                path: storeURL.path, reason: "files cannot be written in \(folder.path)")
        }
        try? fm.removeItem(at: probe)
    }

    /// Deletes a store file, its `-wal`, `-shm` and `-journal` files and its support folder
    /// `.<StoreName>_SUPPORT` (where Core Data keeps the values of *Allows External Storage*
    /// attributes, see ``SQLiteExternalBinaryData``), as Core Data's `destroyPersistentStore(at:)`
    /// does; missing files are fine. A new store made at the same path starts without stale
    /// external-data files.
    ///
    /// When `storeURL` is a symbolic link, the store it leads to is destroyed, with the side files
    /// and support folder beside it (where SQLite and Core Data put them), as Core Data's
    /// `destroyPersistentStore(at:)` destroys the store. The link itself stays, leading nowhere until a store is created through it again
    /// (at its target, as ``quarantineStore(at:date:)`` leaves it); files beside the link are not
    /// the store's and stay too.
    ///
    /// ```swift
    /// try StoreLocation.destroyStore(at: url)
    /// ```
    /// Refused with ``CoreStackError/storeInUse(path:action:)`` while another process has the
    /// store open: the files go under SQLite's exclusive lock (``SQLiteStoreFileLock``).
    /// - Throws: ``StackError/storeLocationUnavailable(path:reason:)`` when a file cannot be deleted.
    public static func destroyStore(at storeURL: URL) throws {
        // Through a symbolic link, the target is the store SQLite opened and put its side files beside.
        let storeURL = SQLiteStore.resolvedFileURL(storeURL)
        // Under SQLite's exclusive lock: no process has the store open while its files go.
        try SQLiteStoreFileLock.withExclusiveLock(on: storeURL, toDo: "delete the store") {
            for path in storeFiles(storeURL) where exists(path) {
                do {
                    try FileManager.default.removeItem(atPath: path)
                } catch {
                    throw StackError.storeLocationUnavailable(path: path, reason: "cannot delete it (\(describe(error)))")
                }
            }
        }
    }

    /// Moves a store and its `-wal`, `-shm` and `-journal` files aside, next to it, under a timestamped name
    /// (`LocalData.sqlite` → `LocalData.quarantined-20250102-030405-678.sqlite`), and returns the
    /// new URL of the store file. When `storeURL` is a symbolic link, its target is moved.
    ///
    /// The store's support folder (`.LocalData_SUPPORT`, the *Allows External Storage* values, see
    /// ``SQLiteExternalBinaryData``) moves with it under the new name
    /// (`.LocalData.quarantined-20250102-030405-678_SUPPORT`), so the quarantined copy still reads
    /// its external values, and a new store at the old path does not pick them up.
    ///
    /// Refused with ``CoreStackError/storeInUse(path:action:)`` while another process has the
    /// store open: the files move under SQLite's exclusive lock (``SQLiteStoreFileLock``).
    ///
    /// ```swift
    /// let moved = try StoreLocation.quarantineStore(at: url)
    /// ```
    @discardableResult
    public static func quarantineStore(at storeURL: URL, date: Date = Date()) throws -> URL {
        // Through a symbolic link, the target (and the side files SQLite put beside it) moves
        // aside; the link stays, leading nowhere until a new store is made at its target.
        let storeURL = SQLiteStore.resolvedFileURL(storeURL)
        let fm = FileManager.default
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss-SSS"
        let stamp = formatter.string(from: date)
        let folder = storeURL.deletingLastPathComponent()
        let ext = storeURL.pathExtension
        let base = storeURL.deletingPathExtension().lastPathComponent
        func candidate(_ n: Int) -> URL {
            let name = base + ".quarantined-" + stamp + (n > 0 ? "-\(n)" : "") + (ext.isEmpty ? "" : "." + ext)
            return folder.appendingPathComponent(name)
        }
        var n = 0
        while storeFiles(candidate(n)).contains(where: exists) { n += 1 }
        let target = candidate(n)
        // Under SQLite's exclusive lock: no process has the store open while its files move.
        try SQLiteStoreFileLock.withExclusiveLock(on: storeURL, toDo: "move the store aside") {
            for (from, to) in zip(storeFiles(storeURL), storeFiles(target)) where exists(from) {
                do {
                    try fm.moveItem(atPath: from, toPath: to)
                } catch {
                    throw StackError.storeLocationUnavailable(path: from, reason: "cannot move it aside (\(describe(error)))")
                }
            }
        }
        return target
    }

    /// A store's files, as paths: the store, its side files (``fileSuffixes``) and its support
    /// folder (``SQLiteExternalBinaryData``).
    private static func storeFiles(_ url: URL) -> [String] {
        fileSuffixes.map { url.path + $0 } + [SQLiteExternalBinaryData.supportFolder(forStoreAt: url).path]
    }

    /// Whether anything stands at `path`, a symbolic link that leads nowhere too (`fileExists`
    /// follows links).
    private static func exists(_ path: String) -> Bool {
        (try? FileManager.default.attributesOfItem(atPath: path)) != nil
    }

    static func describe(_ error: any Error) -> String {
        String(describing: error)
    }
}
