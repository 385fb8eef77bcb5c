import CoreStack
import Foundation

/// The store picker's loop and effects: searches the folders (``StoreFinder``) on a background
/// queue, the list filling in and the status line saying how far the search got, and hands the
/// store chosen with Enter to ``openHandler`` (the runner opens it in the browser, whose `q` comes
/// back here with ``resume(note:size:)``). Actions go through ``StorePickerView/update(_:_:)``.
///
/// ```swift
/// let picker = StorePickerProgram(folders: ["~/Stores"], backend: backend)
/// picker.openHandler = { path in try openBrowser(path) }   // throws: the picker shows why
/// picker.quitHandler = { exit(0) }
/// DispatchQueue.main.async { picker.begin() }
/// ```
public final class StorePickerProgram: ScreenLoopProgram {
    let loop: ScreenLoop<StorePickerState, StorePickerView.Action, StorePickerView.Command>
    private let finder: StoreFinder
    private let cancellation = FetchCancellation()
    /// Whether the picker has the screen (not while the browser it opened has).
    public private(set) var isActive = true
    private var finished = false
    /// Opens the store at a path (the browser takes the screen); an error is shown in the status line.
    public var openHandler: (String) throws -> Void = { _ in }
    /// Called once when the picker quits, after ``shutDown()``.
    public var quitHandler: () -> Void = {}
    /// Asked to suspend the process (Ctrl-Z).
    public var suspendHandler: () -> Void = {}

    /// The state as the last update left it.
    public var state: StorePickerState { loop.state }

    /// A picker over the stores under `folders`, drawn into `backend`; `finder` searches (tests
    /// pass one whose listing fails for some folders).
    public init(folders: [String], backend: any TerminalBackend, finder: StoreFinder = StoreFinder()) {
        var s = StorePickerState(folders: folders)
        s.size = backend.size
        loop = ScreenLoop(state: s, backend: backend, update: StorePickerView.update, render: StorePickerView.render)
        self.finder = finder
        loop.perform = { [unowned self] in run($0) }
        loop.drawsFrames = { [unowned self] in isActive && !finished }
    }

    /// Draws the first screen and starts the search. Call on the main queue.
    public func begin() {
        loop.flush()
        loop.pendingJobs += 1
        loop.startTicking(.tick) { $0.scanning }
        let folders = state.folders
        let finder = finder
        let cancellation = cancellation
        let post = loop.mailbox()
        let program = WeakReference(self)
        DispatchQueue.global(qos: .userInitiated).async {
            var last = Date.distantPast
            let outcome = Result {
                try finder.search(folders, progress: { partial in
                    // A few updates a second, whatever the number of folders.
                    let now = Date()
                    guard now.timeIntervalSince(last) >= 0.1 else { return }
                    last = now
                    post(.scanned(partial, done: false))
                }, isCancelled: { cancellation.isCancelled })
            }
            let job = MainQueueJob {
                guard let self = program.value else { return }
                self.loop.pendingJobs -= 1
                guard !cancellation.isCancelled else { return }
                switch outcome {
                case let .success(search): self.dispatch(.scanned(search, done: true))
                case let .failure(error): self.dispatch(.failed(StackScopeErrorMessage.line(for: error)))
                }
            }
            DispatchQueue.main.async { job.run() }
        }
    }

    /// Feeds an action in; draws once the queue has drained. Call on the main queue.
    public func dispatch(_ action: StorePickerView.Action) { loop.dispatch([action]) }

    static func keyAction(_ key: Key) -> StorePickerView.Action { .key(key) }

    static func resizeAction(_ size: Size) -> StorePickerView.Action { .resized(size) }

    /// The browser it opened has quit: the picker takes the screen again, the list as it was;
    /// `note` is a failed save's line. Call on the main queue.
    public func resume(note: String?, size: Size) {
        isActive = true
        loop.backend.invalidate()
        loop.dispatch([.resized(size), .returned(note: note)])
    }

    /// Stops the search. Runs once.
    @discardableResult
    public func shutDown() -> String? {
        guard !finished else { return nil }
        finished = true
        cancellation.cancel()
        loop.stopTicking()
        return nil
    }

    private func run(_ command: StorePickerView.Command) {
        switch command {
        case let .open(path):
            isActive = false
            do {
                try openHandler(path)
            } catch {
                isActive = true
                loop.enqueue(.openFailed(path: path, message: StackScopeErrorMessage.line(for: error)))
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
