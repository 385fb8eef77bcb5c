import ArgumentParser
import CoreStack
import Foundation
import StackScope

/// Prints a command's output, or its error as one line on stderr and exits with status 1.
func report(_ body: () throws -> String) throws {
    do {
        FileHandle.standardOutput.write(Data(try body().utf8))
    } catch {
        FileHandle.standardError.write(Data("stackscope: error: \(StackScopeErrorMessage.line(for: error))\n".utf8))
        throw ExitCode.failure
    }
}

/// Standard output in 64 KiB writes.
final class BufferedOutput {
    private var buffer = Data()

    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    func flush() {
        guard !buffer.isEmpty else { return }
        FileHandle.standardOutput.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}

struct StackScopeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stackscope",
        abstract: "Explore CoreStack and Core Data SQLite stores in a terminal browser.",
        discussion: """
            With no store, opens the demo library in the cache folder (created on first run).
            Press ? in the browser for its keys.
            """,
        version: CoreStackVersion.string,
        subcommands: [Browse.self, Info.self, Dump.self, Value.self, Stats.self, History.self, Model.self, Diff.self, Find.self, Migrate.self, Demo.self],
        defaultSubcommand: Browse.self
    )
}

struct BrowseOptions: ParsableArguments {
    @Argument(help: "The store file (.sqlite), or a folder: its stores are listed in a picker, Enter opens one (q in the browser comes back). Default: the demo library in the cache folder.")
    var store: String?

    @Option(help: "The model: a .xcdatamodeld bundle or .momd folder (the version matching the store is used), or a single .xcdatamodel or .mom (default: the demo model for demo stores, else the model stored in the store).")
    var model: String?

    @Flag(help: "Open the store with no possibility of writing.")
    var readOnly = false

    @Flag(help: "Do not capture the mouse (the terminal's own text selection works).")
    var noMouse = false

    @Option(help: graphicsHelp)
    var graphics: TerminalGraphics?

    /// Opens the session (errors print one line, the terminal untouched) and runs the browser.
    func launch() throws {
        func requireTerminal() throws {
            guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
                FileHandle.standardError.write(Data("stackscope: error: \(BrowserError.notATerminal)\n".utf8))
                throw ExitCode.failure
            }
        }
        func fail(_ error: any Error) -> ExitCode {
            FileHandle.standardError.write(Data("stackscope: error: \(StackScopeErrorMessage.line(for: error))\n".utf8))
            return ExitCode.failure
        }
        let storePath = store
        // A folder: on a terminal the picker lists its stores (found off the main queue) and opens
        // the one chosen; without one, the list and an error.
        var isDirectory: ObjCBool = false
        if let folder = store, FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue {
            guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw listStores(in: folder, fail: fail) }
            BrowserRunner.runPicker(folders: [folder], modelPath: model, readOnly: readOnly, mouse: !noMouse)
        }
        // The demo store is made on first run: not without a terminal to show it in.
        if storePath == nil { try requireTerminal() }
        let session: BrowserSession
        do {
            if let storePath {
                session = try BrowserSession.open(storePath: storePath, modelPath: model, readOnly: readOnly)
            } else {
                if model != nil { throw ValidationError("--model needs a store: stackscope STORE --model MODEL") }
                session = try BrowserSession.demo { line in
                    FileHandle.standardError.write(Data("stackscope: \(line)\n".utf8))
                }
            }
        } catch let error as ValidationError {
            throw error
        } catch {
            throw fail(error)
        }
        do {
            try requireTerminal()
        } catch {
            session.close()
            throw error
        }
        BrowserRunner.run(
            session: session, mouse: !noMouse,
            pictures: PictureStyle.detect(environment: ProcessInfo.processInfo.environment, graphics: graphics))
    }

    /// Without a terminal, `stackscope DIR`: the stores under `folder` listed on standard error,
    /// and the error that asks to name one (or that there is none).
    private func listStores(in folder: String, fail: (any Error) -> ExitCode) -> ExitCode {
        let search: StoreSearch
        do {
            search = try StoreFinder().search([folder])
        } catch {
            return fail(error)
        }
        guard !search.stores.isEmpty else { return fail(StackScopeError.noStoreInFolder(path: folder)) }
        FileHandle.standardError.write(Data(StorePicker.menu(search).utf8))
        return fail(StackScopeError.folderNeedsChoice(path: folder))
    }
}

extension StackScopeCommand {
    struct Browse: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Open a store in the terminal browser (the default command).")

        @OptionGroup var options: BrowseOptions

        func run() throws {
            try options.launch()
        }
    }
}

struct StoreOptions: ParsableArguments {
    @Argument(help: "The store file (.sqlite).")
    var store: String

