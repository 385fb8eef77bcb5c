import CoreStack
import Foundation

// The runner's other screens: the diff view, and the store picker that hands over to the browser
// and takes the screen back when the browser quits.
extension BrowserRunner {
    /// `stackscope diff OLD NEW` on a terminal: the diff view (``DiffViewProgram``) over the two
    /// stores, opened already (an error opening them is a line on standard error, not a screen),
    /// until `q`; closes them and exits the process. `mouse` false (`--no-mouse`) never captures
    /// the mouse.
    ///
    /// ```swift
    /// let stores = try DiffStores.open(oldPath: "a.sqlite", newPath: "b.sqlite", modelPath: nil, keys: [], entities: [],
    ///                                  changeLimit: DiffViewProgram.listLimit)
    /// BrowserRunner.runDiff(oldPath: "a.sqlite", newPath: "b.sqlite", stores: stores)
    /// ```
    public static func runDiff(oldPath: String, newPath: String, stores: DiffStores, mouse: Bool = true) -> Never {
        run(mouse: mouse, closeOnFailure: { stores.close() }) { backend, box in
            let program = DiffViewProgram(oldPath: oldPath, newPath: newPath, backend: backend) { stores }
            program.quitHandler = { box.finish(status: 0) }
            program.suspendHandler = { backend.suspend() }
            return program
        }
    }

    /// `stackscope DIR` on a terminal: the store picker (``StorePickerProgram``) over the stores
    /// under `folders`; Enter opens one in the browser (with `modelPath` and `readOnly` as given),
    /// whose `q` saves, closes the store and comes back to the picker. Esc or Ctrl-C in the picker
    /// quits; exits the process.
    ///
    /// ```swift
    /// BrowserRunner.runPicker(folders: ["~/Stores"], modelPath: nil, readOnly: true, mouse: true)
    /// ```
    public static func runPicker(folders: [String], modelPath: String?, readOnly: Bool, mouse: Bool) -> Never {
        run(mouse: mouse, closeOnFailure: {}) { backend, box in
            let picker = StorePickerProgram(folders: folders, backend: backend)
            picker.quitHandler = { box.finish(status: 0) }
            picker.suspendHandler = { backend.suspend() }
            picker.openHandler = { path in
                let session = try BrowserSession.open(storePath: path, modelPath: modelPath, readOnly: readOnly)
                let program = browser(session, backend: backend, box: box)
                program.quitHandler = { [weak program] in
                    // `.quit` ran shutDown() (saved, closed the store) before calling this.
                    let note = program?.shutDown()
                    box.program = picker
                    // After the browser's last turn of its loop, so the picker draws last.
                    let job = MainQueueJob { picker.resume(note: note, size: backend.size) }
                    DispatchQueue.main.async { job.run() }
                }
                box.program = program
                program.begin()
                program.dispatch(.message("q goes back to the list of stores · ? help", .info))
            }
            return picker
        }
    }
}
