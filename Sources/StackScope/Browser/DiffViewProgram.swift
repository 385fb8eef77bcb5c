import CoreStack
import Foundation

/// The diff view's loop and effects: opens the two stores and runs their comparison
/// (``StoreDiff``) on a background queue while the status line says which entity it is at (Esc
/// or q stops it), then reads the selected object from both stores for the detail pane. Actions go
/// through ``DiffView/update(_:_:)``; the state is drawn once the queue has drained.
///
/// ```swift
/// let program = DiffViewProgram(oldPath: "a.sqlite", newPath: "b.sqlite", backend: backend) {
///     try DiffStores.open(oldPath: "a.sqlite", newPath: "b.sqlite", modelPath: nil, keys: [], entities: [], changeLimit: 5_000)
/// }
/// program.quitHandler = { exit(0) }
/// DispatchQueue.main.async { program.begin() }
/// ```
public final class DiffViewProgram: ScreenProgram {
    /// How many objects of each kind the view lists per entity (counts stay exact).
    public static let listLimit = 5_000

    /// The state as the last update left it.
    public private(set) var state: DiffViewState
    let backend: any TerminalBackend
    private let open: @Sendable () throws -> DiffStores
    /// The stores, once the comparison finished (the detail reads from them).
    private var stores: DiffStores?
    private let cancellation = FetchCancellation()
    private var comparing = false
    private var ticker: (any DispatchSourceTimer)?
    private var queue: [DiffView.Action] = []
    private var processing = false
    private var pendingJobs = 0
    private var finished = false
    /// Called once when the view quits, after ``shutDown()``.
    public var quitHandler: () -> Void = {}
    /// Asked to suspend the process (Ctrl-Z).
    public var suspendHandler: () -> Void = {}

    /// A view of the comparison of `oldPath` with `newPath` drawn into `backend`; `open` opens
    /// the two stores (on a background queue, after the first screen is drawn).
    public init(oldPath: String, newPath: String, backend: any TerminalBackend, open: @escaping @Sendable () throws -> DiffStores) {
        var s = DiffViewState(oldPath: oldPath, newPath: newPath)
        s.size = backend.size
        s.listLimit = Self.listLimit
        state = s
        self.backend = backend
        self.open = open
    }

    deinit { ticker?.cancel() }

    /// Draws the first screen and starts the comparison. Call on the main queue.
    public func begin() {
        flush()
        comparing = true
        pendingJobs += 1
        startTicking()
        let open = open
        let cancellation = cancellation
        let ref = DiffProgramRef(self)
        DispatchQueue.global(qos: .userInitiated).async {
            let outcome = Result { () throws -> (DiffStores, StoreDiffReport) in
                let stores = try open()
                do {
                    let report = try stores.diff.run { name, i, n in
                        if cancellation.isCancelled { throw CancellationError() }
                        ref.post(.progress("Comparing \(name) (\(i + 1) of \(n))"))
                    }
                    return (stores, report)
                } catch {
                    stores.close()
                    throw error
                }
            }
            let job = MainQueueJob {
                guard let program = ref.program, !cancellation.isCancelled else {
                    if case let .success((stores, _)) = outcome { stores.close() }
                    return
                }
                program.comparing = false
                program.pendingJobs -= 1
                switch outcome {
                case let .success((stores, report)):
                    program.stores = stores
                    program.dispatch(.compared(report))
                case let .failure(error):
                    program.dispatch(.failed(StackScopeErrorMessage.line(for: error)))
                }
            }
            DispatchQueue.main.async { job.run() }
        }
    }

    /// Feeds an action in; draws once the queue has drained. Call on the main queue.
    public func dispatch(_ action: DiffView.Action) { dispatch([action]) }

    /// Feeds actions in and draws once after the last.
    public func dispatch(_ actions: [DiffView.Action]) {
        queue.append(contentsOf: actions)
        guard !processing else { return }
        processing = true
        while !queue.isEmpty {
            let commands = DiffView.update(&state, queue.removeFirst())
            for c in commands { run(c) }
        }
        processing = false
        flush()
    }

    public func dispatchKeys(_ keys: [Key]) { dispatch(keys.map { .key($0) }) }

    public func resized(to size: Size) { dispatch(.resized(size)) }

    public func redraw() {
        backend.invalidate()
        flush()
    }

    public var isIdle: Bool { queue.isEmpty && !processing && pendingJobs == 0 }

    /// Stops the comparison if it runs (its queue closes the stores when it sees that) and closes
    /// the stores. Runs once.
    @discardableResult
    public func shutDown() -> String? {
        guard !finished else { return nil }
        finished = true
        cancellation.cancel()
        ticker?.cancel()
        ticker = nil
        stores?.close()
        stores = nil
        return nil
    }

    private func flush() {
        guard !processing, !finished else { return }
        backend.draw(DiffView.render(state))
    }

    private func run(_ command: DiffView.Command) {
        switch command {
        case let .loadDetail(entity, row):
            guard let stores, let report = state.report, let e = report.entities.first(where: { $0.name == entity }) else { return }
            do {
                let detail = try DiffObjectReader(stores: stores, matchedByPrimaryKey: report.matchedByPrimaryKey).detail(of: row, in: e)
                queue.append(.detailLoaded(entity: entity, row: row, detail, error: nil))
            } catch {
                queue.append(.detailLoaded(entity: entity, row: row, nil, error: StackScopeErrorMessage.line(for: error)))
            }
        case .quit:
            shutDown()
            quitHandler()
        case .redraw:
            backend.invalidate()
        case .suspend:
            suspendHandler()
            backend.invalidate()
        }
    }

    private func startTicking() {
        let t = DispatchSource.makeTimerSource(queue: .main)
        t.schedule(deadline: .now() + 0.1, repeating: 0.1)
        let ref = DiffProgramRef(self)
        t.setEventHandler {
            let job = MainQueueJob {
                guard let program = ref.program else { return }
                guard program.comparing else {
                    program.ticker?.cancel()
                    program.ticker = nil
                    return
                }
                program.dispatch(.tick)
            }
            job.run()
        }
        ticker = t
        t.resume()
    }
}

/// A weak reference to the diff program that other queues hand actions to (on the main queue).
final class DiffProgramRef: @unchecked Sendable {
    weak var program: DiffViewProgram?
    init(_ program: DiffViewProgram) { self.program = program }

    func post(_ action: DiffView.Action) {
        DispatchQueue.main.async { [self] in program?.dispatch(action) }
    }
}
