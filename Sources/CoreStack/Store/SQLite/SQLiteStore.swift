import Foundation
import GRDB
import Synchronization

/// A store in an SQLite file with Core Data's own layout (<doc:CoreDataFileFormat>), so a
/// store written by an Apple app opens here and the other way round.
///
/// ```swift
/// let store = try SQLiteStore(url: url, model: model)            // creates or opens
/// let bundle = try XcodeModelReader.readBundle(at: modelURL)
/// let apple = try SQLiteStore.open(url: appStore, bundle: bundle, readOnly: true)
/// let meta = try SQLiteStore.metadata(at: appStore)               // no model needed
/// ```
///
/// Stores CoreStack creates carry the usual metadata plus `CoreStackModelVersionName`, and record
/// `NSPersistenceFrameworkVersion` = ``frameworkVersion`` (1: CoreStack is not Apple's framework,
/// whose numbers start in the hundreds). They are matched to a model by version hashes; stores
/// written by Apple (whose hash algorithm is private) are matched by structure: the entities of
/// `Z_PRIMARYKEY` and the tables and columns the model's layout computes.
///
/// All access goes through one GRDB `DatabaseQueue`, which serialises calls from any thread.
/// ``close()`` closes it and every other connection the store opened; SQLite then removes the
/// `-wal` and `-shm` files of the cleanly closed file, and the store refuses further work with
/// ``CoreStackError/storeClosed(_:)``.
///
/// `@unchecked Sendable`: every stored property is a `let` of a `Sendable` type except
/// ``migrationsOnOpen``, which the opening initialisers set before they return the store and
/// nothing changes afterwards; the connection is used only through the `DatabaseQueue`.
public final class SQLiteStore: PersistentStore, @unchecked Sendable {
    /// `NSPersistenceFrameworkVersion` in the stores CoreStack creates.
    public static let frameworkVersion = 1
    /// The metadata key that marks a store written by CoreStack: the model's version name.
    public static let modelVersionNameKey = "CoreStackModelVersionName"
    /// The `Z_METADATA` key where CoreStack lists the attributes with *Allows External Storage*
    /// (`Entity.attribute`, sorted). Core Data leaves the flag out of the version hashes, yet it
    /// changes how the values are stored (a marker byte before each): a store whose list differs
    /// from the model's is migrated (or refused) like one whose hashes differ.
    public static let externalStorageAttributesKey = "CoreStackExternalStorageAttributes"

    /// The model version the store was opened with.
    public let model: ManagedObjectModel
    /// The store's UUID (`Z_METADATA.Z_UUID`).
    public let identifier: String
    /// The identifier's interned token (``StoreIdentifiers``), taken once: the IDs a read makes
    /// carry it.
    let storeToken: UInt32
    /// The store file, as given when the store was opened (a symbolic link stays the link: the
    /// file opened is its target).
    public let url: URL?
    /// Whether the store was opened read-only (writes throw ``CoreStackError/readOnlyStore(_:)``).
    public let isReadOnly: Bool
    /// The metadata read from `Z_METADATA` when the store was opened (or written when it was created).
    public let metadata: StoreMetadata
    /// The options the store was opened with (history tracking, remote change notifications).
    ///
    /// ```swift
    /// if store.options.remoteChangeNotifications { print("watching \(store.url?.path ?? "")") }
    /// ```
    public let options: PersistentStoreOptions
    /// How the store's file is read: read-write, or for a store opened read-only, how it was
    /// opened so as to change nothing beside it (``SQLiteReadAccess``).
    ///
    /// ```swift
    /// if case .snapshot = store.readAccess { print("reading a private copy: \(store.readAccess.summary)") }
    /// ```
    public let readAccess: SQLiteReadAccess
    /// The migrations made when the store was opened with
    /// ``PersistentStoreOptions/shouldMigrateStoreAutomatically`` (empty when none was needed).
    ///
    /// ```swift
    /// for plan in store.migrationsOnOpen { print(plan.lines.joined(separator: "\n")) }
    /// ```
    public internal(set) var migrationsOnOpen: [MigrationPlan] = []

    let path: String
    let dbQueue: DatabaseQueue
    /// A read-only connection for long reads off a context's queue (opened on first use).
    let offQueueReader: SQLiteOffQueueReader
    /// Side files: the store counts its connection with ``SQLiteConnectionFiles`` (as do the
    /// off-queue reader and streams), so every connection of a read-only look is made the same
    /// way (``readAccess``); the `-wal` and `-shm` are SQLite's to remove, never CoreStack's.
    /// Set by ``close()``; read before every access (an atomic load, no lock), again on the
    /// connection's queue.
    let closedFlag = Atomic<Bool>(false)
    /// The streams running on connections of their own (``withStreamingConnection(_:)``), and
    /// whether ``close()`` left the store's connection for the last of them to close. A stream
    /// counts itself in under this lock only while ``closedFlag`` is unset, and ``close()`` reads
    /// the count under it after setting the flag: a stream either runs and holds the close of the
    /// store's connection until it ends, or throws ``CoreStackError/storeClosed(_:)``.
    let streams = LockedValue<(running: Int, closeDeferred: Bool)>((0, false))
    /// Whether the store's connection still counts as open with ``SQLiteConnectionFiles`` (see
    /// ``closeConnection(finally:)``).
    let connectionCounted = Atomic<Bool>(true)
    #if DEBUG
    /// See ``afterOpenCheckHook``.
    let afterOpenCheck = LockedValue<(@Sendable () -> Void)?>(nil)
    #endif
    /// Write transactions this store ran (counted as they end, committed or not): the
    /// remote-change monitor, which sees other connections' commits only, learns of this
    /// connection's from it (one relaxed atomic add per save).
    let ownWriteCount = Atomic<Int>(0)
    let schema: SQLiteSchema
    let tablePlans: [String: TablePlan]
    /// The entity plans, indexed by `Z_ENT` (nil where no entity has that number): a row's plan
    /// is one bounds check and one index, no hashing (see ``entityPlan(number:)``).
    let entityPlansByNumber: [EntityPlan?]
    /// The table plan of each of the model's entities, by ``EntityDescription/entityNumber``
    /// (nil where the entity has no table): a fault of one object finds its table by one index
    /// and an identity check, not a dictionary look-up by entity and one by table name.
    let faultPlans: [FaultPlan?]
    /// Statements kept on the store's connection (see ``ConnectionStatements``).
    let connectionStatements = ConnectionStatements()
    /// How entity tables map onto the history tables (read for any store, written when tracking).
    let historyLayout: HistoryLayout
    /// Records commits in the history tables; nil unless ``PersistentStoreOptions/persistentHistoryTracking`` and writable.
    let historyTracker: HistoryTracker?

