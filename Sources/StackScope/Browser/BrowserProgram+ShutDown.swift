import CoreStack
import Foundation

extension BrowserProgram {
    /// Ends the session's life on disk: stops the ticker and the remote-change observer, saves
    /// what the session holds (the framework's save-on-termination, in the browser's own order),
    /// closes the scratch contexts' own coordinators' stores and the session's store. SQLite then
    /// removes the store file's `-wal` and `-shm` (those the browser created, when it only read).
    /// Returns the line of a failed save, nil when all was saved. Runs once: later calls return
    /// the first call's result. Call on the main queue; the program reads nothing afterwards.
    ///
    /// ```swift
    /// program.quitHandler = { exit(0) }   // .quit calls shutDown() first
    /// if let error = program.shutDown() { print("saving on exit failed: \(error)") }
    /// ```
    @discardableResult
    public func shutDown() -> String? {
        if let outcome = shutDownOutcome { return outcome }
        ticker?.cancel()
        ticker = nil
        if let remoteObservation { session.coordinator.removeRemoteChangeObserver(remoteObservation) }
        remoteObservation = nil
        var saveError: String?
        do {
            try session.saveAll()
        } catch {
            saveError = StackScopeErrorMessage.line(for: error)
        }
        scratch.closeAll()
        session.close()
        shutDownOutcome = .some(saveError)
        return saveError
    }
}
