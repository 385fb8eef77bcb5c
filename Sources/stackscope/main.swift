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
        subcommands: [Browse.self, Info.self, Dump.self, Value.self, History.self, Migrate.self, Demo.self],
        defaultSubcommand: Browse.self
    )
}

struct BrowseOptions: ParsableArguments {
    @Argument(help: "The store file (.sqlite). Default: the demo library in the cache folder.")
    var store: String?

    @Option(help: "The model: a .xcdatamodeld bundle or .momd folder (the version matching the store is used), or a single .xcdatamodel or .mom (default: the demo model for demo stores, else the model stored in the store).")
    var model: String?

    @Flag(help: "Open the store with no possibility of writing.")
    var readOnly = false

    @Flag(help: "Do not capture the mouse (the terminal's own text selection works).")
    var noMouse = false

    /// Opens the session (errors print one line, the terminal untouched) and runs the browser.
    func launch() throws {
        func requireTerminal() throws {
            guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
                FileHandle.standardError.write(Data("stackscope: error: \(BrowserError.notATerminal)\n".utf8))
                throw ExitCode.failure
            }
        }
        // The demo store is made on first run: not without a terminal to show it in.
        if store == nil { try requireTerminal() }
        let session: BrowserSession
        do {
            if let store {
                session = try BrowserSession.open(storePath: store, modelPath: model, readOnly: readOnly)
            } else {
                if model != nil { throw ValidationError("--model needs a store: stackscope STORE --model MODEL") }
                session = try BrowserSession.demo { line in
                    FileHandle.standardError.write(Data("stackscope: \(line)\n".utf8))
                }
            }
        } catch let error as ValidationError {
            throw error
        } catch {
            FileHandle.standardError.write(Data("stackscope: error: \(StackScopeErrorMessage.line(for: error))\n".utf8))
            throw ExitCode.failure
        }
        do {
            try requireTerminal()
        } catch {
            session.close()
            throw error
        }
        BrowserRunner.run(session: session, mouse: !noMouse)
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
                for warning in info.warnings {
                    FileHandle.standardError.write(Data("stackscope: warning: \(warning)\n".utf8))
                }
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

    struct Value: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print one Binary, Transformable or String value decoded (keyed archive, property list, JSON, text, compressed data, image header), or its stored bytes.")

        @OptionGroup var options: StoreOptions

        @Option(help: "The object's entity.")
        var entity: String

        @Option(help: "The object: its primary key (12 or p12) or its object ID URI (x-coredata://STORE-UUID/ENTITY/p12).")
        var id: String

        @Option(help: "The attribute.")
        var attribute: String

        @Option(name: .customLong("as"), help: "tree (the default: the summary, then the decoded tree), text, hex (offsets, bytes, characters) or json.")
        var mode: String = "tree"

        @Flag(help: "Write the stored bytes to standard output, as they are (for piping).")
        var raw = false

        func validate() throws {
            guard ValueOutputMode(rawValue: mode) != nil else {
                throw ValidationError("--as must be one of \(ValueOutputMode.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(mode)\"")
            }
        }

        func run() throws {
            let mode = ValueOutputMode(rawValue: mode) ?? .tree
            var bytes = Data()
            try report {
                bytes = try ValueCommand.bytes(storePath: options.store, modelPath: options.model, entity: entity, id: id, attribute: attribute)
                return raw ? "" : try ValueCommand.render(bytes, as: mode)
            }
            if raw { FileHandle.standardOutput.write(bytes) }
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
