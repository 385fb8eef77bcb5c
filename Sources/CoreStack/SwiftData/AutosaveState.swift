import Foundation

/// A ``ModelContext``'s autosave switch, whether a save is scheduled, and the last autosave's
/// error: shared with the save it schedules on the context's queue.
final class AutosaveState: Sendable {
    private struct State {
        var isEnabled: Bool
        var isScheduled = false
        var lastError: (any Error)?
    }

    private let state: LockedValue<State>

    init(enabled: Bool) {
        state = LockedValue(State(isEnabled: enabled))
    }

    var isEnabled: Bool {
        get { state.withLock { $0.isEnabled } }
        set { state.withLock { $0.isEnabled = newValue } }
    }

    var lastError: (any Error)? { state.withLock { $0.lastError } }

    /// Schedules one save of `context` on its queue, after what is queued there now (for the main
    /// queue: after the current turn and its end-of-turn processing); a save already scheduled
    /// covers later changes.
    func scheduleSave(of context: ManagedObjectContext) {
        let schedule = state.withLock { s -> Bool in
            guard s.isEnabled, !s.isScheduled else { return false }
            s.isScheduled = true
            return true
        }
        guard schedule else { return }
        context.perform { [weak context] in
            let enabled = self.state.withLock { s -> Bool in
                s.isScheduled = false
                return s.isEnabled
            }
            guard enabled, let context, context.hasChanges else { return }
            do {
                try context.save()
                self.state.withLock { $0.lastError = nil }
            } catch {
                self.state.withLock { $0.lastError = error }
            }
        }
    }
}
