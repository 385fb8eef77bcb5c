import Dispatch

// MARK: End-of-turn processing for main-queue contexts

extension ManagedObjectContext {
    /// Called when a change is first noted as not yet announced (an insert, a delete, or the first
    /// change to an object since the last announcement).
    ///
    /// A main-queue context may be changed outside `perform` (legal on the main thread). Core Data
    /// processes such changes at the end of the current run-loop turn; CoreStack does the same at
    /// the end of the current main-queue turn: the first change schedules one
    /// ``processPendingChanges()`` on the main queue, which announces `objectsDidChange` (and so
    /// reaches fetched results controllers and entity monitors) once for every change made in the
    /// turn. Changes made inside `perform` are announced at the end of the block as before, and the
    /// scheduled call then finds nothing to announce. Private-queue contexts announce at the end of
    /// each `perform`, as Core Data does.
    ///
    /// ```swift
    /// // On the main thread, outside perform:
    /// let note = try Note.insert(into: mainContext)
    /// // ... objectsDidChange is posted once the current main-queue turn ends.
    /// ```
    @inline(__always)
    func noteUnannouncedChange() {
        guard concurrencyType == .mainQueue, !endOfTurnProcessingScheduled else { return }
        scheduleEndOfTurnProcessing()
    }

    @inline(never)
    private func scheduleEndOfTurnProcessing() {
        endOfTurnProcessingScheduled = true
        DispatchQueue.main.async { [weak self] in
            guard let self else { return }
            self.endOfTurnProcessingScheduled = false
            self.holdingQueue { self.processPendingChanges() }
        }
    }
}