    @Option(help: "The model: a .xcdatamodeld bundle or .momd folder (the version matching the store is used), or a single .xcdatamodel or .mom (default: the demo model for demo stores, else the model stored in the store).")
    var model: String?
}

extension StackScopeCommand {
    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a store's UUID, versions and entities with their object counts.")

        @OptionGroup var options: StoreOptions

        @Flag(help: "Also list each entity's attributes (with their types) and relationships (destination, to-one / to-many / ordered / many-to-many, inverse, delete rule).")
        var schema = false

        @Flag(help: "Print JSON.")
        var json = false

        func run() throws {
            try report {
                let info = try InfoCommand.info(storePath: options.store, modelPath: options.model)
                printWarnings(info.warnings)
                return (json ? InfoCommand.renderJSON(info, schema: schema) : InfoCommand.renderText(info, schema: schema)) + "\n"
            }
        }
    }

    struct Dump: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the objects of an entity with their attributes and relationships.")

        @OptionGroup var options: StoreOptions

        @Option(help: "The entity to list (objects of sub-entities included).")
        var entity: String

        @Option(
            parsing: .unconditionalSingleValue,
            help: "Attributes to sort by, comma-separated or repeated: KEY, -KEY or KEY:desc for descending; KEY may be a path through to-one relationships, e.g. author.name (default: primary key).")
        var sort: [String] = []

        // Parsed unconditionally, so `--limit -1` reaches validate() as a number and gets a message
        // of its own instead of "Missing value" (argument-parser would take -1 for an option).
        @Option(parsing: .unconditional, help: "List at most this many objects (1 or more).")
        var limit: Int?

        @Option(parsing: .unconditional, help: "Skip this many objects first (0 or more).")
        var offset: Int?

        @Option(help: "Only objects matching a predicate in Core Data's format language, e.g. 'title BEGINSWITH[cd] \"the\"'.")
        var predicate: String?

        @Flag(help: "Print JSON.")
        var json = false

        func validate() throws {
            if let limit, limit < 1 { throw ValidationError("--limit must be 1 or more, not \(limit)") }
            if let offset, offset < 0 { throw ValidationError("--offset must be 0 or more, not \(offset)") }
        }

        func run() throws {
            // Written as the store reads: a whole entity never sits in memory as text.
            let output = BufferedOutput()
            try report {
                let filter = try predicate.map { try CoreStack.Predicate(format: $0) }
                let keys = try sort.flatMap { try DumpSort.parse($0) }
                let query = DumpQuery(entityName: entity, sort: keys, limit: limit, offset: offset, predicate: filter)
                try DumpCommand.write(storePath: options.store, modelPath: options.model, query: query, json: json) {
                    output.write($0)
                }
                output.flush()
                return ""
            }
        }
    }

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a column's figures: objects, nil, distinct values, range, mean, the most common values and a histogram.")

        @OptionGroup var options: StoreOptions

        @Option(help: "The entity (objects of sub-entities included).")
        var entity: String

        @Option(help: "An attribute, or a relationship (to-one: objects per destination; to-many: linked objects per object).")
        var property: String

        @Option(help: "Only objects matching a predicate in Core Data's format language.")
        var predicate: String?

        @Option(help: "How many of the most common values to show.")
        var top = 10

        @Option(help: "How many bins the histogram of a number or date has.")
        var bins = 10

        @Flag(help: "Print JSON.")
        var json = false

        func validate() throws {
            if top < 0 { throw ValidationError("--top must be 0 or more, not \(top)") }
            if bins < 0 || bins > 1_000 { throw ValidationError("--bins must be 0 to 1000, not \(bins)") }
        }

        func run() throws {
            try report {
                let filter = try predicate.map { try CoreStack.Predicate(format: $0) }
                return try StatsCommand.run(
                    storePath: options.store, modelPath: options.model, entity: entity, property: property,
                    predicate: filter, top: top, bins: bins, json: json)
            }
        }
    }

    struct Value: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print one Binary, Transformable or String value decoded (keyed archive, property list, JSON, text, compressed data, image header), an image as a picture, or its stored bytes.")

        @OptionGroup var options: StoreOptions

        @Option(help: "The object's entity.")
        var entity: String

        @Option(help: "The object: its primary key (12 or p12) or its object ID URI (x-coredata://STORE-UUID/ENTITY/p12).")
        var id: String

        @Option(help: "The attribute.")
        var attribute: String

        @Option(name: .customLong("as"), help: "tree (the default: the summary, then the decoded tree), text, hex (offsets, bytes, characters), json, or image (the picture of a PNG, JPEG, GIF, WebP, HEIC, AVIF or TIFF value, fitted to the terminal; when standard output is not a terminal, \(ValueCommand.defaultPictureColumns) columns of symbols in the colours TERM, COLORTERM and NO_COLOR say, unless --width or --graphics say otherwise).")
        var mode: String = "tree"

        @Option(help: "--as image: the picture's width in columns (default: the terminal's).")
        var width: Int?

        @Option(help: "--as image: the picture's height in rows at most (default: the terminal's, less a line).")
        var height: Int?

        @Option(help: graphicsHelp)
        var graphics: TerminalGraphics?

        @Flag(help: "Write the stored bytes to standard output, as they are (for piping).")
        var raw = false

        func validate() throws {
            guard ValueOutputMode(rawValue: mode) != nil else {
                throw ValidationError("--as must be one of \(ValueOutputMode.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(mode)\"")
            }
            if let n = width ?? height, n < 1 { throw ValidationError("--width and --height must be at least 1") }
        }

        func run() throws {
            let mode = ValueOutputMode(rawValue: mode) ?? .tree
            // Streamed: a 100 MB value goes out in chunks, never whole in memory.
            try report {
                if !raw, mode == .image {
                    // A picture needs the whole image (PictureDecoder caps the pixels it decodes).
                    let bytes = try ValueCommand.bytes(
                        storePath: options.store, modelPath: options.model, entity: entity, id: id, attribute: attribute)
                    return try picture(bytes)
                }
                try ValueCommand.write(
                    storePath: options.store, modelPath: options.model, entity: entity, id: id, attribute: attribute, mode: mode, raw: raw
                ) { FileHandle.standardOutput.write($0) }
                return ""
            }
        }

        /// `--as image`: fitted to the terminal, or as the options say; sixel and kitty only on a
        /// terminal or when --graphics asks.
        private func picture(_ bytes: Data) throws -> String {
            let environment = ProcessInfo.processInfo.environment
            let terminal = isatty(STDOUT_FILENO) == 1 ? ValueCommand.terminalSize() : nil
            var style = PictureStyle.detect(environment: environment, graphics: graphics)
            if terminal == nil, graphics == nil, style.graphics != .symbols { style.graphics = .symbols }
            let area = ValueCommand.pictureArea(width: width, height: height, terminal: terminal)
            return try ValueCommand.picture(bytes, style: style, columns: area.columns, rows: area.rows)
        }
    }

    struct Migrate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Migrate a store to the current version of a model (lightweight: added, removed, renamed properties and entities).")

        @Argument(help: "The store file (.sqlite).")
        var store: String

        @Option(help: "The model: a .xcdatamodeld bundle or .momd folder (its current version is the destination).")
        var model: String

        @Flag(help: "Show the plan without changing the store.")
        var dryRun = false

        func run() throws {
            try report { try MigrateCommand.run(storePath: store, modelPath: model, dryRun: dryRun) }
        }
    }

    struct Demo: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Demo data.", subcommands: [Create.self])

        struct Create: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Write the demo library store (deterministic: the same size gives the same content).")

            @Argument(help: "Where to write the store (it must not exist unless --force).")
            var path: String

            @Option(help: "About how many objects to create.")
            var size: Int = 300

            @Flag(help: "Replace the file if it exists.")
            var force = false

            func run() throws {
                // Progress goes to standard error: an updating line on a terminal, plain lines otherwise.
                let printer = DemoProgressPrinter(isTerminal: isatty(STDERR_FILENO) == 1) { text in
                    FileHandle.standardError.write(Data(text.utf8))
                }
                try report { try DemoCommand.create(path: path, size: size, force: force, progress: printer.show) }
            }
        }
    }
}

