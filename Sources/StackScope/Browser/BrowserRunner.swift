import CoreStack
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs the browser in the terminal: takes the terminal over with curses, owns the signals,
/// feeds keys into a ``BrowserProgram`` on the main queue, and gives the terminal back on every
/// way out (quit, SIGINT, SIGTERM, SIGHUP, an error, a crash in the app's own code).
///
/// ```swift
/// let session = try BrowserSession.open(storePath: path, modelPath: nil, readOnly: false)
/// BrowserRunner.run(session: session, mouse: true)   // never returns
/// ```
public enum BrowserRunner {
    /// Starts the browser and services the main queue until it quits; exits the process.
    /// `pictures`: how the value inspector draws images (default: as the environment says).
    public static func run(session: BrowserSession, mouse: Bool, pictures: PictureStyle? = nil) -> Never {
        run(mouse: mouse, pictures: pictures, closeOnFailure: { session.close() }) { backend, box in
            box.session = session
            return browser(session, backend: backend, box: box)
        }
    }

    /// The browser over `session`, drawn into `backend`, quitting through `box` (or wherever
    /// its quit handler is set to go afterwards).
    static func browser(_ session: BrowserSession, backend: CursesBackend, box: RunnerState) -> BrowserProgram {
        let program = BrowserProgram(session: session, backend: backend)
        program.suspendHandler = { backend.suspend() }
        program.quitHandler = { box.finish(status: 0) }
        return program
    }

    /// Takes the terminal over, makes the first program with `makeProgram`, feeds it keys,
    /// signals and resizes on the main queue until it (or a program it switched to,
    /// ``RunnerState/program``) quits; exits the process. Without a terminal to take over, prints
    /// the error, calls `closeOnFailure` and exits with status 1.
    static func run(
        mouse: Bool, pictures: PictureStyle? = nil, closeOnFailure: () -> Void, makeProgram: (CursesBackend, RunnerState) -> any ScreenProgram
    ) -> Never {
        let box = RunnerState()
        // Signals first, so curses sees them taken and installs none of its own handlers.
        let signals = TerminalSignals(queue: .main) { signal in
            let job = MainQueueJob { box.handle(signal) }
            job.run()
        }
        box.signals = signals
        let backend: CursesBackend
        do {
            backend = try CursesBackend(mouse: mouse, pictures: pictures)
        } catch {
            signals.cancel()
            closeOnFailure()  // exit frees nothing: the store's -wal and -shm go now
            FileHandle.standardError.write(Data("stackscope: error: \(error)\n".utf8))
            exit(1)
        }
        // The size curses saw at start can predate the terminal's (a pane still being laid out).
        backend.handleResize()
        box.backend = backend
        let program = makeProgram(backend, box)
        box.program = program
        box.input = stdinReadSource(queue: .main) { available in
            let job = MainQueueJob { box.readInput(available: available) }
            job.run()
        }
        DispatchQueue.main.async {
            let job = MainQueueJob { program.begin() }
            job.run()
        }
        dispatchMain()
    }
}

/// What the runner's callbacks share; touched on the main queue only.
final class RunnerState: @unchecked Sendable {
    var signals: TerminalSignals?
    var backend: CursesBackend?
    /// The program the keys go to; a program may hand over to another (the picker to the
    /// browser and back).
    var program: (any ScreenProgram)?
    var session: BrowserSession?
    var input: (any DispatchSourceRead)?
    private var finished = false

    func readInput(available: UInt) {
        guard let backend, let program else { return }
        if available == 0 {
            // Standard input closed: the terminal went away.
            finish(status: 0)
            return
        }
        let keys = backend.readKeys()
        program.dispatchKeys(keys)
    }

    func handle(_ signal: TerminalSignal) {
        guard let backend, let program else { return }
        switch signal {
        case .resized:
            backend.handleResize()
            program.resized(to: backend.size)
        case .suspend:
            backend.suspend()
            program.redraw()
        case .resumed:
            backend.invalidate()
            program.redraw()
        case .interrupt, .terminate, .hangup:
            finish(status: signal == .interrupt ? 130 : 0)
        }
    }

    /// Saves what the session holds (the framework's save-on-termination, in the browser's own
    /// order) and closes its stores (``BrowserProgram/shutDown()``), gives the terminal back, then
    /// ends the process. Every way out comes here: quit, `:q`, end of input, SIGINT/SIGTERM/SIGHUP.
    func finish(status: Int32) {
        guard !finished else { return }
        finished = true
        input?.cancel()
        // Saves the session and closes every store it opened (SQLite then removes the -wal and -shm).
        let saveError: String?
        if let program {
            saveError = program.shutDown()
        } else {
            saveError = session.flatMap { s -> String? in
                defer { s.close() }
                do {
                    try s.saveAll()
                    return nil
                } catch {
                    return StackScopeErrorMessage.line(for: error)
                }
            }
        }
        backend?.restore()
        signals?.cancel()
        if let saveError { FileHandle.standardError.write(Data("stackscope: error: saving on exit failed: \(saveError)\n".utf8)) }
        exit(status)
    }
}
