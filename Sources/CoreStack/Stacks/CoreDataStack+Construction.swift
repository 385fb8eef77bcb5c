import Foundation

extension CoreDataStack {
    // MARK: SQLite stacks

    /// Builds a stack over an SQLite store, creating the file (and its parent folders) when needed.
    ///
    /// The store opens on a background queue (opening may take time). Without `storeURL` the
    /// store goes to the user's data folder: `$XDG_DATA_HOME/<app>/<model>.sqlite`, or
    /// `~/.local/share/<app>/<model>.sqlite`, where `<model>` is `modelName` or the model's version name.
    ///
    /// ```swift
    /// let stack = try await CoreDataStack.constructSQLiteStack(model: model, at: url)
    /// ```
    /// - Throws: ``StackError/storeLocationUnavailable(path:reason:)`` when the folder cannot be
    ///   created or written; ``CoreStackError/notAStore(path:reason:)``,
    ///   ``CoreStackError/modelMismatch(path:differences:)`` and SQLite errors from the store;
    ///   ``MigrationError`` when a store written with another model it carries cannot be migrated
    ///   by inference (see ``Options/storeOptions``; the store untouched).
    public static func constructSQLiteStack(
        model: ManagedObjectModel, modelName: String? = nil, at storeURL: URL? = nil, options: Options = Options()
    ) async throws -> CoreDataStack {
        let name = modelName ?? model.versionName ?? "Model"
        let url = storeURL ?? defaultStoreURL(modelName: name, options: options)
        return try await onBackgroundQueue {
            try StoreLocation.prepareFolder(for: url)
            let store = try SQLiteStore(url: url, model: model, options: options.storeOptions)
            return try CoreDataStack(model: model, storeType: .sqlite(url), store: store, options: options, modelBundle: nil)
        }
    }

    /// Builds a stack over an SQLite store with the model file `<modelName>.xcdatamodeld` (or
    /// `.xcdatamodel`) found in `modelFolder` (default: the main bundle's resources, then the
    /// current directory). Its current version is the stack's model.
    ///
    /// ```swift
    /// let stack = try await CoreDataStack.constructSQLiteStack(modelName: "Library", modelFolder: resources)
    /// ```
    /// - Throws: ``StackError/modelNotFound(name:searched:)``, plus the errors of
    ///   ``constructSQLiteStack(model:modelName:at:options:)``. An existing store written with an older
    ///   version of the model is migrated to the current one (``Options/storeOptions``); with automatic
    ///   migration off it throws ``CoreStackError/migrationRequired(path:storeVersion:currentVersion:)``,
    ///   and a change that cannot be inferred throws ``MigrationError`` (the store untouched).
    public static func constructSQLiteStack(
        modelName: String, modelFolder: URL? = nil, at storeURL: URL? = nil, options: Options = Options()
    ) async throws -> CoreDataStack {
        let bundle = try loadModelBundle(named: modelName, in: modelFolder)
        let url = storeURL ?? defaultStoreURL(modelName: modelName, options: options)
        return try await onBackgroundQueue {
            try StoreLocation.prepareFolder(for: url)
            let store = try SQLiteStore.open(url: url, bundle: bundle, readOnly: false, options: options.storeOptions)
            return try CoreDataStack(
                model: store.model, storeType: .sqlite(url), store: store, options: options, modelBundle: bundle)
        }
    }

    /// ``constructSQLiteStack(model:modelName:at:options:)`` with a completion handler, called on
    /// `callbackQueue`.
    ///
    /// ```swift
    /// CoreDataStack.constructSQLiteStack(model: model, callbackQueue: .main) { result in
    ///     switch result {
    ///     case let .success(stack): show(stack.mainQueueContext)
    ///     case let .failure(error): report(error)
    ///     }
    /// }
    /// ```
    public static func constructSQLiteStack(
        model: ManagedObjectModel, modelName: String? = nil, at storeURL: URL? = nil, options: Options = Options(),
        callbackQueue: DispatchQueue, completion: @escaping @Sendable (Result<CoreDataStack, any Error>) -> Void
    ) {
        Task {
            let result: Result<CoreDataStack, any Error>
            do {
                result = .success(try await constructSQLiteStack(model: model, modelName: modelName, at: storeURL, options: options))
            } catch {
                result = .failure(error)
            }
            callbackQueue.async { completion(result) }
        }
    }

