import CoreStack
import Foundation

/// The browser's loop: every action enters through ``dispatch(_:)-(Action)`` on the main queue, goes
/// through ``App/update(_:_:)``, the commands it returns run here (their results come back as
/// actions), and once the queue has drained the state is rendered once into the backend.
///
/// ```swift
/// let backend = HeadlessBackend(size: Size(width: 120, height: 36))
/// let program = BrowserProgram(session: session, backend: backend)
/// DispatchQueue.main.async { program.start() }
/// ```
public final class BrowserProgram {
    /// The state as the last update left it (read-only outside the program).
    public private(set) var state: AppState
    /// The store and stack the program reads and edits through.
    public let session: BrowserSession
    let backend: any TerminalBackend
    var data: BrowserData!
    /// The scratch contexts opened for editing.
    var scratch: ScratchContexts
    /// The context in use: "main" or a scratch context's name.
    var currentContextName = "main"
    /// Bumped when the user cancels long work: jobs started before it drop their results.
    var workEpoch = 0
    /// How many rows a search looks at per turn of the main queue (between them keys are read).
    public var searchStepRows = 4_096
    /// Called on the background queue just before a table fetch's query runs (tests hold it
    /// there to press keys while it runs, as on a store where the query takes seconds).
    public var tableFetchWillRun: (@Sendable () -> Void)?
    /// The context whose save last met a merge conflict (the conflict report's choices refresh it).
    var conflictContext: ManagedObjectContext?
    private var queue: [Action] = []
    /// Actions the commands of the action being handled produced: they go before the keys still
    /// queued, so a key typed right after `e` reaches the editor `e` opened.
    private var produced: [Action] = []
    private var processing = false
    private var dirty = true
    private var saveObserver: (any NSObjectProtocol)?
    /// Other processes' commits to the store file (renewed when the store is replaced).
    var remoteObservation: RemoteChangeObservation?
    var ticker: (any DispatchSourceTimer)?
    /// Jobs scheduled on the main queue and not finished (for ``isIdle``).
    private var pendingJobs = 0
    /// The table fetch whose query is running off the main queue (Esc cancels it).
    private var tableFetch: BrowserData.TableFetch?
    /// The column statistics running off the main queue (Esc cancels them).
    var statsCancellation: FetchCancellation?
    let clock: @Sendable () -> Date
    /// Writes text to the terminal's clipboard (OSC 52 by default).
    public var copyHandler: (String) -> Void = { text in
        let b64 = Data(text.utf8).base64EncodedString()
        FileHandle.standardOutput.write(Data("\u{1B}]52;c;\(b64)\u{07}".utf8))
    }
    /// Asked to suspend the process (Ctrl-Z); the terminal backend does it.
    public var suspendHandler: () -> Void = {}
    /// Called once when the app quits, after ``shutDown()`` saved the session and closed its stores.
    public var quitHandler: () -> Void = {}
    /// What ``shutDown()`` did: nil before it ran, then the save error's line or nil.
    var shutDownOutcome: String??
    /// The last text copied (for tests).
    public private(set) var lastCopied: String?
    /// How many frames were rendered.
    public private(set) var frames = 0

    /// Creates a program over `session` that draws into `backend`; `clock` gives the time (for row marks and the saves log).
    /// Nothing is read or drawn until ``start(openEntity:)``.
    public init(session: BrowserSession, backend: any TerminalBackend, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.session = session
        self.backend = backend
        self.clock = clock
        var s = AppState(store: StoreSummary(
            path: session.storeURL?.path ?? "(in memory)", modelVersion: session.modelVersion, readOnly: session.readOnly,
            contextName: session.mainContext.name ?? "main"))
        if session.readOnly {
            // Why, without the note's "opened read-only: " (the refusals start with "Read-only: ").
            s.store.readOnlyReason = session.notes.first { $0.hasPrefix("opened read-only: ") }.map { String($0.dropFirst("opened read-only: ".count)) }
                ?? "opened with --read-only"
        }
        s.size = backend.size
        s.now = clock()
        s.status.message = "? help · Tab next pane · Enter open · f filter · q quit"
        state = s
        scratch = ScratchContexts(session: session)
        data = BrowserData(session: session) { [weak self] action in self?.dispatch(action) }
    }

    deinit {
        if let saveObserver { NotificationCenter.default.removeObserver(saveObserver) }
        ticker?.cancel()
    }

