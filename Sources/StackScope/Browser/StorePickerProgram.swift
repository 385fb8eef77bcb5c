import CoreStack
import Foundation

/// The store picker's loop and effects: searches the folders (``StoreFinder``) on a background
/// queue, the list filling in and the status line saying how far the search got, and hands the
/// store chosen with Enter to ``openHandler`` (the runner opens it in the browser, whose `q` comes
/// back here with ``resume(note:)``). Actions go through ``StorePickerView/update(_:_:)``.
///
/// ```swift
/// let picker = StorePickerProgram(folders: ["~/Stores"], backend: backend)
/// picker.openHandler = { path in try openBrowser(path) }   // throws: the picker shows why
/// picker.quitHandler = { exit(0) }
/// DispatchQueue.main.async { picker.begin() }
/// ```
public final class StorePickerProgram: ScreenProgram {
    /// The state as the last update left it.
    public private(set) var state: StorePickerState
    let backend: any TerminalBackend
    private let finder: StoreFinder
    private let cancellation = FetchCancellation()
    private var ticker: (any DispatchSourceTimer)?
    private var queue: [StorePickerView.Action] = []
    private var processing = false
    private var pendingJobs = 0
    /// Whether the picker has the screen (not while the browser it opened has).
    public private(set) var isActive = true
    private var finished = false
    /// Opens the store at a path (the browser takes the screen); an error is shown in the status line.
    public var openHandler: (String) throws -> Void = { _ in }
    /// Called once when the picker quits, after ``shutDown()``.
    public var quitHandler: () -> Void = {}
    /// Asked to suspend the process (Ctrl-Z).
    public var suspendHandler: () -> Void = {}

    /// A picker over the stores under `folders`, drawn into `backend`; `finder` searches (tests
    /// pass one whose listing fails for some folders).
    public init(folders: [String], backend: any TerminalBackend, finder: StoreFinder = StoreFinder()) {
        var s = StorePickerState(folders: folders)
        s.size = backend.size
        state = s
        self.backend = backend
        self.finder = finder
    }

    deinit { ticker?.cancel() }

    /// Draws the first screen and starts the search. Call on the main queue.
    public func begin() {
        flush()
        pendingJobs += 1
        startTicking()
        let folders = state.folders
        let finder = finder
        let cancellation = cancellation
        let ref = PickerProgramRef(self)
        DispatchQueue.global(qos: .userInitiated).async {
            var last = Date.distantPast
            let outcome = Result {
                try finder.search(folders, progress: { partial in
                    // A few updates a second, whatever the number of folders.
                    let now = Date()
                    guard now.timeIntervalSince(last) >= 0.1 else { return }
                    last = now
                    ref.post(.scanned(partial, done: false))
                }, isCancelled: { cancellation.isCancelled })
            }
            let job = MainQueueJob {
                guard let program = ref.program else { return }
                program.pendingJobs -= 1
                guard !cancellation.isCancelled else { return }
                switch outcome {
                case let .success(search): program.dispatch(.scanned(search, done: true))
                case let .failure(error): program.dispatch(.failed(StackScopeErrorMessage.line(for: error)))
                }
            }
            DispatchQueue.main.async { job.run() }
        }
    }

    /// Feeds an action in; draws once the queue has drained. Call on the main queue.
    public func dispatch(_ action: StorePickerView.Action) { dispatch([action]) }

    /// Feeds actions in and draws once after the last.
    public func dispatch(_ actions: [StorePickerView.Action]) {
        queue.append(contentsOf: actions)
        guard !processing else { return }
        processing = true
        while !queue.isEmpty {
            let commands = StorePickerView.update(&state, queue.removeFirst())
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

    /// The browser it opened has quit: the picker takes the screen again, the list as it was;
    /// `note` is a failed save's line. Call on the main queue.
    public func resume(note: String?, size: Size) {
        isActive = true
        backend.invalidate()
        dispatch([.resized(size), .returned(note: note)])
    }

    /// Stops the search. Runs once.
    @discardableResult
    public func shutDown() -> String? {
        guard !finished else { return nil }
        finished = true
        cancellation.cancel()
        ticker?.cancel()
        ticker = nil
        return nil
    }

    private func flush() {
        guard !processing, isActive, !finished else { return }
        backend.draw(StorePickerView.render(state))
    }

    private func run(_ command: StorePickerView.Command) {
        switch command {
        case let .open(path):
            isActive = false
            do {
                try openHandler(path)
            } catch {
                isActive = true
                queue.append(.openFailed(path: path, message: StackScopeErrorMessage.line(for: error)))
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
        let ref = PickerProgramRef(self)
        t.setEventHandler {
            let job = MainQueueJob {
                guard let program = ref.program else { return }
                guard program.state.scanning else {
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

/// A weak reference to the picker that other queues hand actions to (on the main queue).
final class PickerProgramRef: @unchecked Sendable {
    weak var program: StorePickerProgram?
    init(_ program: StorePickerProgram) { self.program = program }

    func post(_ action: StorePickerView.Action) {
        DispatchQueue.main.async { [self] in program?.dispatch(action) }
    }
}