    /// The columns read for rows of one table, and the statements that read them by key.
    ///
    /// A class, as ``EntityPlan`` is: a look-up hands out one reference, not a copy of six
    /// strings and a dictionary retained and released (a fault of one object looks one up).
    final class TablePlan {
        let table: String
        /// `t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.…`
        let selectList: String
        let index: [String: Int]
        /// `SELECT <selectList> FROM <table> t0 WHERE t0.Z_PK IN (`: a read by keys adds its
        /// placeholders and `)`.
        let selectByKeys: String
        /// The read of one row by key (`… IN (?)`), made once: a fault of one object builds no SQL.
        let selectByKey: String
        /// The read of a run of consecutive keys (`… BETWEEN ? AND ?`), made once.
        let selectByKeyRange: String

        /// The plan of `table`, whose rows are read as `columns` (`Z_PK`, `Z_ENT`, `Z_OPT`, then the rest).
        init(table: String, columns: [String]) {
            self.table = table
            selectList = columns.map { "t0.\($0)" }.joined(separator: ", ")
            index = Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1, $0) })
            selectByKeys = "SELECT \(selectList) FROM \(table) t0 WHERE t0.Z_PK IN ("
            selectByKey = selectByKeys + "?)"
            selectByKeyRange = "SELECT \(selectList) FROM \(table) t0 WHERE t0.Z_PK BETWEEN ? AND ?"
        }
    }

    /// The table a fault of one object of `entity` reads (see ``faultPlans``).
    final class FaultPlan {
        let entity: EntityDescription
        let table: TablePlan

        init(entity: EntityDescription, table: TablePlan) {
            self.entity = entity
            self.table = table
        }
    }

    /// Statements prepared on the store's connection and kept for its life: the read of one row
    /// by key of each entity, by ``EntityDescription/entityNumber`` (a fault of one object takes
    /// its statement by index, where GRDB's statement cache hashes the ~200 bytes of its SQL
    /// text every time).
    ///
    /// Used only on the connection's queue (inside ``SQLiteStore/readStatement(_:)``), which
    /// serialises every use; emptied there before the connection closes (a statement not
    /// finalised keeps SQLite from closing it; see ``SQLiteStore/closeConnection(finally:)``).
    final class ConnectionStatements: @unchecked Sendable {
        private var byKey: [Statement?] = []

        /// The statement reading one row of `plan`'s table by key for entity number `number`,
        /// prepared on first use.
        func byKey(_ number: Int, _ plan: TablePlan, _ db: Database) throws -> Statement {
            if number < byKey.count, let statement = byKey[number] { return statement }
            let statement = try db.makeStatement(sql: plan.selectByKey)
            if number >= byKey.count { byKey.append(contentsOf: repeatElement(nil, count: number + 1 - byKey.count)) }
            byKey[number] = statement
            return statement
        }

        /// Drops the statement of entity number `number` (after it failed: the next use prepares it again).
        func forget(_ number: Int) {
            if number < byKey.count { byKey[number] = nil }
        }

        /// Finalises every statement (before the connection closes).
        func removeAll() { byKey.removeAll() }
    }

    /// Where one entity's values sit in a read row and how they are written.
    ///
    /// A class: a save and a read look a plan up per row, and a copy of a struct of eight
    /// references retained and released each of them (~4 % of saving 100,000 new objects).
    final class EntityPlan {
        let entity: EntityDescription
        let mapping: SQLiteSchema.EntityMapping
        /// Row index of each attribute slot (nil: transient).
        let attributeIndex: [Int?]
        /// ``attributeIndex`` as the row decoder reads it: the column, or -1 for a transient.
        let attributeColumns: [Int32]
        /// Row indexes of each to-one slot's key and entity columns.
        let toOneIndex: [(key: Int, entity: Int?)?]
        let insertSQL: String
        let updateSQL: String
        /// Attribute slots and to-one slots in the order of the insert/update columns.
        let writtenAttributes: [(slot: Int, type: AttributeType)]
        let writtenToOnes: [(slot: Int, hasEntityColumn: Bool)]
        /// The order-key columns an insert writes after the others (see ``SQLiteStore/save(_:)``).
        let insertedOrderColumns: [String]
        /// The store number of the entity's root (whose `Z_MAX` covers its keys).
        let rootNumber: Int

        init(
            entity: EntityDescription, mapping: SQLiteSchema.EntityMapping, attributeIndex: [Int?],
            toOneIndex: [(key: Int, entity: Int?)?], insertSQL: String, updateSQL: String,
            writtenAttributes: [(slot: Int, type: AttributeType)], writtenToOnes: [(slot: Int, hasEntityColumn: Bool)],
            insertedOrderColumns: [String] = [], rootNumber: Int
        ) {
            self.entity = entity
            self.mapping = mapping
            self.attributeIndex = attributeIndex
            self.attributeColumns = attributeIndex.map { $0.map(Int32.init) ?? -1 }
            self.toOneIndex = toOneIndex
            self.insertSQL = insertSQL
            self.updateSQL = updateSQL
            self.writtenAttributes = writtenAttributes
            self.writtenToOnes = writtenToOnes
            self.insertedOrderColumns = insertedOrderColumns
            self.rootNumber = rootNumber
        }
    }

    /// What opening a file found in it.
    struct Inspection {
        var structure: SQLiteSchema.StoreStructure
        var metadata: StoreMetadata
        /// The model version name CoreStack recorded (nil for stores written by Apple).
        var coreStackVersionName: String?
        /// The attributes with *Allows External Storage* CoreStack recorded (nil when it recorded
        /// none: Apple's stores, and CoreStack's from before it did).
        var coreStackExternalStorage: Set<String>? = nil
    }

    // MARK: - Opening

    /// Creates a store at `url` (the parent folder must exist), or opens the store there.
    ///
    /// An existing store written by CoreStack must have been written with this model (same
    /// version hashes); one written by Apple must have the layout this model computes. With
    /// ``PersistentStoreOptions/shouldMigrateStoreAutomatically`` (and not `readOnly`), a store
    /// written with another model that it carries (`Z_MODELCACHE`) is migrated first
    /// (``migrationsOnOpen`` tells).
    /// - Throws: ``CoreStackError/notAStore(path:reason:)`` (file left untouched),
    ///   ``CoreStackError/modelMismatch(path:differences:)``, ``MigrationError`` (automatic
    ///   migration that cannot be inferred; file left untouched), ``CoreStackError/sqlite(path:message:)``.
    public convenience init(
        url: URL, model: ManagedObjectModel, readOnly: Bool = false, options: PersistentStoreOptions = PersistentStoreOptions()
    ) throws {
        let path = url.path
        if !readOnly {
            // Raw attributes stand for columns nothing explained: such a model may read the store, never write it.
            let raw = model.entities.flatMap { e in e.attributes.compactMap { a in a.rawColumn.map { "entity \(e.name): column \($0) is read raw (neither the model nor inference explains it)" } } }
            if !raw.isEmpty {
                throw CoreStackError.modelMismatch(path: path, differences: raw + ["a store opened for writing needs a model that explains every column"])
            }
        }
        if FileManager.default.fileExists(atPath: path) {
            var inspection = try Self.inspect(url: url, beforeWriting: !readOnly)
            var diffs = Self.differences(model: model, inspection: inspection, forWriting: !readOnly)
            var plans: [MigrationPlan] = []
            if !diffs.isEmpty && options.shouldMigrateStoreAutomatically && !readOnly {
                plans = try SQLiteMigration.migrateForOpening(
                    at: url, to: model, versions: [], options: options,
                    mismatch: CoreStackError.modelMismatch(path: path, differences: diffs))
                inspection = try Self.inspect(url: url, beforeWriting: true)
                diffs = Self.differences(model: model, inspection: inspection)
            }
            guard diffs.isEmpty else { throw CoreStackError.modelMismatch(path: path, differences: diffs) }
            try self.init(url: url, model: model, readOnly: readOnly, inspection: inspection, options: options)
            migrationsOnOpen = plans
        } else {
            guard !readOnly else { throw CoreStackError.notAStore(path: path, reason: "the file does not exist") }
            try self.init(url: url, model: model, readOnly: false, inspection: nil, options: options)
        }
    }

    /// Opens the store at `url` with the version of `bundle` it was written with (hashes for
    /// CoreStack stores, structure for Apple's). A missing file is created with the current version.
    ///
    /// With ``PersistentStoreOptions/shouldMigrateStoreAutomatically`` (and not `readOnly`), a store
    /// of an earlier version (or of the model it carries) is migrated to the current version first,
    /// progressively through the bundle's versions (``migrationsOnOpen`` tells).
    ///
    /// ```swift
    /// let store = try SQLiteStore.open(url: url, bundle: bundle, readOnly: false,
    ///                                  options: PersistentStoreOptions(shouldMigrateStoreAutomatically: true))
    /// ```
    /// - Throws: ``CoreStackError/modelMismatch(path:differences:)`` naming what differs from the
    ///   closest version when no version fits; ``CoreStackError/migrationRequired(path:storeVersion:currentVersion:)``
    ///   when the fitting version is not the current one, `readOnly` is false and the store is not
    ///   migrated automatically; ``MigrationError`` when automatic migration cannot infer a change.
    public static func open(
        url: URL, bundle: ManagedObjectModelBundle, readOnly: Bool, options: PersistentStoreOptions = PersistentStoreOptions()
    ) throws -> SQLiteStore {
        let path = url.path
        guard FileManager.default.fileExists(atPath: path) else {
            guard !readOnly else { throw CoreStackError.notAStore(path: path, reason: "the file does not exist") }
            return try SQLiteStore(url: url, model: bundle.currentVersion, readOnly: false, inspection: nil, options: options)
        }
        var inspection = try inspect(url: url, beforeWriting: !readOnly)
        var plans: [MigrationPlan] = []
        let migrates = options.shouldMigrateStoreAutomatically && !readOnly
        if migrates && !differences(model: bundle.currentVersion, inspection: inspection).isEmpty {
            // Known version (of the bundle, or the store's own): migrate to the current one first.
            let mismatch = CoreStackError.modelMismatch(path: path, differences: ["no version of \(bundle.name) matches the store, and it carries no model of its own that does"])
            do {
                plans = try SQLiteMigration.migrateForOpening(
                    at: url, to: bundle.currentVersion, versions: bundle.versions, options: options, mismatch: mismatch)
                inspection = try inspect(url: url, beforeWriting: true)
            } catch let error as CoreStackError where error == mismatch {
                // Unknown version: fall through to the closest version's differences below.
            }
        }
        var candidates = bundle.versions
        if !candidates.contains(where: { $0 === bundle.currentVersion }) { candidates.append(bundle.currentVersion) }
        // The current version first, then the newest.
        let ordered = [bundle.currentVersion] + candidates.filter { $0 !== bundle.currentVersion }.reversed()
        var closest: (model: ManagedObjectModel, diffs: [String])?
        for version in ordered {
            let diffs = differences(model: version, inspection: inspection)
            if diffs.isEmpty {
                if version !== bundle.currentVersion && !readOnly {
                    throw CoreStackError.migrationRequired(
                        path: path, storeVersion: version.versionName ?? "(unnamed)",
                        currentVersion: bundle.currentVersion.versionName ?? "(unnamed)")
                }
                let store = try SQLiteStore(url: url, model: version, readOnly: readOnly, inspection: inspection, options: options)
                store.migrationsOnOpen = plans
                return store
            }
            if closest == nil || diffs.count < (closest?.diffs.count ?? Int.max) { closest = (version, diffs) }
        }
        let name = closest?.model.versionName ?? bundle.name
        throw CoreStackError.modelMismatch(
            path: path, differences: ["closest model version \"\(name)\""] + (closest?.diffs ?? []))
    }

    /// The metadata of the store at `url`, read without a model and without changing the file.
    public static func metadata(at url: URL) throws -> StoreMetadata {
        try inspect(url: url).metadata
    }

    /// The entities the store at `url` records in `Z_PRIMARYKEY` (name, `Z_ENT`, `Z_SUPER`, `Z_MAX`),
    /// read without a model and without changing the file. Includes Core Data's internal entities
    /// (numbers 16001 and up) when the store has them.
    public static func entities(at url: URL) throws -> [SQLiteStoreEntity] {
        try inspect(url: url).structure.entities
    }

    /// The entities of this store's `Z_PRIMARYKEY` table, as they are now.
    public func storeEntities() throws -> [SQLiteStoreEntity] {
        try read { db in try Self.readPrimaryKeyTable(db, path: self.path) }
    }

    private init(
        url: URL, model: ManagedObjectModel, readOnly: Bool, inspection: Inspection?, options: PersistentStoreOptions = PersistentStoreOptions()
    ) throws {
        // Through a symbolic link, the file SQLite opens (and puts its -wal and -shm beside) is the target.
        let path = Self.resolvedFileURL(url).path
        self.path = path
        self.offQueueReader = SQLiteOffQueueReader(path: path)
        self.options = options
        self.url = url
        self.model = model
        self.isReadOnly = readOnly
        let target = try SQLiteConnectionFiles.opened(path, readOnly: readOnly)
        self.readAccess = target.access
        // Until the store is whole, a throw leaves no store whose close() or deinit would close
        // the connection and count it closed: the catch below does (every throw in this
        // initialiser comes before its last stored property is set, so no deinit runs for it).
        var connection: DatabaseQueue?
        do {
            var config = Configuration()
            target.configure(&config)
            config.busyMode = .timeout(10)
            config.label = "CoreStack.SQLiteStore"
            config.prepareDatabase { db in SQLiteFunctions.register(in: db) }

            if let inspection {
                let numbers = SQLiteSchema.storeNumbers(of: model, in: inspection.structure)
                var schema = SQLiteSchema(model: model, storeNumbers: numbers)
                schema.adoptJoinTableNames(from: inspection.structure)
                self.schema = schema
                self.metadata = inspection.metadata
                self.identifier = inspection.metadata.storeUUID
                self.storeToken = StoreIdentifiers.token(for: inspection.metadata.storeUUID)
                let queue = try Self.wrap(path) { try DatabaseQueue(path: target.connectionPath, configuration: config) }
                connection = queue
                self.dbQueue = queue
                if !readOnly {
                    try Self.wrap(path) {
                        try queue.writeWithoutTransaction { db in
                            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
                        }
                    }
                }
            } else {
                let parent = url.deletingLastPathComponent().path
                var isDir: ObjCBool = false
                guard FileManager.default.fileExists(atPath: parent, isDirectory: &isDir), isDir.boolValue else {
                    throw CoreStackError.sqlite(path: path, message: "the folder \(parent) does not exist")
                }
                let schema = SQLiteSchema(model: model)
                let uuid = UUID().uuidString.uppercased()
                let metadata = StoreMetadata(
                    storeUUID: uuid, storeType: "SQLite", frameworkVersion: Self.frameworkVersion,
                    versionHashes: model.entityVersionHashes, versionIdentifiers: model.versionIdentifiers)
                self.schema = schema
                self.metadata = metadata
                self.identifier = uuid
                self.storeToken = StoreIdentifiers.token(for: uuid)
                let queue = try Self.wrap(path) { try DatabaseQueue(path: path, configuration: config) }
                connection = queue
                self.dbQueue = queue
                let plist = try Self.metadataPlist(model: model)
                // The model in Core Data's encoding, so the store opens anywhere with no model file.
                let modelCache = try model.archivedModelCache()
                try Self.wrap(path) {
                    try queue.writeWithoutTransaction { db in
                        try db.execute(sql: "PRAGMA auto_vacuum = 2")
                        _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
                        try db.inTransaction {
                            for sql in schema.creationStatements { try db.execute(sql: sql) }
                            for row in schema.primaryKeyRows {
                                try db.execute(
                                    sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)",
                                    arguments: SQLiteRawBinding.arguments(
                                        [row.number.databaseValue, row.name.databaseValue, row.superNumber.databaseValue], in: db))
                            }
                            try db.execute(
                                sql: "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)",
                                arguments: SQLiteRawBinding.arguments([uuid.databaseValue, plist.databaseValue], in: db))
                            try db.execute(sql: "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)")
                            try db.execute(sql: "INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)", arguments: SQLiteRawBinding.arguments([modelCache.databaseValue], in: db))
                            return .commit
                        }
                    }
                }
            }
            let plans = Self.makePlans(schema: schema)
            self.tablePlans = plans.0
            self.entityPlansByNumber = Self.byNumber(plans.1)
            self.faultPlans = Self.makeFaultPlans(schema: schema, tablePlans: tablePlans)
            historyLayout = HistoryLayout(schema: schema)
            let tracker = options.persistentHistoryTracking && !readOnly ? HistoryTracker(layout: historyLayout, path: path) : nil
            if let tracker, let connection {
                try Self.wrap(path) { try connection.writeWithoutTransaction { db in try tracker.install(db) } }
            }
            historyTracker = tracker
        } catch {
            // Closed, or (when GRDB cannot close it) closed as it is freed with this failed store
            // just after; counted closed either way (see ``closeConnection(finally:)``).
            _ = try? connection?.close()
            SQLiteConnectionFiles.closed(path)
            throw error
        }
    }

    deinit {
        close()
        closeConnection(finally: true)
    }

    /// The binary property list of `Z_METADATA` for a new store.
    static func metadataPlist(model: ManagedObjectModel) throws -> Data {
        var hashes: [String: Any] = [:]
        for (name, hash) in model.entityVersionHashes { hashes[name] = hash }
        let plist: [String: Any] = [
            "NSStoreType": "SQLite",
            "NSPersistenceFrameworkVersion": frameworkVersion,
            "NSStoreModelVersionHashes": hashes,
            "NSStoreModelVersionHashesVersion": 3,
            "NSStoreModelVersionIdentifiers": model.versionIdentifiers,
            "_NSAutoVacuumLevel": "2",
            modelVersionNameKey: model.versionName ?? "",
            externalStorageAttributesKey: externalStorageAttributes(of: model).sorted(),
        ]
        return try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
    }

    /// ``faultPlans``: each entity of the schema's model with a table, at its entity number.
    private static func makeFaultPlans(schema: SQLiteSchema, tablePlans: [String: TablePlan]) -> [FaultPlan?] {
        var plans: [FaultPlan?] = []
        for e in schema.model.entities {
            guard e.entityNumber >= 0, let m = try? schema.mapping(for: e), let table = tablePlans[m.table] else { continue }
            if e.entityNumber >= plans.count { plans.append(contentsOf: repeatElement(nil, count: e.entityNumber + 1 - plans.count)) }
            plans[e.entityNumber] = FaultPlan(entity: e, table: table)
        }
        return plans
    }

    /// The plans of `plans` in an array indexed by entity number.
    private static func byNumber(_ plans: [Int: EntityPlan]) -> [EntityPlan?] {
        var byNumber = [EntityPlan?](repeating: nil, count: (plans.keys.max() ?? -1) + 1)
        for (number, plan) in plans where number >= 0 { byNumber[number] = plan }
        return byNumber
    }

    /// The plan of the entity numbered `number` (`Z_ENT`), nil for a number no entity has.
    @inline(__always)
    func entityPlan(number: Int) -> EntityPlan? {
        number >= 0 && number < entityPlansByNumber.count ? entityPlansByNumber[number] : nil
    }

    private static func makePlans(schema: SQLiteSchema) -> ([String: TablePlan], [Int: EntityPlan]) {
        var tablePlans: [String: TablePlan] = [:]
        // Order keys are read with the to-manys, except a stray one read as a raw attribute.
        let rawColumns = Set(schema.model.entities.flatMap { $0.attributes.compactMap(\.rawColumn) })
        for t in schema.entityTables {
            let names = t.columns.map(\.name).filter {
                let file = SQLiteIdentifier.file($0)
                return (!file.hasPrefix("Z_FOK_") || rawColumns.contains(file)) && !["Z_PK", "Z_ENT", "Z_OPT"].contains($0)
            }
            tablePlans[t.name] = TablePlan(table: t.name, columns: ["Z_PK", "Z_ENT", "Z_OPT"] + names)
        }
        var entityPlans: [Int: EntityPlan] = [:]
        for e in schema.model.entities {
            guard let m = try? schema.mapping(for: e), let tp = tablePlans[m.table] else { continue }
            var columns: [String] = []
            var attrs: [(Int, AttributeType)] = []
            var toOnes: [(Int, Bool)] = []
            for (slot, col) in m.attributeColumns.enumerated() {
                guard let col else { continue }
                columns.append(col)
                attrs.append((slot, e.allAttributes[slot].type))
            }
            for (slot, t) in m.toOne.enumerated() {
                guard let t else { continue }
                columns.append(t.column)
                if let ec = t.entityColumn { columns.append(ec) }
                toOnes.append((slot, t.entityColumn != nil))
            }
            // The order keys (`Z_FOK_…`) of this entity's place in ordered to-manys kept by its
            // foreign keys: an insert writes them with the row (an update leaves them to the
            // to-many writes).
            var orderColumns: [String] = []
            for (slot, t) in m.toOne.enumerated() {
                guard let t, slot < e.inverseSlots.count, let inverse = e.inverseSlots[slot],
                    let dm = try? schema.mapping(for: e.destinations[slot]), inverse < dm.toMany.count,
                    case let .foreignKey(table, column, orderColumn?) = dm.toMany[inverse],
                    table == m.table, column == t.column, !orderColumns.contains(orderColumn)
                else { continue }
                orderColumns.append(orderColumn)
            }
            let inserted = ["Z_PK", "Z_ENT", "Z_OPT"] + columns + orderColumns
            let insert = "INSERT INTO \(m.table) (" + inserted.joined(separator: ", ")
                + ") VALUES (" + SQLiteRawBinding.placeholders(inserted.count) + ")"
            let update = "UPDATE \(m.table) SET " + (columns + ["Z_OPT"]).map { "\($0) = ?" }.joined(separator: ", ")
                + " WHERE Z_PK = ? AND Z_OPT = ?"
            entityPlans[m.number] = EntityPlan(
                entity: e, mapping: m,
                attributeIndex: m.attributeColumns.map { $0.flatMap { tp.index[$0] } },
                toOneIndex: m.toOne.map { t in
                    t.flatMap { t in tp.index[t.column].map { (key: $0, entity: t.entityColumn.flatMap { tp.index[$0] }) } }
                },
                insertSQL: insert, updateSQL: update, writtenAttributes: attrs, writtenToOnes: toOnes,
                insertedOrderColumns: orderColumns,
                rootNumber: (try? schema.mapping(for: e.rootEntity))?.number ?? m.number)
        }
        return (tablePlans, entityPlans)
    }

    // MARK: - Inspecting a file

    /// The file a store URL names: symbolic links resolved (every component), so the store, its
    /// `-wal` and `-shm`, a migration's temporary files and the file it moves into place are the
    /// target's, and a link stays a link. A URL that names no file yet is returned as it is.
    ///
    /// ```swift
    /// SQLiteStore.resolvedFileURL(URL(fileURLWithPath: "/work/link.sqlite"))   // /data/Library.sqlite
    /// ```
    static func resolvedFileURL(_ url: URL) -> URL {
        url.isFileURL ? url.resolvingSymlinksInPath() : url
    }

    /// Reads what a file holds without changing it (a read-only connection; `beforeWriting`: a
    /// read-write connection follows, see ``SQLiteConnectionFiles/opened(_:readOnly:beforeWriting:)``).
    static func inspect(url: URL, beforeWriting: Bool = false) throws -> Inspection {
        try readOnlyAccess(url: url, label: "CoreStack.SQLiteStore.inspect", beforeWriting: beforeWriting) { db in
            try inspect(db, path: url.path)
        }
    }

    /// Runs `body` on a read-only connection to the file at `url`, leaving the file as it was found.
    static func withReadOnlyConnection<T>(url: URL, _ body: (Database) throws -> T) throws -> T {
        try readOnlyAccess(url: url, label: "CoreStack.SQLiteStore.read", body)
    }

    /// Checks the file at `url` with SQLite's `PRAGMA quick_check` (every page of every table and
    /// index is read and its structure checked, in time linear in the file's size), through a
    /// read-only connection that leaves the file as it was found.
    ///
    /// ```swift
    /// do { try SQLiteStore.quickCheck(at: url) }
    /// catch let CoreStackError.storeCorrupted(_, reason) { print(reason) } // "quick_check: *** in database main *** …"
    /// ```
    /// - Throws: ``CoreStackError/storeCorrupted(path:reason:)`` with SQLite's first findings,
    ///   ``CoreStackError/notAStore(path:reason:)`` for a file that is not an SQLite database.
    public static func quickCheck(at url: URL) throws {
        let path = url.path
        let findings = try readOnlyAccess(url: url, label: "CoreStack.SQLiteStore.quickCheck") { db in
            try String.fetchAll(db, sql: "PRAGMA quick_check(3)")
        }
        guard findings != ["ok"] else { return }
        let text = findings.joined(separator: "; ")
        let cut = text.count > 300 ? String(text.prefix(300)) + "…" : text
        throw CoreStackError.storeCorrupted(path: path, reason: "quick_check: " + (cut.isEmpty ? "no result" : cut))
    }

    /// Runs `body` on a read-only connection to the file at `url`, and removes the empty `-wal`
    /// and `-shm` files SQLite creates for a WAL-mode file, so the folder is left as found.
    private static func readOnlyAccess<T>(
        url: URL, label: String, beforeWriting: Bool = false, _ body: (Database) throws -> T
    ) throws -> T {
        let path = resolvedFileURL(url).path
        guard FileManager.default.fileExists(atPath: path) else {
            throw CoreStackError.notAStore(path: path, reason: "the file does not exist")
        }
        // Refused before SQLite sees it: SQLite takes an empty file for a new database and deletes
        // a -wal beside it as stale, even on a read-only connection.
        let size = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
        if size == 0 {
            let wal = FileManager.default.fileExists(atPath: path + "-wal") ? " (a -wal file beside it is left as it is)" : ""
            throw CoreStackError.notAStore(path: path, reason: "the file is empty, not an SQLite database" + wal)
        }
        var config = Configuration()
        // Another connection to the file may be closing (checkpointing its WAL): wait for it.
        config.busyMode = .timeout(10)
        config.label = label
        // Made as SQLiteReadAccess says from the files beside the store: nothing is left beside it
        // that was not there, and nothing another process uses is removed.
        let target = try SQLiteConnectionFiles.opened(path, readOnly: true, beforeWriting: beforeWriting)
        defer { SQLiteConnectionFiles.closed(path) }
        target.configure(&config)
        do {
            let queue = try DatabaseQueue(path: target.connectionPath, configuration: config)
            defer { try? queue.close() }
            return try queue.read(body)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw CoreStackError.notAStore(path: path, reason: error.message ?? "not an SQLite database")
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CANTOPEN || error.resultCode == .SQLITE_READONLY {
            throw readOnlyLocationError(path: path) ?? storeError(error, path: path)
        } catch {
            throw storeError(error, path: path)
        }
    }

    /// Why a WAL-mode store in a folder that cannot be written (read-only permissions or file
    /// system) cannot be read, and what to do; nil when that is not the case. SQLite reads a
    /// WAL-mode file only with its `-shm` index beside it, and makes that file when it is missing.
    static func readOnlyLocationError(path: String) -> CoreStackError? {
        let folder = (path as NSString).deletingLastPathComponent
        guard access(folder.isEmpty ? "." : folder, W_OK) != 0 else { return nil }
        // Header bytes 18 and 19 (file format write and read versions) are 2 in WAL mode.
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 20)) ?? Data()
        guard header.count == 20, header[18] == 2 || header[19] == 2 else { return nil }
        let fm = FileManager.default
        let name = (path as NSString).lastPathComponent
        guard !fm.fileExists(atPath: path + "-shm") else { return nil }
        let wal = ((try? fm.attributesOfItem(atPath: path + "-wal"))?[.size] as? NSNumber)?.intValue ?? 0
        let files = wal > 0 ? "\(name) and \(name)-wal" : name
        return .sqlite(
            path: path,
            message: "the store is in WAL mode and SQLite must create \(name)-shm beside it to read it, "
                + "but \(folder) cannot be written (read-only folder or file system)"
                + (wal > 0 ? "; its -wal file holds changes not yet in the store file" : "")
                + ". Copy \(files) to a writable folder and open the copy")
    }

    /// The rows of `Z_PRIMARYKEY`, each value checked (``StoreFileDecoder``).
    /// - Throws: ``CoreStackError/storeCorrupted(path:reason:)`` naming the column and row of a
    ///   value of the wrong type, a missing `Z_ENT` or `Z_NAME`, or an entity number used twice.
    static func readPrimaryKeyTable(_ db: Database, path: String) throws -> [SQLiteStoreEntity] {
        var entities: [SQLiteStoreEntity] = []
        var seen: Set<Int> = []
        let decoder = StoreFileDecoder(path: path, table: "Z_PRIMARYKEY")
        let rows = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
        for (n, row) in rows.enumerated() {
            let label = "\(n + 1)"
            let number = try decoder.requiredInteger(row, 0, column: "Z_ENT", row: label)
            let rowLabel = "Z_ENT = \(number)"
            guard let name = try decoder.text(row, 1, column: "Z_NAME", row: rowLabel), !name.isEmpty else {
                throw decoder.corrupted("Z_NAME", rowLabel, "is NULL or empty")
            }
            guard seen.insert(number).inserted else { throw decoder.corrupted("Z_ENT", rowLabel, "is used by two rows") }
            let sup = try decoder.integer(row, 2, column: "Z_SUPER", row: rowLabel) ?? 0
            let max = try decoder.integer(row, 3, column: "Z_MAX", row: rowLabel) ?? 0
            guard let superNumber = Int(exactly: sup) else { throw decoder.corrupted("Z_SUPER", rowLabel, "holds \(sup), out of range") }
            guard max >= 0 else { throw decoder.corrupted("Z_MAX", rowLabel, "holds \(max), below zero") }
            entities.append(SQLiteStoreEntity(name: name, number: number, superNumber: superNumber, maxPrimaryKey: max))
        }
        return entities
    }

    static func inspect(_ db: Database, path: String) throws -> Inspection {
        let tableNames = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        guard tableNames.contains("Z_PRIMARYKEY"), tableNames.contains("Z_METADATA") else {
            throw CoreStackError.notAStore(
                path: path, reason: "it is an SQLite database without Core Data's Z_PRIMARYKEY and Z_METADATA tables")
        }
        var tables: [String: Set<String>] = [:]
        for name in tableNames where !name.hasPrefix("sqlite_") {
            // A virtual table of a module this SQLite lacks has no readable columns: it is no
            // table of the model (which the comparison with the model's layout then says).
            tables[name] = Set(((try? SQLiteIdentifier.columns(ofTable: name, db)) ?? []).map(\.name))
        }
        guard tables["Z_PRIMARYKEY"]?.isSuperset(of: ["Z_ENT", "Z_NAME", "Z_SUPER", "Z_MAX"]) == true,
            tables["Z_METADATA"]?.isSuperset(of: ["Z_VERSION", "Z_UUID", "Z_PLIST"]) == true
        else {
            throw CoreStackError.notAStore(path: path, reason: "Z_PRIMARYKEY or Z_METADATA lacks Core Data's columns")
        }
        let entities = try readPrimaryKeyTable(db, path: path)
        guard let row = try Row.fetchOne(db, sql: "SELECT Z_UUID, Z_PLIST, Z_VERSION FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1") else {
            throw CoreStackError.notAStore(path: path, reason: "Z_METADATA has no row")
        }
        let metadataDecoder = StoreFileDecoder(path: path, table: "Z_METADATA")
        let version = (try? metadataDecoder.integer(row, 2, column: "Z_VERSION", row: "1")).flatMap { $0 }
        let metadataRow = version.map { "Z_VERSION = \($0)" } ?? "1"
        guard let uuid = try metadataDecoder.text(row, 0, column: "Z_UUID", row: metadataRow), !uuid.isEmpty else {
            throw metadataDecoder.corrupted("Z_UUID", metadataRow, "is NULL or empty: the store has no UUID")
        }
        var plist: [String: Any] = [:]
        if let data = try metadataDecoder.blob(row, 1, column: "Z_PLIST", row: metadataRow), !data.isEmpty {
            guard let decoded = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil),
                let dict = decoded as? [String: Any]
            else {
                throw metadataDecoder.corrupted("Z_PLIST", metadataRow, "is not a property list")
            }
            plist = dict
        }
        var hashes: [String: Data] = [:]
        if let h = plist["NSStoreModelVersionHashes"] as? [String: Any] {
            for (k, v) in h { if let d = v as? Data { hashes[k] = d } }
        }
        let framework: Int? = (plist["NSPersistenceFrameworkVersion"] as? Int)
            ?? (plist["NSPersistenceFrameworkVersion"] as? NSNumber)?.intValue
        let metadata = StoreMetadata(
            storeUUID: uuid, storeType: (plist["NSStoreType"] as? String) ?? "SQLite", frameworkVersion: framework,
            versionHashes: hashes,
            versionIdentifiers: (plist["NSStoreModelVersionIdentifiers"] as? [Any])?.compactMap { $0 as? String } ?? [])
        return Inspection(
            structure: SQLiteSchema.StoreStructure(tables: tables, entities: entities), metadata: metadata,
            coreStackVersionName: plist[modelVersionNameKey] as? String,
            coreStackExternalStorage: (plist[externalStorageAttributesKey] as? [Any]).map { Set($0.compactMap { $0 as? String }) })
    }

    /// The attributes of `model` with *Allows External Storage*, as `Entity.attribute` (each
    /// where it is declared).
    static func externalStorageAttributes(of model: ManagedObjectModel) -> Set<String> {
        var out: Set<String> = []
        for e in model.entities {
            for a in e.attributes where a.allowsExternalBinaryDataStorage && !a.isTransient { out.insert("\(e.name).\(a.name)") }
        }
        return out
    }

    /// What keeps `model` from opening the inspected store (empty when it fits). `forWriting`
    /// false (a read-only open): an attribute the store lists with *Allows External Storage* and
    /// the model does not is no difference, since reading takes the marker bytes as the evidence
    /// (``SQLiteExternalBinaryData``), as for Apple's model caches, which do not carry the flag.
    static func differences(model: ManagedObjectModel, inspection: Inspection, forWriting: Bool = true) -> [String] {
        let numbers = SQLiteSchema.storeNumbers(of: model, in: inspection.structure)
        var diffs = SQLiteSchema(model: model, storeNumbers: numbers).differences(from: inspection.structure)
        if inspection.coreStackVersionName != nil {
            // Written by CoreStack: the version hashes must be the model's.
            let stored = inspection.metadata.versionHashes
            for e in model.entities {
                if let h = stored[e.name] {
                    if h != e.versionHash { diffs.append("entity \(e.name): its version hash differs from the store's") }
                } else {
                    diffs.append("entity \(e.name): the store records no version hash for it")
                }
            }
            for name in stored.keys.sorted() where model.entity(named: name) == nil {
                diffs.append("the store records a version hash for an entity \(name) the model does not have")
            }
            // Left out of the hashes (as Core Data does), yet it changes how values are stored.
            if let recorded = inspection.coreStackExternalStorage {
                let flagged = externalStorageAttributes(of: model)
                let differing = forWriting ? flagged.symmetricDifference(recorded) : flagged.subtracting(recorded)
                for name in differing.sorted() {
                    let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
                    let (entity, attribute) = (parts.first ?? name, parts.count > 1 ? parts[1] : "")
                    let side = flagged.contains(name) ? "in the model, not in the store" : "in the store, not in the model"
                    diffs.append("entity \(entity): attribute \(attribute) allows external storage \(side)")
                }
            }
        }
        return diffs
    }

    // MARK: - Access

    /// Runs `body`, turning GRDB's errors into ``CoreStackError``s: damage SQLite finds while
    /// reading pages (`SQLITE_CORRUPT`, `SQLITE_NOTADB`) becomes ``CoreStackError/storeCorrupted(path:reason:)``.
    static func wrap<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw storeError(error, path: path)
        }
    }

    /// `error` as a ``CoreStackError``: SQLite's corruption codes and GRDB's row-decoding errors
    /// (a value of the wrong type in a file) are ``CoreStackError/storeCorrupted(path:reason:)``,
    /// SQLite's limits on the size of a statement (only a predicate makes statements that large)
    /// ``CoreStackError/invalidPredicate(_:)``, other SQLite errors
    /// ``CoreStackError/sqlite(path:message:)``; CoreStack's own errors and errors thrown by
    /// callers' code pass unchanged.
    static func storeError(_ error: any Error, path: String) -> any Error {
        switch error {
        case let error as DatabaseError:
            if error.resultCode == .SQLITE_NOTADB || error.resultCode == .SQLITE_CORRUPT {
                return CoreStackError.storeCorrupted(path: path, reason: error.message ?? "SQLite reports a malformed database")
            }
            if error.resultCode == .SQLITE_ERROR, let message = error.message,
                ["parser stack overflow", "Expression tree is too large", "too many SQL variables"].contains(where: message.contains)
            {
                // Long lists and chains compile small; what is left is nesting: SQLite's parser
                // holds about 100 levels, and each level of AND, OR or NOT inside another takes several.
                return CoreStackError.invalidPredicate(
                    "the predicate is too large or nested too deeply for SQLite (\(message)); "
                        + "use fewer levels of parentheses around AND, OR and NOT")
            }
            return CoreStackError.sqlite(path: path, message: error.message ?? "\(error)")
        case let error as RowDecodingError:
            return CoreStackError.storeCorrupted(path: path, reason: "a value of the wrong type: \(error)")
        default:
            return error
        }
    }

    /// Runs `body`, in debug builds marking this thread as inside this store's connection queue
    /// (see ``isInsideDatabaseAccess``); in release builds it only calls `body`.
    @inline(__always)
    private func markingAccess<T>(_ body: () throws -> T) throws -> T {
        #if DEBUG
        let marks = DatabaseAccessMarks.current
        marks.stores.append(ObjectIdentifier(self))
        defer { marks.stores.removeLast() }
        #endif
        return try body()
    }

    /// Whether the calling thread is inside a block on this store's connection queue (a read or
    /// write of ``read(_:)``, ``readStatement(_:)`` or ``write(_:)``). Tracked in debug builds
    /// only, for tests checking that no user code runs there; always false in release builds.
    var isInsideDatabaseAccess: Bool {
        #if DEBUG
        DatabaseAccessMarks.current.stores.contains(ObjectIdentifier(self))
        #else
        false
        #endif
    }

    /// Whether the calling thread is inside a block on any SQLite store's connection queue (see
    /// ``isInsideDatabaseAccess``; debug builds only, always false in release builds).
    static var isInsideAnyDatabaseAccess: Bool {
        #if DEBUG
        !DatabaseAccessMarks.current.stores.isEmpty
        #else
        false
        #endif
    }

    /// Runs `body` on the store's connection, on its queue, once the store is known open there.
    ///
    /// ``close()`` sets the closed flag and then closes the connection on this same serial queue,
    /// so a block that reaches the queue after the close finds the flag set and throws
    /// ``CoreStackError/storeClosed(_:)`` before it touches the (closed) connection; a block that
    /// reaches it before completes first, and the close waits for it. The check before the queue
    /// only spares a closed store the trip.
    private func onConnection<T>(_ body: (Database) throws -> T) throws -> T {
        try checkOpen()
        runAfterOpenCheckHook()
        return try Self.wrap(path) {
            try dbQueue.inDatabase { db in
                try checkOpen()
                return try markingAccess { try body(db) }
            }
        }
    }

    /// Runs ``afterOpenCheckHook`` (debug builds; nothing in release builds).
    @inline(__always)
    func runAfterOpenCheckHook() {
        #if DEBUG
        if let hook = afterOpenCheck.withLock({ $0 }) { hook() }
        #endif
    }

    #if DEBUG
    /// Tests only (debug builds): called by every read and write of the store's connection
    /// after its check that the store is open and before it reaches the connection's queue, and
    /// by a stream after that check and before it counts itself in and opens its own
    /// connection, to close the store in between.
    var afterOpenCheckHook: (@Sendable () -> Void)? {
        get { afterOpenCheck.withLock { $0 } }
        set { afterOpenCheck.withLock { $0 = newValue } }
    }
    #endif

    /// Runs `body` in a read transaction on the store's connection queue (as GRDB's `read` does:
    /// `query_only` on, a deferred transaction).
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try onConnection { db in try db.readOnly { try inTransaction(db, .deferred, body) } }
    }

    /// `body`'s result, run in a transaction of `kind` (nil: GRDB's default) that commits.
    private func inTransaction<T>(_ db: Database, _ kind: Database.TransactionKind?, _ body: (Database) throws -> T) throws -> T {
        var result: T?
        try db.inTransaction(kind) {
            result = try body(db)
            return .commit
        }
        guard let result else { throw CoreStackError.sqlite(path: path, message: "a transaction ended without its result") }
        return result
    }

    /// A read made of one SELECT statement: SQLite runs a lone statement in its own implicit
    /// read transaction, so it skips what ``read(_:)`` adds around a block (BEGIN/COMMIT and
    /// GRDB's `query_only` pragma on and off, four more statements for every fault that fires).
    func readStatement<T>(_ body: (Database) throws -> T) throws -> T {
        try onConnection(body)
    }

    /// Runs `body` in a write transaction on the store's connection queue (as GRDB's `write` does).
    private func writeTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try onConnection { db in try inTransaction(db, nil, body) }
    }

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE`, waiting up to 10 s for another
    /// connection's write lock); with history tracking, the rows it wrote are recorded as one
    /// history transaction before it commits.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        try checkOpen()
        guard !isReadOnly else { throw CoreStackError.readOnlyStore(path) }
        defer { ownWriteCount.wrappingAdd(1, ordering: .relaxed) }
        guard let tracker = historyTracker else {
            return try writeTransaction(body)
        }
        var transaction: Int64?
        do {
            return try writeTransaction { db in
                let result = try body(db)
                transaction = try tracker.flush(db)
                return result
            }
        } catch {
            tracker.abandon(transaction)
            throw error
        }
    }
}

#if DEBUG
/// The stores whose connection queue this thread is inside, innermost last (debug builds only,
/// see ``SQLiteStore/isInsideDatabaseAccess``).
final class DatabaseAccessMarks {
    var stores: [ObjectIdentifier] = []

    private static let key = "CoreStack.databaseAccessMarks"

    /// This thread's list.
    static var current: DatabaseAccessMarks {
        let dict = Thread.current.threadDictionary
        if let marks = dict[key] as? DatabaseAccessMarks { return marks }
        let marks = DatabaseAccessMarks()
        dict[key] = marks
        return marks
    }
}
#endif