    /// Loads the entity tree and counts, opens the first entity, starts watching saves, and draws
    /// the first screen. Call on the main queue.
    public func start(openEntity: String? = nil) {
        observeSaves()
        observeRemoteChanges()
        let mailbox = MainMailbox(self)
        session.logSink.attach { message in mailbox.post(.message(message, .error)) }
        loadAndOpen(openEntity)
        if !session.notes.isEmpty {
            // Each note also whole in the saves pane (Enter expands it): the status bar cuts long ones.
            for note in session.notes {
                dispatch(.saveLogged(SaveLogEntry(
                    date: clock(), contextName: "store (opened)", origin: .event, inserted: [], updated: [], deleted: [], note: note)))
            }
            dispatch(.message(session.notes.joined(separator: "; "), .warning))
        }
        flush()
    }

    /// Loads the entity tree and counts and opens an entity's table (the first with objects when
    /// none is named): at start, and again after the store was reset.
    func loadAndOpen(_ openEntity: String?) {
        do {
            let (nodes, counts) = try data.loadEntities()
            dispatch(.entitiesLoaded(nodes, counts: counts))
            if nodes.contains(where: { $0.kind == .otherTable }) { dispatch(.otherTablesCounted(data.otherTableCounts())) }
            let first = openEntity ?? nodes.first(where: { !$0.isAbstract && (counts[$0.name] ?? 0) > 0 })?.name ?? nodes.first?.name
            if let first {
                if let i = state.entities.visible.firstIndex(where: { $0.name == first }) {
                    var s = state
                    s.entities.scroll.selection = i
                    state = s
                }
                dispatch(.commandLine("entity \(first)"))
                var s = state
                s.focus = .table
                state = s
            }
        } catch {
            dispatch(.message(StackScopeErrorMessage.line(for: error), .error))
        }
    }

    /// The state is settled: no actions queued, no jobs scheduled.
    public var isIdle: Bool { queue.isEmpty && !processing && pendingJobs == 0 }

    /// Feeds an action in; renders once the queue has drained. Call on the main queue.
    public func dispatch(_ action: Action) {
        dispatch([action])
    }

    /// Feeds several actions in (keys read in one go) and renders once after the last.
    public func dispatch(_ actions: [Action]) {
        if processing {
            produced.append(contentsOf: actions)
            return
        }
        queue.append(contentsOf: actions)
        processing = true
        while !queue.isEmpty {
            let a = queue.removeFirst()
            let commands = App.update(&state, a)
            dirty = true
            for c in commands { run(c) }
            if !produced.isEmpty {
                queue.insert(contentsOf: produced, at: 0)
                produced.removeAll()
            }
            // After each action, not only after the batch: a q read with the edit before it must
            // see that edit's pending changes.
            notePendingChanges()
        }
        processing = false
        flush()
    }

    /// Keeps the status bar's pending counts and the contexts' list in step with the contexts.
    private func notePendingChanges() {
        let p = PendingChanges(of: data.context)
        if p != state.pendingChanges {
            _ = App.update(&state, .pendingChanged(p))
            dirty = true
        }
        let infos = contextInfos()
        if infos != state.contexts || state.currentContext != currentContextName {
            _ = App.update(&state, .contextsChanged(infos, current: currentContextName))
            dirty = true
        }
    }

    /// Repaints everything (after a resume or Ctrl-L).
    public func redraw() {
        backend.invalidate()
        dirty = true
        flush()
    }

    /// Draws the state if it changed since the last frame.
    public func flush() {
        // Once shut down the screen may belong to another program (the store picker).
        guard dirty, !processing, shutDownOutcome == nil else { return }
        dirty = false
        frames += 1
        backend.draw(App.render(state))
    }

    /// Schedules work on the main queue after the current frame is drawn (so a spinner shows first).
    func later(_ work: @escaping () -> Void) {
        pendingJobs += 1
        flush()
        let job = MainQueueJob { [self] in
            pendingJobs -= 1
            work()
        }
        DispatchQueue.main.async { job.run() }
    }

