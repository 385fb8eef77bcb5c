import CoreStack
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finds Core Data and SwiftData stores under folders (`stackscope find`): every regular file that
/// is an SQLite database with Core Data's `Z_PRIMARYKEY` and `Z_METADATA` tables, whatever its name.
///
/// Read-only: files are opened for reading only, stores through read-only connections that leave
/// no `-wal` or `-shm` behind (``StoreSession``). Folders that cannot be listed and files that
/// cannot be read are skipped and counted, never fatal. Symbolic links are followed, each real
/// folder searched once, so link loops end. Only regular files are opened (never a FIFO or device).
///
/// ```swift
/// let search = try StoreFinder().search(["/tmp/projects"])
/// for store in search.stores { print(store.path, store.objectCount ?? 0) }
/// print(search.skippedFolders.count, "folders could not be read")
/// ```
public struct StoreFinder: Sendable {
    /// Lists a folder's entries (names, not paths); throws when it cannot.
    public typealias FolderLister = @Sendable (String) throws -> [String]

    /// The file system's own listing.
    public static let systemListing: FolderLister = { path in try FileManager.default.contentsOfDirectory(atPath: path) }

    private let listFolder: FolderLister

    /// A finder listing folders with `listFolder` (tests pass one that fails for some folders: the
    /// tests run as root, whom permissions do not stop).
    ///
    /// ```swift
    /// let finder = StoreFinder { path in
    ///     if path.hasSuffix("/locked") { throw CocoaError(.fileReadNoPermission) }
    ///     return try StoreFinder.systemListing(path)
    /// }
    /// ```
    public init(listFolder: @escaping FolderLister = StoreFinder.systemListing) {
        self.listFolder = listFolder
    }

    /// The folders searched when none is given: on macOS the simulators' devices (their app
    /// containers) and `~/Library`'s application data; elsewhere the current folder.
    ///
    /// ```swift
    /// StoreFinder.defaultFolders(home: "/home/me", currentDirectory: "/work")  // ["/work"] on Linux
    /// ```
    public static func defaultFolders(home: String, currentDirectory: String) -> [String] {
        #if os(macOS)
            let library = home + "/Library"
            return [
                library + "/Developer/CoreSimulator/Devices", library + "/Application Support",
                library + "/Containers", library + "/Group Containers",
            ].filter { FileManager.default.fileExists(atPath: $0) }
        #else
            return [currentDirectory]
        #endif
    }

    /// Searches `roots` (folders, or store files) recursively and returns the stores found, by path.
    ///
    /// ```swift
    /// let search = try StoreFinder().search(["."])
    /// search.stores.map(\.path)  // ["./App.sqlite", "./backup/App copy.store"]
    /// ```
    /// `progress`, when given, is called with what the search has so far (folders listed, files
    /// examined, stores found) after each folder listed and each file examined; `isCancelled` is
    /// asked as often, and true stops the search with a `CancellationError` (the browser's picker
    /// runs the search off the main queue and shows the progress).
    ///
    /// ```swift
    /// let search = try StoreFinder().search(["."], progress: { print($0.foldersSearched, $0.stores.count) })
    /// ```
    /// - Throws: ``StackScopeError/notAFolder(path:)`` for a root that does not exist (a folder met
    ///   during the search that cannot be read is skipped instead); `CancellationError` when
    ///   `isCancelled` said so.
    public func search(
        _ roots: [String], progress: ((StoreSearch) -> Void)? = nil, isCancelled: () -> Bool = { false }
    ) throws -> StoreSearch {
        var result = StoreSearch()
        var visitedFolders: Set<String> = []
        // Each real file once: under the path met first, or a path that is not itself a link (a
        // store reached both directly and through a link is listed where it is).
        var files: [String: (path: String, viaLink: Bool, info: stat)] = [:]
        var order: [String] = []
        func note(file path: String, realPath: String, viaLink: Bool, info: stat) {
            if let seen = files[realPath] {
                if seen.viaLink && !viaLink { files[realPath] = (path, viaLink, info) }
                return
            }
            files[realPath] = (path, viaLink, info)
            order.append(realPath)
        }

        for root in roots {
            guard let real = Self.realPath(root), let info = Self.status(real, followLinks: true) else {
                throw StackScopeError.notAFolder(path: root)
            }
            if Self.isRegularFile(info) {
                note(file: root, realPath: real, viaLink: false, info: info)
                continue
            }
            guard Self.isDirectory(info) else { throw StackScopeError.notAFolder(path: root) }
            // Depth first, each folder's entries in name order.
            var pending = [root]
            while let folder = pending.popLast() {
                guard let real = Self.realPath(folder) else { continue }
                guard visitedFolders.insert(real).inserted else {
                    result.linksNotFollowed += 1
                    continue
                }
                let names: [String]
                do {
                    names = try listFolder(folder)
                } catch {
                    result.skippedFolders.append(.init(path: folder, reason: StackScopeErrorMessage.line(for: error)))
                    continue
                }
                result.foldersSearched += 1
                if isCancelled() { throw CancellationError() }
                progress?(result)
                var subfolders: [String] = []
                for name in names.sorted() {
                    let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
                    guard let entry = Self.status(path, followLinks: false) else { continue }
                    let isLink = Self.isLink(entry)
                    // A dangling link, or a loop of links (ELOOP): nothing to look at.
                    guard let target = Self.realPath(path), let info = isLink ? Self.status(target, followLinks: true) : entry else {
                        continue
                    }
                    if Self.isDirectory(info) {
                        subfolders.append(path)
                    } else if Self.isRegularFile(info) {
                        note(file: path, realPath: target, viaLink: isLink, info: info)
                    }
                }
                pending += subfolders.reversed()
            }
        }

        var found: [FoundStore] = []
        for realPath in order {
            guard let file = files[realPath] else { continue }
            result.filesExamined += 1
            let size = Int64(file.info.st_size)
            switch Self.hasSQLiteHeader(file.path, size: size) {
            case .failure(let reason):
                result.skippedFiles.append(.init(path: file.path, reason: reason.text))
            case .success(false):
                break
            case .success(true):
                if let store = Self.examine(file.path, size: size, modified: Self.modificationDate(file.info)) {
                    found.append(store)
                }
            }
            if isCancelled() { throw CancellationError() }
            if let progress {
                var partial = result
                partial.stores = found
                progress(partial)
            }
        }
        result.stores = found.sorted { $0.path < $1.path }
        return result
    }