extension ModelFormat: ExpressibleByArgument {}

extension StackScopeCommand {
    struct Model: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Draw a store's model (Graphviz DOT, Mermaid), list it as JSON, or write it as an .xcdatamodeld bundle.",
            discussion: """
                The model is the one given with --model, else the one the store carries (Z_MODELCACHE), else one \
                inferred from its tables, as for info. DOT and Mermaid go to standard output unless -o is given; \
                the bundle goes to -o PATH (a .xcdatamodeld path, or a folder to put STORE.xcdatamodeld in), \
                else to STORE.xcdatamodeld in the current folder. An existing bundle is never replaced.
                """)

        @OptionGroup var options: StoreOptions

        @Option(help: "What to produce: \(ModelFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
        var format: ModelFormat

        @Option(name: [.short, .customLong("output")], help: "Write to this path instead of standard output (for xcdatamodeld: the bundle's path).")
        var output: String?

        func run() throws {
            try report {
                let result = try ModelCommand.run(
                    storePath: options.store, modelPath: options.model, format: format, outputPath: output)
                printWarnings(result.warnings)
                return result.output
            }
        }
    }
}

extension StackScopeCommand {
    struct Diff: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show what changed between two copies of a store: objects inserted, deleted and changed, per entity.",
            discussion: """
                Objects are matched by primary key when both files are the same store (the same store UUID), \
                else by --key Entity=attribute (or Entity=a,b), a single-attribute uniqueness constraint, a UUID attribute \
                or a compound uniqueness constraint; \
                an entity with none of these is listed as not compared. Both stores are opened read-only. \
                The exit status is 0 whether or not the stores differ (1 on an error); with --json, \
                read "hasChanges". On a terminal (standard input and output), without --json or --text, \
                the diff view opens: the entities with their counts of changes, the changed objects, and \
                the selected object's old and new values side by side; piped, the text report is printed.
                """)

        @Argument(help: "The store before (.sqlite).")
        var old: String

        @Argument(help: "The store after (.sqlite).")
        var new: String

        @Option(help: "The model for both stores: a .xcdatamodeld bundle or .momd folder (each store's version is used), or a single .xcdatamodel or .mom (default: the model each store carries).")
        var model: String?

        @Option(name: .customLong("key"), help: "Match ENTITY's objects by ATTRIBUTE when the stores differ (Entity=attribute, or Entity=a,b for a compound key; repeatable).")
        var keys: [String] = []

        @Option(name: .customLong("entity"), help: "Compare only this entity (repeatable).")
        var entities: [String] = []

        @Option(help: "Objects of each kind listed per entity in the text report (the counts are always exact).")
        var limit: Int = 20

        @Flag(help: "Print the whole report as JSON (every object, no limit).")
        var json = false

        @Flag(help: "Print the text report even on a terminal (where the diff view opens otherwise).")
        var text = false

        @Flag(name: .customLong("no-mouse"), help: "In the diff view, leave the mouse to the terminal (text selection).")
        var noMouse = false

        func run() throws {
            // On a terminal, with neither --json nor --text: the diff view.
            if !json, !text, isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 {
                var stores: DiffStores?
                try report {
                    stores = try DiffStores.open(
                        oldPath: old, newPath: new, modelPath: model, keys: keys, entities: entities,
                        changeLimit: DiffViewProgram.listLimit)
                    return ""
                }
                if let stores {
                    printWarnings(stores.warnings)
                    BrowserRunner.runDiff(oldPath: old, newPath: new, stores: stores, mouse: !noMouse)
                }
            }
            try report {
                let result = try DiffCommand.run(
                    oldPath: old, newPath: new, modelPath: model, keys: keys, entities: entities, limit: limit, json: json)
                printWarnings(result.warnings)
                return result.output
            }
        }
    }
}