    func run(_ command: Command) {
        switch command {
        case let .openTable(source, sort, sectioned, filter, keep):
            let epoch = workEpoch
            later { [self] in
                // Cancelled (Esc) before it started: the table stays as it was.
                guard epoch == workEpoch else { return }
                do {
                    startTableFetch(try data.beginTable(source, sort: sort, sectioned: sectioned, filter: filter, keepSelection: keep), epoch: epoch)
                } catch {
                    dispatch(.tableFailed(source: source, message: (filter.map { "Filter “\($0)”: " } ?? "") + StackScopeErrorMessage.line(for: error)))
                }
            }
        case let .loadWindow(generation, range):
            let rows = data.rows(range)
            produced.append(.windowLoaded(generation: generation, range: range, rows: rows, changed: data.changedColumns(rows)))
        case let .loadDetail(id):
            data.selectedID = id
            guard let id else {
                produced.append(.detailLoaded(nil, error: nil))
                return
            }
            do {
                produced.append(.detailLoaded(try data.detail(for: id), error: nil))
            } catch {
                produced.append(.detailLoaded(nil, error: StackScopeErrorMessage.line(for: error)))
            }
        case let .inspectValue(id, key, title):
            do {
                produced.append(.showModal(.valueInspector(try data.inspectedValue(for: id, key: key, title: title))))
            } catch {
                produced.append(.message("\(title): " + StackScopeErrorMessage.line(for: error), .error))
            }
        case let .plainTable(request):
            produced.append(contentsOf: plainTableActions(request))
        case let .search(term, from, forward):
            searchStep(term, from: from, forward: forward, scanned: 0, epoch: workEpoch)
        case .refresh:
            later { [self] in
                if let change = session.storeFileChange() {
                    dispatch(.saveLogged(SaveLogEntry(date: clock(), contextName: "store (re-read)", origin: .refresh, inserted: [], updated: [], deleted: [], note: "refresh: " + change)))
                    dispatch(.message(change.prefix(1).uppercased() + change.dropFirst(), .warning))
                    return
                }
                do {
                    let diff = try data.refresh()
                    reloadDetail()  // the object shown may have changed in the store
                    dispatch(.countsChanged(data.counts, at: clock()))
                    let note = diff.isEmpty
                        // Only counts are compared: values may have changed, and were read again.
                        ? "refresh: object counts unchanged; values read again"
                        : "refresh: " + diff.keys.sorted().map { k in
                            let (a, b) = diff[k] ?? (0, 0)
                            return "\(k) \(a) → \(b) (\(b >= a ? "+" : "")\(b - a))"
                        }.joined(separator: ", ")
                    dispatch(.saveLogged(SaveLogEntry(date: clock(), contextName: "store (re-read)", origin: .refresh, inserted: [], updated: [], deleted: [], note: note)))
                    dispatch(.message(diff.isEmpty ? "Re-read the store: object counts unchanged, values read again" : "Re-read the store: " + note.dropFirst(9), .info))
                } catch {
                    dispatch(.message("Refresh failed: " + StackScopeErrorMessage.line(for: error), .error))
                }
            }
        case let .export(format, path):
            later { [self] in
                do {
                    let n = try data.export(format: format, to: path)
                    dispatch(.message("Wrote \(n) rows to \(path)", .info))
                } catch {
                    dispatch(.message(StackScopeErrorMessage.line(for: error), .error))
                }
            }
        case let .saveValue(id, key, path):
            later { [self] in
                do {
                    let url = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
                    let count = try data.writeValue(of: id, key: key, to: url)
                    dispatch(.message("Wrote \(key)'s \(count) bytes to \(url.path)", .info))
                } catch {
                    dispatch(.message(StackScopeErrorMessage.line(for: error), .error))
                }
            }
        case let .copy(text):
            lastCopied = text
            copyHandler(text)
        case .startTicking:
            startTicking()
        case let .saveAll(thenQuit):
            later { [self] in
                do {
                    try session.saveAll()
                    if thenQuit { dispatch(.quitNow) } else { dispatch(.message("Saved", .info)) }
                } catch {
                    dispatch(.message("Save failed: " + StackScopeErrorMessage.line(for: error), .error))
                }
            }
        case .suspend:
            suspendHandler()
            backend.invalidate()
            dirty = true
        case .redraw:
            backend.invalidate()
            dirty = true
        case .quit:
            shutDown()
            quitHandler()
        case let .edit(edit):
            runEdit(edit)
        case .cancelWork:
            workEpoch += 1
            tableFetch?.fetch.cancel()
            tableFetch = nil
            statsCancellation?.cancel()
            statsCancellation = nil
        case let .mergeRemote(change):
            mergeRemote(change)
        }
    }

    /// Runs a table fetch's SQL query on a background queue (keys, Esc among them, are read
    /// meanwhile), then applies it on the main queue unless it was cancelled or superseded; the
    /// table shown stays until then. Counted in ``isIdle``.
    private func startTableFetch(_ t: BrowserData.TableFetch, epoch: Int) {
        tableFetch?.fetch.cancel()  // a newer table wins
        tableFetch = t
        pendingJobs += 1
        let fetch = t.fetch
        let box = TableFetchResultBox()
        let willRun = tableFetchWillRun
        let finish = MainQueueJob { [self] in
            pendingJobs -= 1
            let current = tableFetch?.fetch === fetch
            if current { tableFetch = nil }
            // Cancelled (Esc) or superseded by a newer table: the table shown stays.
            guard current, epoch == workEpoch, let result = box.result else {
                flush()
                return
            }
            do {
                dispatch(.tableOpened(try data.finishTable(t, result: result.get())))
            } catch is CancellationError {
                flush()
            } catch {
                dispatch(.tableFailed(source: t.source, message: (t.filter.map { "Filter “\($0)”: " } ?? "") + StackScopeErrorMessage.line(for: error)))
            }
        }
        DispatchQueue.global(qos: .userInitiated).async {
            willRun?()
            box.result = Result { try fetch.run() }
            DispatchQueue.main.async { finish.run() }
        }
    }

