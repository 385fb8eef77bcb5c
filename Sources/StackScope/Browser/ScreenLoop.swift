import Foundation

/// The Elm loop of a small full-screen program (the diff view, the store picker): every action
/// enters through ``dispatch(_:)`` on the main queue, goes through `update`, the commands it
/// returns are handed to ``perform``, and once the queue has drained the state is drawn once.
///
/// ```swift
/// let loop = ScreenLoop(state: DiffViewState(oldPath: a, newPath: b), backend: backend,
///                       update: DiffView.update, render: DiffView.render)
/// loop.perform = { command in … }
/// loop.dispatch([.key(.char("j"))])
/// ```
final class ScreenLoop<State, Action: Sendable, Command> {
    /// The state as the last update left it.
    private(set) var state: State
    let backend: any TerminalBackend
    private let update: (inout State, Action) -> [Command]
    private let render: (State) -> Frame
    /// Runs a command the update asked for (its results come back through ``enqueue(_:)`` or ``dispatch(_:)``).
    var perform: (Command) -> Void = { _ in }
    /// Whether frames are drawn (not once the program gave the screen to another, or ended).
    var drawsFrames: () -> Bool = { true }
    /// Jobs started and not finished (for ``isIdle``).
    var pendingJobs = 0
    private var queue: [Action] = []
    private var processing = false
    private var ticker: (any DispatchSourceTimer)?

    init(state: State, backend: any TerminalBackend, update: @escaping (inout State, Action) -> [Command], render: @escaping (State) -> Frame) {
        self.state = state
        self.backend = backend
        self.update = update
        self.render = render
    }

    deinit { ticker?.cancel() }

    /// Feeds actions in and draws once after the last. Call on the main queue.
    func dispatch(_ actions: [Action]) {
        queue.append(contentsOf: actions)
        guard !processing else { return }
        processing = true
        while !queue.isEmpty {
            for command in update(&state, queue.removeFirst()) { perform(command) }
        }
        processing = false
        flush()
    }

    /// Queues an action a command produced, handled before the loop draws.
    func enqueue(_ action: Action) { queue.append(action) }

    /// Draws the state (when frames are drawn and nothing is being handled).
    func flush() {
        guard !processing, drawsFrames() else { return }
        backend.draw(render(state))
    }

    /// Repaints everything (after a resume or Ctrl-L).
    func redraw() {
        backend.invalidate()
        flush()
    }

    /// Nothing queued and no job pending.
    var isIdle: Bool { queue.isEmpty && !processing && pendingJobs == 0 }

    /// Sends `tick` ten times a second (a spinner) while `running` holds for the state.
    func startTicking(_ tick: Action, while running: @escaping (State) -> Bool) {
        let t = DispatchSource.makeTimerSource(queue: .main)
        t.schedule(deadline: .now() + 0.1, repeating: 0.1)
        let loop = WeakReference(self)
        let job = MainQueueJob {
            guard let self = loop.value else { return }
            guard running(self.state) else {
                self.stopTicking()
                return
            }
            self.dispatch([tick])
        }
        t.setEventHandler { job.run() }
        ticker = t
        t.resume()
    }

    func stopTicking() {
        ticker?.cancel()
        ticker = nil
    }

    /// Hands an action from any queue to the loop on the main queue (dropped once the loop is gone).
    func mailbox() -> @Sendable (Action) -> Void {
        let loop = WeakReference(self)
        return { action in
            DispatchQueue.main.async {
                let job = MainQueueJob { loop.value?.dispatch([action]) }
                job.run()
            }
        }
    }
}

/// A weak reference that crosses queues; what it points to is touched on the main queue only.
final class WeakReference<Value: AnyObject>: @unchecked Sendable {
    weak var value: Value?
    init(_ value: Value) { self.value = value }
}

/// A full-screen program run by a ``ScreenLoop``: keys, resizes, redraws and idleness go to its
/// loop as its view's actions.
protocol ScreenLoopProgram: ScreenProgram {
    associatedtype LoopState
    associatedtype LoopAction: Sendable
    associatedtype LoopCommand
    var loop: ScreenLoop<LoopState, LoopAction, LoopCommand> { get }
    /// The view's action for a key.
    static func keyAction(_ key: Key) -> LoopAction
    /// The view's action for a new terminal size.
    static func resizeAction(_ size: Size) -> LoopAction
}

extension ScreenLoopProgram {
    /// Sends keys to the view's loop, as its actions.
    public func dispatchKeys(_ keys: [Key]) { loop.dispatch(keys.map(Self.keyAction)) }
    /// Tells the view's loop that the terminal has a new size.
    public func resized(to size: Size) { loop.dispatch([Self.resizeAction(size)]) }
    /// Draws the view again.
    public func redraw() { loop.redraw() }
    /// Whether the loop has nothing left to do (no action queued, no effect running).
    public var isIdle: Bool { loop.isIdle }
}