extension StackScopeCommand {
    struct Find: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Find Core Data and SwiftData stores under folders (read-only).",
            discussion: """
                A file is a store when it is an SQLite database with Core Data's Z_PRIMARYKEY and Z_METADATA \
                tables, whatever its name. Each store is listed with its size, last change, framework version, \
                where its model comes from (stored in the store, or inferred from its tables), entity and object \
                counts, persistent history, and the size of a -wal file beside it. Folders that cannot be read are \
                skipped and counted; links are followed, each folder searched once. With no folder: on macOS the \
                simulators' devices and ~/Library application data, elsewhere the current folder.
                """)

        @Argument(help: "Folders to search (default: see above).")
        var folders: [String] = []

        @Flag(help: "Print JSON.")
        var json = false

        func run() throws {
            try report {
                let fm = FileManager.default
                let roots = folders.isEmpty
                    ? StoreFinder.defaultFolders(home: fm.homeDirectoryForCurrentUser.path, currentDirectory: ".")
                    : folders
                let search = try StoreFinder().search(roots)
                return json ? FindCommand.renderJSON(search) : FindCommand.renderText(search)
            }
        }
    }
}

StackScopeCommand.main()

extension StackScopeCommand {
    struct History: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a store's persistent history: transactions (author, context, process) and their changes.")

        @OptionGroup var options: StoreOptions

        // Parsed unconditionally, so a value starting with '-' (`--after -3`) reaches the token
        // check and its message instead of argument-parser's "Missing value".
        @Option(parsing: .unconditional, help: "Only transactions after this token (STORE-UUID:NUMBER as printed, or a transaction number).")
        var after: String?

        @Option(help: "Only transactions with this author.")
        var author: String?

        @Flag(help: "Print JSON.")
        var json = false

        func run() throws {
            try report {
                try HistoryCommand.run(storePath: options.store, modelPath: options.model, after: after, author: author, json: json)
            }
        }
    }
}

/// Writes each of a command's warnings to standard error as `stackscope: warning: …`.
func printWarnings(_ warnings: [String]) {
    for warning in warnings {
        FileHandle.standardError.write(Data("stackscope: warning: \(warning)\n".utf8))
    }
}
