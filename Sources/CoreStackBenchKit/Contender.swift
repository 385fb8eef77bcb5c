import Foundation

/// One way of talking to SQLite that the benchmark measures.
public protocol Contender: Sendable {
    /// The column name in the tables.
    var name: String { get }
    /// Creates an empty store file with the tables of every workload (not timed).
    func createStore(at url: URL) throws
    /// Opens a store for one timed operation (not timed).
    func open(_ url: URL) throws -> any BenchSession
}

/// An open store. Every method is one timed operation; they return a checksum of what they read
/// so that the contenders' results can be compared (and so that nothing is optimised away).
public protocol BenchSession: AnyObject {
    /// Workload 1: insert the items in one transaction / one save.
    func insert(_ items: [ItemData]) throws
    /// Workload 2: every item as a fully built object, every attribute read.
    func fetchAll() throws -> Int64
    /// Workload 3: every item, loaded in batches of `batchSize`, every attribute read.
    func fetchBatched(batchSize: Int) throws -> Int64
    /// Turns item codes into whatever the contender looks objects up by (not timed).
    func prepare(codes: [Int64]) throws
    /// Workload 4: load the prepared items, change two attributes, save.
    func update() throws -> Int64
    /// Workload 5: look the prepared items up one by one and read them.
    func lookup() throws -> Int64
    /// Workload 6: `quantity < threshold` sorted by name, fully built, every attribute read.
    func predicateFetch(threshold: Int64) throws -> Int64
    /// Workload 7a: insert the object graph and save.
    func insertGraph(_ graph: GraphData) throws
    /// Workload 7b: every book with its authors loaded (prefetched).
    func fetchGraph() throws -> Int64
}

/// The column names, in table order.
public enum ContenderName {
    public static let raw = "raw SQLite"
    public static let grdbStatement = "GRDB Statement"
    public static let grdbRecord = "GRDB Record"
    public static let coreStack = "CoreStack"
}

/// The contenders in table order.
public func allContenders() throws -> [any Contender] {
    let all: [any Contender] = [RawContender(), GRDBStatementContender(), GRDBRecordContender(), try CoreStackContender()]
    guard let list = ProcessInfo.processInfo.environment[contendersVariable] else { return all }
    let wanted = Set(list.split(separator: ",").map { ContenderName.short($0.trimmingCharacters(in: .whitespaces)) })
    return all.filter { wanted.contains(ContenderName.short($0.name)) }
}

/// The environment variable `--contenders` sets (so that workload 3's child processes see it too).
public let contendersVariable = "CORESTACK_BENCH_CONTENDERS"

extension ContenderName {
    /// The short name `--contenders` takes: "raw", "grdb-statement", "grdb-record", "corestack".
    public static func short(_ name: String) -> String {
        switch name {
        case raw: "raw"
        default: name.lowercased().replacingOccurrences(of: " ", with: "-")
        }
    }

    /// Every contender's short name, in table order.
    public static let shortNames = [raw, grdbStatement, grdbRecord, coreStack].map(short)
}

/// The SQL schema shared by raw SQLite and GRDB.
enum PlainSchema {
    static let statements = [
        "PRAGMA journal_mode = WAL",
        """
        CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, category TEXT NOT NULL,
            quantity INTEGER NOT NULL, price REAL NOT NULL, created REAL NOT NULL)
        """,
        "CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT NOT NULL)",
        "CREATE TABLE book (id INTEGER PRIMARY KEY, title TEXT NOT NULL, pages INTEGER NOT NULL)",
        """
        CREATE TABLE bookAuthor (bookId INTEGER NOT NULL REFERENCES book(id), authorId INTEGER NOT NULL REFERENCES author(id),
            PRIMARY KEY (bookId, authorId)) WITHOUT ROWID
        """,
        "CREATE INDEX bookAuthor_author ON bookAuthor (authorId)",
        """
        CREATE TABLE chapter (id INTEGER PRIMARY KEY, bookId INTEGER NOT NULL REFERENCES book(id),
            position INTEGER NOT NULL, title TEXT NOT NULL, number INTEGER NOT NULL)
        """,
        "CREATE INDEX chapter_book ON chapter (bookId, position)",
    ]

    static func create(at url: URL) throws {
        let db = try RawConnection(path: url.path)
        for sql in statements { try db.execute(sql) }
    }

    static let itemColumns = "id, name, category, quantity, price, created"
}