    /// Searches a few thousand rows per turn of the main queue, so keys (Esc) are read between
    /// steps and the status bar shows how far it got.
    private func searchStep(_ term: String, from: Int, forward: Bool, scanned: Int, epoch: Int) {
        later { [self] in
            guard epoch == workEpoch else { return }
            switch data.searchStep(term, from: from, forward: forward, scanned: scanned, budget: searchStepRows) {
            case let .found(i): dispatch(.searchFound(index: i, term: term))
            case .notFound: dispatch(.searchFound(index: nil, term: term))
            case let .more(next, scannedNow):
                dispatch(.progress("Searching “\(term)”: \(scannedNow.formatted()) of \(data.rowCount.formatted()) rows"))
                searchStep(term, from: next, forward: forward, scanned: scannedNow, epoch: epoch)
            }
        }
    }

    private func startTicking() {
        guard ticker == nil else { return }
        let t = DispatchSource.makeTimerSource(queue: .main)
        t.schedule(deadline: .now() + 0.1, repeating: 0.1)
        let job = MainQueueJob { [weak self] in
            guard let self else { return }
            dispatch(.tick(clock()))
            if state.busy == nil && state.table.marks.isEmpty && state.entities.changedAt.isEmpty {
                ticker?.cancel()
                ticker = nil
            }
        }
        t.setEventHandler { job.run() }
        ticker = t
        t.resume()
    }

    /// Other processes' commits (and other coordinators' in this process) as the coordinator
    /// notices them.
    func observeRemoteChanges() {
        let mailbox = MainMailbox(self)
        remoteObservation = session.coordinator.addRemoteChangeObserver(queue: .main) { change in
            mailbox.post(.remoteChanged(change))
        }
    }

    /// Brings the stack up to date with another process's commit: the transactions merged into the
    /// root and main contexts (tables, counts and the detail follow), or without history (a store
    /// that keeps none, a write by a tool that adds none) a re-read; a replaced file gets `R`'s message.
    private func mergeRemote(_ change: RemoteStoreChange) {
        // A write that kept no history (sqlite3, a script), or a file another process put at the
        // path: the same re-read as `R`, which says so for a replaced file.
        guard change.kind == .commit, !change.transactions.isEmpty else {
            run(.refresh)
            return
        }
        for t in change.transactions {
            scratch.mergeIntoStackAndChildren(t.objectIDs)
        }
        // Objects the main context never read (a cascade, a batch delete) pass its monitors by.
        data.recount()
    }

    /// Every did-save in the process on this store, from any context (root, main, children, batch
    /// contexts on other coordinators), becomes a line of the saves pane.
    private func observeSaves() {
        let coordinator = ObjectIdentifier(session.coordinator)
        let url = session.storeURL?.standardizedFileURL
        let clock = clock
        let mailbox = MainMailbox(self)
        saveObserver = NotificationCenter.default.addObserver(forName: .managedObjectContextDidSave, object: nil, queue: nil) { note in
            guard let context = note.object as? ManagedObjectContext else { return }
            let c = context.persistentStoreCoordinator
            let same = ObjectIdentifier(c) == coordinator
                || url != nil && (c.persistentStore as? SQLiteStore)?.url?.standardizedFileURL == url
            guard same else { return }
            func ids(_ key: String) -> [String] {
                ((note.userInfo?[key] as? Set<ManagedObjectID>) ?? []).map { $0.uriRepresentation().absoluteString }.sorted()
            }
            let entry = SaveLogEntry(
                date: clock(), contextName: context.name ?? "unnamed", inserted: ids(ContextNotificationKey.insertedObjectIDs),
                updated: ids(ContextNotificationKey.updatedObjectIDs), deleted: ids(ContextNotificationKey.deletedObjectIDs))
            mailbox.post(.saveLogged(entry))
        }
    }
}

/// Hands actions from any thread to the program on the main queue.
final class MainMailbox: @unchecked Sendable {
    private weak var program: BrowserProgram?
    init(_ program: BrowserProgram) { self.program = program }
    func post(_ action: Action) {
        DispatchQueue.main.async { [self] in program?.dispatch(action) }
    }
}

/// A table fetch's result, written by the background queue that ran the query and read on the main
/// queue after it: the `DispatchQueue.main.async` between them orders the two.
final class TableFetchResultBox: @unchecked Sendable {
    var result: Result<PreparedFetchResult, any Error>?
}

/// A closure that belongs to the main queue, carried to it by Dispatch. The browser's program and
/// data are confined to the main queue (every entry point is called there), which the compiler
/// cannot see; this box is the one place that says so.
struct MainQueueJob: @unchecked Sendable {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