    /// ``constructSQLiteStack(modelName:modelFolder:at:options:)`` with a completion handler, called
    /// on `callbackQueue`.
    ///
    /// ```swift
    /// CoreDataStack.constructSQLiteStack(modelName: "Library", callbackQueue: .main) { result in
    ///     stack = try? result.get()
    /// }
    /// ```
    public static func constructSQLiteStack(
        modelName: String, modelFolder: URL? = nil, at storeURL: URL? = nil, options: Options = Options(),
        callbackQueue: DispatchQueue, completion: @escaping @Sendable (Result<CoreDataStack, any Error>) -> Void
    ) {
        Task {
            let result: Result<CoreDataStack, any Error>
            do {
                result = .success(
                    try await constructSQLiteStack(modelName: modelName, modelFolder: modelFolder, at: storeURL, options: options))
            } catch {
                result = .failure(error)
            }
            callbackQueue.async { completion(result) }
        }
    }

    // MARK: Stacks over a store you opened

    /// A stack over a store opened by the caller: read-only, opened with the version of a bundle
    /// that matches it, or any other ``PersistentStore``. The stack's contexts are built as for the
    /// other constructors; saves into a read-only store fail with
    /// ``CoreStackError/readOnlyStore(_:)`` and are reported through ``Options/log``.
    ///
    /// ```swift
    /// let store = try SQLiteStore(url: url, model: model, readOnly: true)
    /// let stack = try CoreDataStack.constructStack(store: store)
    /// stack.mainQueueContext  // browse; nothing can reach the file
    /// ```
    public static func constructStack(store: any PersistentStore, options: Options = Options()) throws -> CoreDataStack {
        let type: StoreType
        if let sqlite = store as? SQLiteStore, let url = sqlite.url {
            type = .sqlite(url)
        } else {
            type = .inMemory
        }
        return try CoreDataStack(model: store.model, storeType: type, store: store, options: options, modelBundle: nil)
    }

    // MARK: In-memory stacks

    /// Builds a stack over an in-memory store, at once.
    ///
    /// ```swift
    /// let stack = try CoreDataStack.constructInMemoryStack(model: model)
    /// ```
    public static func constructInMemoryStack(model: ManagedObjectModel, options: Options = Options()) throws -> CoreDataStack {
        try CoreDataStack(model: model, storeType: .inMemory, store: InMemoryStore(model: model), options: options, modelBundle: nil)
    }

    // MARK: Locations and models

    /// Where a stack keeps its store when no URL is given: `<data folder>/<app>/<modelName>.sqlite`.
    ///
    /// ```swift
    /// CoreDataStack.defaultStoreURL(modelName: "Library", options: .init(applicationName: "Shelf"))
    /// // ~/.local/share/Shelf/Library.sqlite
    /// ```
    public static func defaultStoreURL(modelName: String, options: Options = Options()) -> URL {
        StoreLocation.dataFolder(
            applicationName: options.applicationName, environment: options.environment ?? ProcessInfo.processInfo.environment
        ).appendingPathComponent(modelName + ".sqlite")
    }

    static func loadModelBundle(named name: String, in folder: URL?) throws -> ManagedObjectModelBundle {
        var folders: [URL] = []
        if let folder {
            folders = [folder]
        } else {
            if let r = Bundle.main.resourceURL { folders.append(r) }
            folders.append(Bundle.main.bundleURL)
            folders.append(URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true))
        }
        for f in folders {
            for ext in ["xcdatamodeld", "xcdatamodel"] {
                let url = f.appendingPathComponent(name + "." + ext)
                if FileManager.default.fileExists(atPath: url.path) { return try XcodeModelReader.readBundle(at: url) }
            }
        }
        throw StackError.modelNotFound(name: name, searched: folders.map(\.path))
    }

    /// Runs blocking work (opening a store) on a global queue, off Swift's cooperative threads.
    static func onBackgroundQueue<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}
