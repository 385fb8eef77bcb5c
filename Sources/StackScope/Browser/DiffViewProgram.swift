import CoreStack
import Foundation

/// The diff view's loop and effects: opens the two stores and runs their comparison
/// (`StoreDiff`) on a background queue while the status line says which entity it is at (Esc
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
public final class DiffViewProgram: ScreenLoopProgram {
    /// How many objects of each kind the view lists per entity (counts stay exact).
    public static let listLimit = 5_000

    let loop: ScreenLoop<DiffViewState, DiffView.Action, DiffView.Command>
    private let open: @Sendable () throws -> DiffStores
    /// The stores, once the comparison finished (the detail reads from them).
    private var stores: DiffStores?
    private let cancellation = FetchCancellation()
    private var finished = false
    /// Called once when the view quits, after ``shutDown()``.
    public var quitHandler: () -> Void = {}
    /// Asked to suspend the process (Ctrl-Z).
    public var suspendHandler: () -> Void = {}

    /// The state as the last update left it.
    public var state: DiffViewState { loop.state }

    /// A view of the comparison of `oldPath` with `newPath` drawn into `backend`; `open` opens
    /// the two stores (on a background queue, after the first screen is drawn).
    public init(oldPath: String, newPath: String, backend: any TerminalBackend, open: @escaping @Sendable () throws -> DiffStores) {
        var s = DiffViewState(oldPath: oldPath, newPath: newPath)
        s.size = backend.size
        s.listLimit = Self.listLimit
        loop = ScreenLoop(state: s, backend: backend, update: DiffView.update, render: DiffView.render)
        self.open = open
        loop.perform = { [unowned self] in run($0) }
        loop.drawsFrames = { [unowned self] in !finished }
    }

    /// Draws the first screen and starts the comparison. Call on the main queue.
    public func begin() {
        loop.flush()
        loop.pendingJobs += 1
        loop.startTicking(.tick) { $0.progress != nil }
        let open = open
        let cancellation = cancellation
        let post = loop.mailbox()
        let program = WeakReference(self)
        DispatchQueue.global(qos: .userInitiated).async {
            let outcome = Result { () throws -> (DiffStores, StoreDiffReport) in
                let stores = try open()
                do {
                    let report = try stores.diff.run { name, i, n in
                        if cancellation.isCancelled { throw CancellationError() }
                        post(.progress("Comparing \(name) (\(i + 1) of \(n))"))
                    }
                    return (stores, report)
                } catch {
                    stores.close()
                    throw error
                }
            }
            let job = MainQueueJob {
                guard let self = program.value, !cancellation.isCancelled else {
                    if case let .success((stores, _)) = outcome { stores.close() }
                    return
                }
                self.loop.pendingJobs -= 1
                switch outcome {
                case let .success((stores, report)):
                    self.stores = stores
                    self.dispatch(.compared(report))
                case let .failure(error):
                    self.dispatch(.failed(StackScopeErrorMessage.line(for: error)))
                }
            }
            DispatchQueue.main.async { job.run() }
        }
    }

    /// Feeds an action in; draws once the queue has drained. Call on the main queue.
    public func dispatch(_ action: DiffView.Action) { loop.dispatch([action]) }

    static func keyAction(_ key: Key) -> DiffView.Action { .key(key) }

    static func resizeAction(_ size: Size) -> DiffView.Action { .resized(size) }

    /// Stops the comparison if it runs (its queue closes the stores when it sees that) and closes
    /// the stores. Runs once.
    @discardableResult
    public func shutDown() -> String? {
        guard !finished else { return nil }
        finished = true
        cancellation.cancel()
        loop.stopTicking()
        stores?.close()
        stores = nil
        return nil
    }

    private func run(_ command: DiffView.Command) {
        switch command {
        case let .loadDetail(entity, row):
            guard let stores, let report = state.report, let e = report.entities.first(where: { $0.name == entity }) else { return }
            do {
                let detail = try DiffObjectReader(stores: stores, matchedByPrimaryKey: report.matchedByPrimaryKey).detail(of: row, in: e)
                loop.enqueue(.detailLoaded(entity: entity, row: row, detail, error: nil))
            } catch {
                loop.enqueue(.detailLoaded(entity: entity, row: row, nil, error: StackScopeErrorMessage.line(for: error)))
            }
        case .quit:
            shutDown()
            quitHandler()
        case .redraw:
            loop.backend.invalidate()
        case .suspend:
            suspendHandler()
            loop.backend.invalidate()
        }
    }
}
