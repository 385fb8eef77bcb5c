import Dispatch

/// Lets the main queue run what was queued on it before this call, then comes back: the end of
/// the current main-queue turn, for tests of what CoreStack does at the end of a turn.
func endOfMainQueueTurn() async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        DispatchQueue.main.async { done.resume() }
    }
}