    // MARK: - One store

    /// The store at `path`, or nil when the file is an SQLite database but not a Core Data store.
    /// A store that cannot be opened is returned with what could be read and ``FoundStore/problem``.
    static func examine(_ path: String, size: Int64, modified: Date) -> FoundStore? {
        let url = URL(fileURLWithPath: path)
        // Measured before anything opens the store (a read-only connection may add an empty one).
        let walSize = status(path + "-wal", followLinks: true).map { Int64($0.st_size) } ?? 0
        var store = FoundStore(path: path, size: size, modified: modified, model: .none, walSize: walSize)
        let metadata: StoreMetadata
        do {
            metadata = try SQLiteStore.metadata(at: url)
        } catch let CoreStackError.notAStore(_, reason) where !isDamagedStore(reason) {
            return nil
        } catch {
            store.problem = StackScopeErrorMessage.line(for: error)
            return store
        }
        store.storeUUID = metadata.storeUUID
        store.frameworkVersion = metadata.frameworkVersion
        do {
            let session = try StoreSession.open(storePath: path, modelPath: nil)
            defer { session.close() }
            let model = session.model
            let context = session.context
            let roots = model.entities.filter { $0.superentity == nil }
            store.objectCount = try context.performAndWait {
                try roots.reduce(0) { sum, e in sum + (try context.count(for: FetchRequest<ManagedObject>(entityName: e.name))) }
            }
            store.model = model.origin == .inferredFromSchema ? .inferred : .stored
            store.entityCount = model.entities.count
            store.hasHistory = try (session.coordinator.persistentStore as? SQLiteStore)?.hasPersistentHistory()
        } catch {
            // No model (or a store that cannot be read with one): what Z_PRIMARYKEY says.
            store.model = .none
            store.objectCount = nil
            store.entityCount = (try? SQLiteStore.entities(at: url))?.filter { $0.number < 16000 }.count
            store.problem = StackScopeErrorMessage.line(for: error)
        }
        return store
    }

    /// Whether a ``CoreStackError/notAStore(path:reason:)`` reason describes a store whose Core
    /// Data tables are there but wrong (listed, with the problem), rather than a file without them.
    private static func isDamagedStore(_ reason: String) -> Bool {
        reason.contains("Z_") && !reason.contains("without Core Data's")
    }

    // MARK: - Files

    /// Whether the file starts with SQLite's 16-byte header; a failure names why it cannot be read.
    static func hasSQLiteHeader(_ path: String, size: Int64) -> Result<Bool, SkipReason> {
        // An SQLite database is at least one 512-byte page; its header takes 100 bytes.
        guard size >= 512 else { return .success(false) }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            return .failure(SkipReason(text: String(cString: strerror(errno))))
        }
        defer { try? handle.close() }
        do {
            let header = try handle.read(upToCount: 16) ?? Data()
            return .success(header == sqliteHeader)
        } catch {
            return .failure(SkipReason(text: (error as NSError).localizedDescription))
        }
    }

    /// Why a file could not be read, as an `Error` for `Result`.
    struct SkipReason: Error, CustomStringConvertible {
        var text: String
        var description: String { text }
    }

    private static let sqliteHeader = Data("SQLite format 3\u{0}".utf8)

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func status(_ path: String, followLinks: Bool) -> stat? {
        var info = stat()
        let rc = followLinks ? stat(path, &info) : lstat(path, &info)
        return rc == 0 ? info : nil
    }

    private static func isDirectory(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFDIR }
    private static func isRegularFile(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFREG }
    private static func isLink(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFLNK }

    private static func modificationDate(_ info: stat) -> Date {
        #if canImport(Darwin)
            let spec = info.st_mtimespec
        #else
            let spec = info.st_mtim
        #endif
        return Date(timeIntervalSince1970: Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9)
    }
}
